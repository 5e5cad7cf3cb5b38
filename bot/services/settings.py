"""Per-server settings: default ruleset, time per move, channels where games are allowed."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from bot.i18n import _
from bot.i18n.language import SOURCE_TAG, catalog_tags
from bot.services.domain import MAX_TIME_PER_MOVE, MIN_TIME_PER_MOVE, GuildSettings
from bot.services.errors import InvalidOption
from bot.storage import Database, settings
from bot.storage.connection import Connection
from engine import RULESETS, UnknownRulesetError, get_ruleset
from engine.errors import echoed

KEEP_SECONDS = 60.0
"""How long settings read from the database are used again before they are read anew.

Every interaction needs its server's settings (the language of its answer, at least), so they
are kept in memory. Only the process running a server's shard changes them (/settings there),
and it keeps what it stored at once; the time only bounds how late a change made elsewhere
(another process running the same shard for a while, during a restart) is seen.
"""


@dataclass(frozen=True)
class SettingsChange:
    """What one change of a server's settings met and left: ``before``, the settings as
    stored when it was written (read under the lock writes take), and ``after``, those in
    force once it was (the same when it changed nothing, and nothing was written)."""

    before: GuildSettings
    after: GuildSettings

    @property
    def changed(self) -> bool:
        """Whether the change changed any setting."""
        return self.before != self.after


class SettingsService:
    """Reads and changes a server's settings."""

    def __init__(
        self, database: Database, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._database = database
        self._monotonic = monotonic
        """The clock that ages kept settings (seconds): ``monotonic``, given by
        :class:`bot.services.Services` (tests pass one they can move forward)."""
        self._kept: dict[int, tuple[float, GuildSettings]] = {}
        self._changes: dict[int, int] = {}
        """How often each server's settings were changed here (a read that began before a
        change must not keep what it read)."""

    async def get(self, guild_id: int) -> GuildSettings:
        """The server's settings (defaults if it never changed any), kept ``KEEP_SECONDS``
        after a read. Raises StorageError if the database cannot read them (none kept, or
        kept longer than that)."""
        kept = self._kept.get(guild_id)
        if kept is not None and self._monotonic() - kept[0] < KEEP_SECONDS:
            return kept[1]
        changes = self._changes.get(guild_id, 0)
        read_at = self._monotonic()
        async with self._database.snapshot() as db:
            row = await settings.load(db, guild_id)
        found = GuildSettings(guild_id) if row is None else _settings(row)
        if self._changes.get(guild_id, 0) == changes:
            self._kept[guild_id] = (read_at, found)
        return found

    async def change(
        self,
        guild_id: int,
        *,
        default_ruleset: str | None = None,
        time_per_move: timedelta | None = None,
        allowed_channel_ids: Iterable[int] | None = None,
        change_channels: Callable[[frozenset[int]], frozenset[int]] | None = None,
        threads: bool | None = None,
        language: str | None = None,
        open_challenge_role_id: int | None = None,
        no_open_challenge_role: bool = False,
    ) -> SettingsChange:
        """Change the given settings (``None`` keeps one): the settings as stored before and
        after. ``no_open_challenge_role`` stops open challenges pinging a role;
        ``change_channels`` turns the channels games are allowed in, as stored when the change
        is written, into the new ones (it may raise a refusal, :class:`InvalidOption` or the
        caller's own, and nothing is changed). Settings given as they are stored change
        nothing, and a change that changes nothing writes nothing.

        The settings are read again under the lock their writes hold, and only what is given
        is changed: two admins changing settings at the same moment (say, one allowing a
        channel, the other another) both keep their change, and what each was told changed
        nothing is judged on the settings its change met.

        Raises :class:`InvalidOption` for an unknown ruleset or a time per move outside
        1 minute to 14 days, or a language without a catalog. An empty ``allowed_channel_ids``
        allows every channel; ``language`` :data:`FOLLOW_SERVER` follows the server's own.
        """
        ruleset = None if default_ruleset is None else check_ruleset(default_ruleset)
        per_move = None if time_per_move is None else check_time_per_move(time_per_move)
        chosen = None
        if language is not None and language != FOLLOW_SERVER:
            chosen = check_language(language)
        self._changing(guild_id)
        async with self._database.transaction() as db:
            await db.lock(_lock(guild_id))
            row = await settings.load(db, guild_id)
            current = GuildSettings(guild_id) if row is None else _settings(row)
            channels = current.allowed_channel_ids
            if allowed_channel_ids is not None:
                channels = frozenset(allowed_channel_ids)
            if change_channels is not None:
                channels = change_channels(channels)
            role = current.open_challenge_role_id
            if open_challenge_role_id is not None:
                role = open_challenge_role_id
            if no_open_challenge_role:
                role = None
            updated = GuildSettings(
                guild_id,
                current.default_ruleset if ruleset is None else ruleset,
                current.time_per_move if per_move is None else per_move,
                channels,
                current.threads if threads is None else threads,
                current.language if language is None else chosen,
                role,
            )
            if updated != current:
                await settings.save(
                    db,
                    settings.SettingsRow(
                        guild_id,
                        updated.default_ruleset,
                        updated.time_per_move,
                        updated.allowed_channel_ids,
                        updated.threads,
                        updated.language,
                        updated.open_challenge_role_id,
                    ),
                )
        self._changing(guild_id)
        self._kept[guild_id] = (self._monotonic(), updated)
        return SettingsChange(current, updated)

    async def locked(self, db: Connection, guild_id: int) -> GuildSettings:
        """The server's settings as stored, read in the transaction ``db`` under the lock their
        writes take: none is written until it ends."""
        await db.lock(_lock(guild_id))
        row = await settings.load(db, guild_id)
        return GuildSettings(guild_id) if row is None else _settings(row)

    async def channel_deleted(self, guild_id: int, channel_id: int) -> bool:
        """Take a deleted channel off the channels games are allowed in, unless it was the
        only one: an empty list would allow every channel, so it stays (/settings shows it
        deleted, and refusals say games are allowed nowhere). Whether the list changed.

        One conditional write, under the lock the settings' other writes take: a channel
        allowed meanwhile (here or in another process) stays allowed."""
        self._changing(guild_id)
        async with self._database.transaction() as db:
            await db.lock(_lock(guild_id))
            dropped = await settings.drop_allowed_channel(db, guild_id, channel_id)
        self._changing(guild_id)
        return dropped

    def _changing(self, guild_id: int) -> None:
        """Forget the server's kept settings: they are being changed (a read under way keeps
        nothing it read)."""
        self._changes[guild_id] = self._changes.get(guild_id, 0) + 1
        self._kept.pop(guild_id, None)


def _lock(guild_id: int) -> str:
    """The lock every write of the server's settings holds (PostgreSQL: one at a time)."""
    return f"settings:{guild_id}"


def _settings(row: settings.SettingsRow) -> GuildSettings:
    return GuildSettings(
        row.guild_id,
        default_ruleset=row.default_ruleset,
        time_per_move=row.time_per_move,
        allowed_channel_ids=row.allowed_channel_ids,
        threads=row.threads,
        language=row.language,
        open_challenge_role_id=row.open_challenge_role_id,
    )


def check_ruleset(name: str) -> str:
    """The canonical ruleset name, or :class:`InvalidOption` saying which exist."""
    try:
        return get_ruleset(name).name
    except UnknownRulesetError:
        raise InvalidOption(
            _(
                "There is no ruleset called '{name}': choose one of {rulesets}.",
                name=echoed(name),
                rulesets=", ".join(RULESETS),
            )
        ) from None


FOLLOW_SERVER = "server"
"""``/settings language:`` value that follows the server's own language in Discord."""


def check_language(tag: str) -> str:
    """``tag`` if the bot speaks it (English or a shipped catalog), else :class:`InvalidOption`."""
    known = (SOURCE_TAG, *catalog_tags())
    if tag not in known:
        raise InvalidOption(
            _(
                "I do not speak '{name}': choose one of {languages}.",
                name=echoed(tag),
                languages=", ".join(known),
            )
        )
    return tag


def check_time_per_move(duration: timedelta) -> timedelta:
    """``duration`` if it is between 1 minute and 14 days, else :class:`InvalidOption`."""
    if not MIN_TIME_PER_MOVE <= duration <= MAX_TIME_PER_MOVE:
        raise InvalidOption(_("The time per move must be between 1 minute and 14 days."))
    return duration
