"""Challenges that lapse before anyone answers them (a game now occupies their channel, the
server no longer allows games there, threads went off while a game is played there) or expire:
closed as expired and returned, for the bot to edit their messages. The challenge service
(bot/services/challenges.py) is these and more."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.services.clock import Clock
from bot.services.domain import Challenge, ChallengeStatus, GuildSettings
from bot.services.held import NOTHING, Held
from bot.services.settings import SettingsService
from bot.shards import Shards
from bot.storage import Database, challenges, sets
from bot.storage.challenges import ChallengeRow
from bot.storage.times import duration, from_us, to_us
from engine import Side


class ChallengeLapses:
    """Lapse and expire challenges."""

    _database: Database
    _clock: Clock
    _settings: SettingsService
    _shards: Shards

    async def close_others_in_channel(self, channel_id: int) -> list[Challenge]:
        """A game now occupies ``channel_id``: its other open challenges lapse, and are returned."""
        async with self._database.transaction() as db:
            now_us = to_us(self._clock())
            # Only those this closes: one answered since it was read (withdrawn, on
            # PostgreSQL) keeps its answer, and its message must not say it lapsed.
            lapsed = [
                row
                for row in await challenges.open_in_channel(db, channel_id)
                if await challenges.close(
                    db, row.challenge_id, ChallengeStatus.EXPIRED.value, now_us=now_us
                )
            ]
        return [challenge_from_row(row) for row in lapsed]

    async def lapse_disallowed(
        self, guild_id: int, allowed: Callable[[int, GuildSettings], bool | None]
    ) -> list[Challenge]:
        """The server's settings changed where games are allowed: its open challenges in a
        channel ``allowed`` says no to under the settings as stored now (None: not known, it
        stays open) lapse, and are returned. Nobody could accept them there, yet they would
        hold their members (one open challenge between two) and their challenger's five until
        they expired. The settings are read under the lock their writes take: a channel
        another admin allowed meanwhile keeps its challenges."""
        async with self._database.transaction() as db:
            settings = await self._settings.locked(db, guild_id)
            now_us = to_us(self._clock())
            lapsed = [
                row
                for row in await challenges.open_in_guild(db, guild_id)
                if allowed(row.channel_id, settings) is False
                and await challenges.close(
                    db, row.challenge_id, ChallengeStatus.EXPIRED.value, now_us=now_us
                )
            ]
        return [challenge_from_row(row) for row in lapsed]

    async def lapse_busy(self, guild_id: int) -> list[Challenge]:
        """The server turned threads off: its open challenges in a channel a game is played in
        (one that started there while threads were off before) lapse, and are returned. Their
        game would be played in that channel now, which is busy, so nobody could accept them,
        yet they would hold their members and their challenger's five until they expired. The
        settings are read under the lock their writes take: with threads on again meanwhile
        (another admin), the challenges stay open."""
        async with self._database.transaction() as db:
            settings = await self._settings.locked(db, guild_id)
            if settings.threads:
                return []
            now_us = to_us(self._clock())
            lapsed = [
                row
                for row in await challenges.open_in_guild(db, guild_id)
                if await sets.active_in_channel(db, row.channel_id) is not None
                and await challenges.close(
                    db, row.challenge_id, ChallengeStatus.EXPIRED.value, now_us=now_us
                )
            ]
        return [challenge_from_row(row) for row in lapsed]

    async def expire_due(
        self, now: datetime | None = None, *, held: Held = NOTHING
    ) -> list[Challenge]:
        """Mark every open challenge whose expiry is at or before ``now`` (default: the clock)
        expired, but those ``held`` (nobody can accept them there now: they wait, and get the
        time back once the hold ends), and return them (so the bot can edit their
        messages)."""
        moment = now or self._clock()
        expired = []
        async with self._database.transaction() as db:
            for row in await challenges.due(db, to_us(moment), self._shards):
                if held.covers(row.guild_id, row.channel_id):
                    continue
                if await challenges.close(
                    db, row.challenge_id, ChallengeStatus.EXPIRED.value, now_us=to_us(moment)
                ):
                    expired.append(challenge_from_row(row, ChallengeStatus.EXPIRED))
        return expired


def challenge_from_row(row: ChallengeRow, status: ChallengeStatus | None = None) -> Challenge:
    """The challenge a stored row holds, with ``status`` in place of the stored one if given
    (the challenge service reads its rows through this too)."""
    return Challenge(
        challenge_id=row.challenge_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        challenger_id=row.challenger_id,
        opponent_id=row.opponent_id,
        ruleset=row.ruleset,
        sets_total=row.sets_total,
        challenger_side=Side(row.challenger_side),
        time_per_move=duration(row.time_per_move_us),
        created_at=from_us(row.created_us),
        expires_at=from_us(row.expires_us),
        status=status or ChallengeStatus(row.status),
        message_id=row.message_id,
    )
