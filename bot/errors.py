"""The one place where errors become replies.

Domain errors (the services' ``GameError`` sentences, the engine's ``IllegalMoveError``) and
Discord's check failures become ephemeral one-sentence replies, said in the language of the
person who used the interaction (its ``locale``); anything else is logged with its traceback and
the player gets a short apology, never a Python message. The command tree, every button and
every select route their errors here.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from typing import Any, Final

import aiohttp
import discord
from discord import app_commands

from bot.i18n import ENGLISH, Language, _, command
from bot.i18n.audience import reader
from bot.i18n.text import engine_sentence
from bot.names import escaped
from bot.services.errors import ChannelNotAllowed, GameError
from bot.storage.errors import DatabaseBusy, IdOutOfRange, StorageError
from bot.thread_locks import (
    THREAD_ARCHIVED,
    THREAD_LOCKED,
    LocksSeen,
    refused_about,
)
from engine import IllegalMoveError
from engine.errors import echoed

_log = logging.getLogger(__name__)

APOLOGY = _("Sorry, something went wrong on my side. It has been logged; please try again.")

UNKNOWN_COMMAND = _("I do not know that command (any more): type / to see mine.")
MISSING_OPTIONS = _(
    "That command arrived without the options it needs: pick it again from the / menu."
)
UNKNOWN_BUTTON = _(
    "That button is not one of mine (any more): use the newest message, or {games_command}.",
    games_command=command("games"),
)

UNREACHABLE = (discord.DiscordServerError, aiohttp.ClientError, OSError, TimeoutError)
"""What a post raises when Discord could not take it just now (5xx, the connection, a time-out):
worth trying again soon, unlike a refusal (4xx) that would be refused again."""


CHANNEL_PERMISSIONS = ("send_messages", "attach_files")
"""What the bot needs in a channel where games are played: boards are attached pictures, and
no post in a game carries an embed (a channel that denies Embed Links to stop link previews
must not stop its games)."""

_PERMISSION_NAMES = {
    "send_messages": _("Send Messages"),
    "attach_files": _("Attach Files"),
    "embed_links": _("Embed Links"),
    "view_channel": _("View Channel"),
    "read_message_history": _("Read Message History"),
    "send_messages_in_threads": _("Send Messages in Threads"),
    "create_public_threads": _("Create Public Threads"),
    "manage_guild": _("Manage Server"),
}
"""Permissions as Discord's settings name them (in each language)."""


def permission_names(missing: list[str], lang: Language) -> str:
    """ "Send Messages, Attach Files, and Embed Links": the permissions as the reader's Discord
    names them, listed as the reader's language lists things."""
    return lang.joined(
        [
            lang.render(_PERMISSION_NAMES[name]) if name in _PERMISSION_NAMES else name
            for name in missing
        ]
    )


class MissingChannelPermissions(Exception):
    """The bot lacks permissions it needs in a channel; :meth:`sentence` names them."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        super().__init__(self.sentence(ENGLISH))

    def sentence(self, lang: Language) -> str:
        """The refusal in ``lang``, naming the missing permissions."""
        return lang.n_(
            "I can't play in this channel: I need the {permissions} permission here. Ask a "
            "server admin to give it to me, or use another channel.",
            "I can't play in this channel: I need the {permissions} permissions here. Ask a "
            "server admin to give them to me, or use another channel.",
            len(self.missing),
            permissions=permission_names(self.missing, lang),
        )


THREAD_PERMISSIONS = ("send_messages_in_threads", "attach_files")
"""What the bot needs in a thread (where Send Messages in Threads replaces Send Messages)."""


def missing_channel_permissions(
    permissions: discord.Permissions, *, in_thread: bool = False
) -> list[str]:
    """The game permissions missing from ``permissions`` (the bot's, in a channel or thread)."""
    needed = THREAD_PERMISSIONS if in_thread else CHANNEL_PERMISSIONS
    return [name for name in needed if not getattr(permissions, name)]


def permissions_missing(
    interaction: discord.Interaction[Any], channel_id: int, needed: tuple[str, ...]
) -> list[str]:
    """Which of ``needed`` I lack in ``channel_id`` of ``interaction``'s server (none when the
    channel is not in the cache: a post there will say in the log why it failed)."""
    guild = (
        None if interaction.guild_id is None else interaction.client.get_guild(interaction.guild_id)
    )
    channel = None if guild is None else guild.get_channel(channel_id)
    if guild is None or channel is None:
        return []
    mine = channel.permissions_for(guild.me)
    return [name for name in needed if not getattr(mine, name)]


class ChannelUse(enum.Enum):
    """What an admin chooses a channel for (what :class:`ChannelRefused` says it cannot be)."""

    GAMES = enum.auto()
    DAILY_PUZZLE = enum.auto()


class ChannelRefused(Exception):
    """A channel an admin chose lacks permissions I need there; :meth:`sentence` names them."""

    def __init__(self, channel_id: int, missing: list[str], use: ChannelUse) -> None:
        self.channel_id = channel_id
        self.missing = missing
        self.use = use
        super().__init__(self.sentence(ENGLISH))

    def sentence(self, lang: Language) -> str:
        """The refusal in ``lang``, naming the channel and the missing permissions."""
        channel = f"<#{self.channel_id}>"
        permissions = permission_names(self.missing, lang)
        if self.use is ChannelUse.DAILY_PUZZLE:
            return lang.n_(
                "I can't post the daily puzzle in {channel}: I need the {permissions} "
                "permission there.",
                "I can't post the daily puzzle in {channel}: I need the {permissions} "
                "permissions there.",
                len(self.missing),
                channel=channel,
                permissions=permissions,
            )
        return lang.n_(
            "I can't play in {channel}, so it stays off the list: I need the {permissions} "
            "permission there.",
            "I can't play in {channel}, so it stays off the list: I need the {permissions} "
            "permissions there.",
            len(self.missing),
            channel=channel,
            permissions=permissions,
        )


def require_permissions_in(
    interaction: discord.Interaction[Any],
    channel_id: int,
    needed: tuple[str, ...],
    use: ChannelUse,
) -> None:
    """Raise :class:`ChannelRefused` if I lack any of ``needed`` in ``channel_id`` (as
    :func:`permissions_missing` sees it), which an admin chose for ``use``."""
    missing = permissions_missing(interaction, channel_id, needed)
    if missing:
        raise ChannelRefused(channel_id, missing, use)


def missing_here(interaction: discord.Interaction[Any]) -> list[str]:
    """The game permissions I lack where ``interaction`` is (a channel, or a thread)."""
    in_thread = isinstance(interaction.channel, discord.Thread)
    return missing_channel_permissions(interaction.app_permissions, in_thread=in_thread)


def require_channel_permissions(interaction: discord.Interaction[Any]) -> None:
    """Raise MissingChannelPermissions unless the bot may post boards where ``interaction`` is
    (for what I must post on my own there: an interaction's own answer needs none of them)."""
    missing = missing_here(interaction)
    if missing:
        raise MissingChannelPermissions(missing)


def answers_only_note(missing: list[str], lang: Language, *, computer: bool = False) -> str:
    """The lines telling a player whose move was played where I lack ``missing`` what that
    means: without Send Messages (in Threads) only my answers get through there (Discord
    delivers those without it), not what I post on my own (reminders, results on time, the
    computer's reply); without Attach Files boards are shown as text (Discord refuses files
    in my answers too)."""
    posting = [name for name in missing if name != "attach_files"]
    lines = []
    if posting:
        lines.append(_posting_note(posting, lang, computer=computer))
    if len(posting) < len(missing):
        lines.append(
            lang._(
                "Until a server admin gives me the {permission} permission here, I show boards "
                "as text, without their picture.",
                permission=permission_names(["attach_files"], lang),
            )
        )
    return "\n".join(lines)


def _posting_note(missing: list[str], lang: Language, *, computer: bool) -> str:
    """The line saying that only my answers get through here until I may post (``missing``)."""
    permissions = permission_names(missing, lang)
    if computer:
        return lang.n_(
            "I can only answer commands in this channel, not post on my own, until a server "
            "admin gives me the {permissions} permission here: if my reply does not show, "
            "{board_command} shows it.",
            "I can only answer commands in this channel, not post on my own, until a server "
            "admin gives me the {permissions} permissions here: if my reply does not show, "
            "{board_command} shows it.",
            len(missing),
            permissions=permissions,
            board_command=command("board"),
        )
    return lang.n_(
        "I can only answer commands in this channel, not post on my own, until a server admin "
        "gives me the {permissions} permission here: your opponent may not be reminded of "
        "their turn.",
        "I can only answer commands in this channel, not post on my own, until a server admin "
        "gives me the {permissions} permissions here: your opponent may not be reminded of "
        "their turn.",
        len(missing),
        permissions=permissions,
    )


def sentence_for(error: BaseException, lang: Language = ENGLISH) -> str | None:
    """The reply a player should see for ``error``, in ``lang``; None if it is a bug to log."""
    if isinstance(error, app_commands.CommandInvokeError):
        return sentence_for(error.original, lang)
    if isinstance(error, app_commands.TransformerError) and error.__cause__ is not None:
        cause = sentence_for(error.__cause__, lang)
        if cause is not None:
            return cause
    if isinstance(error, GameError):
        return lang.render(error.text)
    if isinstance(error, IllegalMoveError):
        return lang.render(engine_sentence(error))
    if isinstance(error, MissingChannelPermissions | ChannelRefused):
        return error.sentence(lang)
    if isinstance(error, StorageError):
        return lang.render(error.sentence)
    if isinstance(error, app_commands.CommandNotFound):
        return lang.render(UNKNOWN_COMMAND)
    if isinstance(error, app_commands.CommandSignatureMismatch):
        return lang.render(MISSING_OPTIONS)
    if isinstance(error, app_commands.NoPrivateMessage):
        return lang._("Brandubh is played in server channels, not in direct messages.")
    if isinstance(error, app_commands.MissingPermissions):
        return lang.n_(
            "You need the {permissions} permission to use this command.",
            "You need the {permissions} permissions to use this command.",
            len(error.missing_permissions),
            permissions=permission_names(error.missing_permissions, lang),
        )
    if isinstance(error, app_commands.BotMissingPermissions):
        return MissingChannelPermissions(error.missing_permissions).sentence(lang)
    if isinstance(error, app_commands.CommandOnCooldown):
        seconds = round(error.retry_after)
        return lang.n_(
            "Slow down a little: try again in {count} second.",
            "Slow down a little: try again in {count} seconds.",
            seconds,
        )
    if isinstance(error, app_commands.TransformerError):
        value = error.value
        if isinstance(value, discord.abc.User):  # a member option given someone who left
            return lang._(
                "{player} is not a member of this server.",
                player=f"**{escaped(value.display_name)}**",
            )
        if isinstance(value, str):
            return lang._("I could not read {value} for that option.", value=f"'{echoed(value)}'")
        return lang._("I could not read one of the options.")
    if isinstance(error, discord.Forbidden):
        return MissingChannelPermissions(list(CHANNEL_PERMISSIONS)).sentence(lang)
    return None


_ODD_INPUT = (
    app_commands.CommandNotFound,
    app_commands.CommandSignatureMismatch,
    app_commands.NoPrivateMessage,
)
"""What a forged, stale or garbled interaction raises: a WARNING line, never a traceback."""


def _storage_error(error: BaseException) -> StorageError | None:
    if isinstance(error, app_commands.CommandInvokeError):
        return _storage_error(error.original)
    return error if isinstance(error, StorageError) else None


UNKNOWN_INTERACTION = 10062
"""Discord's code refusing an interaction's first answer: it came after the 3 seconds."""


def _expired(interaction: discord.Interaction[Any], error: BaseException) -> bool:
    """Discord refused ``interaction``'s first answer as too late: nothing can answer it now."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return (
        isinstance(error, discord.NotFound)
        and error.code == UNKNOWN_INTERACTION
        and not interaction.response.is_done()
    )


class Ended(enum.Enum):
    """How a press ended a set, stored before Discord refused its final board as locked
    (:class:`ThreadLockedForMe`)."""

    RESIGNED = enum.auto()
    ABORTED_GAME = enum.auto()
    """An admin aborted a one-set match (a game)."""
    ABORTED_MATCH = enum.auto()
    """An admin aborted a match of two sets."""


class ThreadLockedForMe(GameError):
    """A moderator locked the thread an interaction came from and I lack Manage Threads:
    Discord takes no message of mine there, not even an interaction's visible answer (only
    one its reader alone sees), so nothing can be played in it; ``held``: a game's there,
    whose clocks stand still until it is unlocked (bot/flow/locked_threads.py). ``played``: a
    move was played (the cache showed the thread open) before Discord refused its board, which
    the outbox owes (posted once the thread is unlocked); ``ended``: so was a set's end (a
    resignation, an abort), its final board owed alike."""

    def __init__(
        self, *, held: bool = False, played: str | None = None, ended: Ended | None = None
    ) -> None:
        if ended is Ended.RESIGNED and held:  # the match goes on with set 2, held
            message = _(
                "You resigned, but a moderator locked this thread: Discord takes nothing from "
                "me here, so I post the board once a moderator unlocks it, and the game's "
                "clocks here stand still until then."
            )
        elif ended is Ended.RESIGNED:
            message = _(
                "You resigned, but a moderator locked this thread: Discord takes nothing from "
                "me here, so I post the board once a moderator unlocks it."
            )
        elif ended is Ended.ABORTED_GAME:  # over: no clocks left to hold
            message = _(
                "You aborted the game, but a moderator locked this thread: Discord takes "
                "nothing from me here, so I post the board once a moderator unlocks it."
            )
        elif ended is Ended.ABORTED_MATCH:
            message = _(
                "You aborted the match, but a moderator locked this thread: Discord takes "
                "nothing from me here, so I post the board once a moderator unlocks it."
            )
        elif played is not None and held:
            message = _(
                "You played {move}, but a moderator locked this thread: Discord takes nothing "
                "from me here, so I post the board once a moderator unlocks it, and the game's "
                "clocks here stand still until then.",
                move=played,
            )
        elif played is not None:
            message = _(
                "You played {move}, but a moderator locked this thread: Discord takes nothing "
                "from me here, so I post the board once a moderator unlocks it.",
                move=played,
            )
        elif held:
            message = _(
                "A moderator locked this thread: Discord takes nothing from me here until one "
                "unlocks it, and the game's clocks here stand still until then."
            )
        else:
            message = _(
                "A moderator locked this thread: Discord takes nothing from me here until one "
                "unlocks it."
            )
        super().__init__(message)


def refused_as_locked(interaction: discord.Interaction[Any], error: BaseException) -> bool:
    """Whether ``error`` is Discord refusing (403) a message of mine in the thread
    ``interaction`` came from as locked: its own word, whatever the cache shows. The refused
    request must be about that thread or ``interaction`` itself (its answer, a followup):
    a refusal from another channel says nothing of this thread's lock."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    channel = interaction.channel
    return (
        isinstance(error, discord.Forbidden)
        and error.code in (THREAD_LOCKED, THREAD_ARCHIVED)
        and isinstance(channel, discord.Thread)
        and refused_about(
            error,
            channel_id=channel.id,
            application_id=interaction.application_id,
            interaction_id=interaction.id,
            token=interaction.token,
        )
    )


ANSWERS_PRIVATELY: Final[dict[str, Any]] = {"answers_privately": True}
"""The ``extras`` of a command whose every answer only its user sees (ephemeral): a thread
locked for me still takes those (:func:`locked_for_me`)."""


def locked_for_me(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` came from a thread a moderator locked, where I lack Manage
    Threads ("Users won't be able to create or update messages in locked threads", Discord's
    Threads topic), for a command that may answer for everyone there (not one marked
    :data:`ANSWERS_PRIVATELY`: an answer only its reader sees still goes through). Such a
    thread holds its game's clocks, archived or not (bot/flow/locked_threads.py). The lock is
    the cache's word, which may have missed an unlock: :func:`still_locked_for_me` asks
    Discord before refusing on it."""
    channel = interaction.channel
    command = interaction.command
    return (
        isinstance(channel, discord.Thread)
        and channel.locked
        and not interaction.app_permissions.manage_threads
        and not (command is not None and command.extras.get("answers_privately", False))
    )


LOCK_CHECK_WAITS = 1.0
"""The most seconds :func:`still_locked_for_me` waits for Discord to show a thread the cache
holds locked before it takes the cache's word: Discord wants an answer within 3."""


async def still_locked_for_me(interaction: discord.Interaction[Any]) -> bool:
    """:func:`locked_for_me`, on Discord's word: the cache's ``locked`` may be stale (an unlock
    missed), and an interaction does not keep the thread Discord sent with it (discord.py 2.7
    takes the cached thread), so the thread is fetched — one REST call, only when the cache
    would refuse. Shown unlocked, the cache takes Discord's word (as the event missed would
    have), the thread's hold ends (:func:`_open_on_discords_word`, whatever the interaction's
    answer) and the interaction goes on. When Discord cannot say in time, the cache's word
    stands. Shown locked, Discord's word stands a few seconds (``LocksSeen``), so a burst of
    presses there asks once."""
    if not locked_for_me(interaction):
        return False
    channel = interaction.channel
    assert isinstance(channel, discord.Thread)
    seen = _locks_seen(interaction)
    if seen is not None and seen.still_locked(channel.id):
        return True
    try:
        shown = await asyncio.wait_for(
            interaction.client.fetch_channel(channel.id), LOCK_CHECK_WAITS
        )
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not ask Discord whether thread %s is locked: %r", channel.id, error)
        return True
    if isinstance(shown, discord.Thread) and not shown.locked:
        _log.info("Thread %s the cache held locked is unlocked, as Discord shows it", channel.id)
        channel.locked = False
        if seen is not None:
            seen.forget(channel.id)
        _open_on_discords_word(interaction, channel)
        return False
    if seen is not None and isinstance(shown, discord.Thread):
        seen.locked(channel.id)
    return True


def _locks_seen(interaction: discord.Interaction[Any]) -> LocksSeen | None:
    """What Discord last showed of locks to ``interaction``'s bot (bot/client.py), or None
    for a client without it (this module does not import the bot)."""
    seen = getattr(interaction.client, "locks_seen", None)
    return seen if isinstance(seen, LocksSeen) else None


def _holds(interaction: discord.Interaction[Any]) -> Any:
    """The holds of ``interaction``'s bot (bot/holds.py ``Holds``), or None before its timers
    exist (a client without them: this module does not import the bot)."""
    return getattr(getattr(interaction.client, "timers", None), "holds", None)


def _open_on_discords_word(interaction: discord.Interaction[Any], thread: discord.Thread) -> None:
    """Discord showed ``thread``, which the cache held locked for me, unlocked: if it is held,
    its hold ends now (``Holds.answered_in``), however the interaction is then answered — one
    refused privately (out of turn) would otherwise leave it held, its player to move sitting
    out the clock in a thread open to them."""
    holds = _holds(interaction)
    if holds is None or not holds.thread_held(thread.id):
        return
    manages = interaction.app_permissions.manage_threads
    interaction.client.spawn(
        holds.answered_in(thread, manages, interaction.extras, shown_open=True),
        name=f"brandubh-shown-open-{thread.id}",
    )


REFUSAL_WAITS = 1.0
"""The most seconds a refusal from a thread locked for me waits for its hold to begin (to say
whether the clocks stand still) before it answers: Discord wants an answer within 3."""

REFUSAL_ANSWERED_BY = 2.0
"""The age (seconds since Discord created it) of an interaction not yet answered past which its
refusal from a thread locked for me no longer waits for the hold (:data:`REFUSAL_WAITS`): what
ran before it (a /move played, its answer refused late, the thread's lock fetched) may have
used most of Discord's 3 seconds, and the refusal itself needs the rest."""


def _refusal_waits(interaction: discord.Interaction[Any]) -> float:
    """How long the refusal of ``interaction`` may wait for its thread's hold to begin: at most
    :data:`REFUSAL_WAITS`, and, while it is not answered yet (its answer due within Discord's 3
    seconds), no later than the age :data:`REFUSAL_ANSWERED_BY`."""
    if interaction.response.is_done():  # deferred: its followup may come later
        return REFUSAL_WAITS
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    return min(REFUSAL_WAITS, max(0.0, REFUSAL_ANSWERED_BY - age))


async def locked_refusal(
    interaction: discord.Interaction[Any],
    *,
    on_discords_word: bool = False,
    played: str | None = None,
    ended: Ended | None = None,
    match_over: bool = False,
) -> ThreadLockedForMe:
    """The refusal of ``interaction`` from a thread locked for me (:func:`locked_for_me`, or
    ``on_discords_word``: Discord refused my message there as locked, :func:`refused_as_locked`,
    and the cache, which missed the lock, now shows it locked, as the event missed would have):
    if the thread has a game that is not held, its hold begins (the interaction is Discord's
    word, fresher than the cache the hold otherwise follows: ``Holds.refused_in``), and the
    refusal says its clocks stand still — and that ``played`` was played, or the set
    ``ended``, if it was. ``match_over``: that move or end ended the match, so no clock is
    left to stand still, though the thread is held (a hold begun before, the cache showing
    it open: a reminder refused, bot/timers.py ``_found_closed``)."""
    holds = _holds(interaction)
    channel_id = interaction.channel_id
    if holds is None or channel_id is None:
        return ThreadLockedForMe(played=played, ended=ended)
    channel = interaction.channel
    if not isinstance(channel, discord.Thread):
        return ThreadLockedForMe(played=played, ended=ended)
    if on_discords_word:
        channel.locked = True
    holds.tell(channel.parent_id, interaction.app_permissions.manage_threads, interaction.extras)
    begun = interaction.client.spawn(  # not cancelled if the wait gives up: it goes on
        holds.refused_in(channel_id, lambda: holds.closed(channel)),
        name=f"brandubh-refused-in-{channel_id}",
    )
    try:
        held = await asyncio.wait_for(asyncio.shield(begun), _refusal_waits(interaction))
    except TimeoutError:
        held = holds.thread_held(channel_id)
    return ThreadLockedForMe(held=bool(held) and not match_over, played=played, ended=ended)


async def _as_seen_here(
    interaction: discord.Interaction[Any], error: BaseException
) -> BaseException:
    """``error`` as it should read in ``interaction``'s server: a refusal to play in a channel
    games are not allowed in names none of the allowed channels Discord has deleted; Discord's
    refusal of a post (Forbidden) in a thread as locked is the locked refusal (its hold begins,
    on Discord's word: :func:`refused_as_locked`), else it names the permissions I lack where
    ``interaction`` is, when its permissions show which (:func:`_refused_for`)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ChannelNotAllowed):
        return error.without(deleted_channels(interaction, error.allowed_channel_ids))
    if isinstance(error, discord.Forbidden):
        if refused_as_locked(interaction, error):
            return await locked_refusal(interaction, on_discords_word=True)
        if locked_for_me(interaction):
            return await locked_refusal(interaction)
        return MissingChannelPermissions(_refused_for(interaction, error))
    return error


MISSING_ACCESS = 50001
"""Discord's code refusing a request in a channel the bot may not see (View Channel)."""


def _refused_for(interaction: discord.Interaction[Any], refused: discord.Forbidden) -> list[str]:
    """The permissions Discord's ``refused`` (a 403 where ``interaction`` is) is taken to be
    about: those of a game there (a thread's in a thread) and View Channel that my permissions
    there show missing; when they show none, View Channel for Missing Access, else all of a
    game's (it cannot tell which)."""
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = THREAD_PERMISSIONS if in_thread else CHANNEL_PERMISSIONS
    mine = interaction.app_permissions
    missing = [name for name in ("view_channel", *needed) if not getattr(mine, name)]
    if missing:
        return missing
    return ["view_channel"] if refused.code == MISSING_ACCESS else list(needed)


def deleted_channels(
    interaction: discord.Interaction[Any], channel_ids: frozenset[int]
) -> frozenset[int]:
    """The channels of ``channel_ids`` that ``interaction``'s server no longer has (deleted in
    Discord), as the guilds intent keeps the server's channels; none when the server is not
    known whole (not cached, or unavailable)."""
    guild = (
        None if interaction.guild_id is None else interaction.client.get_guild(interaction.guild_id)
    )
    if guild is None or guild.unavailable:
        return frozenset()
    return frozenset(cid for cid in channel_ids if guild.get_channel(cid) is None)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Answer ``interaction`` with the sentence for ``error`` (or an apology, after logging it).

    The answer is in the language of the person who used ``interaction``; the log is English.
    An interaction Discord refused as too old (the process was too busy to acknowledge it in 3
    seconds) is one WARNING line: answering it would be refused the same way, and a traceback
    and a doomed request per interaction are what an overloaded process can least afford.
    """
    if _expired(interaction, error):
        _log.warning(
            "Interaction %s of user %s was not acknowledged within Discord's 3 seconds "
            "(the process is too busy, or its work waited too long before it could defer)",
            interaction.id,
            interaction.user.id,
        )
        return
    lang = reader(interaction)
    sentence = sentence_for(await _as_seen_here(interaction, error), lang)
    storage = _storage_error(error)
    if storage is not None:
        # The details (file, SQLite's words) are for the operator, never for the player.
        level = (
            logging.WARNING if isinstance(storage, DatabaseBusy | IdOutOfRange) else logging.ERROR
        )
        _log.log(level, "Database trouble (user=%s): %s", interaction.user.id, storage)
    elif isinstance(error, _ODD_INPUT):
        _log.warning("Odd interaction from user %s: %s", interaction.user.id, sentence_for(error))
    if sentence is None:
        command = interaction.command.qualified_name if interaction.command else None
        custom_id = interaction.data.get("custom_id") if interaction.data else None
        _log.error(
            "Error in interaction (command=%s, component=%s, user=%s)",
            command,
            custom_id,
            interaction.user.id,
            exc_info=error,
        )
        sentence = lang.render(APOLOGY)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(sentence, ephemeral=True)
        else:
            await interaction.response.send_message(sentence, ephemeral=True)
    except discord.HTTPException:
        _log.warning("Could not tell user %s about an error: %s", interaction.user.id, sentence)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make :func:`report_error` the command tree's error handler."""

    async def on_error(
        interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    tree.error(on_error)
    tree.interaction_check = _interaction_check  # type: ignore[method-assign]


async def _interaction_check(interaction: discord.Interaction[Any]) -> bool:
    """:func:`_guild_only_check`, then refuse a command from a thread locked for me (nothing
    it did could be answered there: :func:`still_locked_for_me`) before it does anything."""
    if not await _guild_only_check(interaction):
        return False
    if (
        interaction.type is discord.InteractionType.application_command
        and await still_locked_for_me(interaction)
    ):
        await report_error(interaction, await locked_refusal(interaction))
        return False
    return True


async def _guild_only_check(interaction: discord.Interaction[Any]) -> bool:
    """Refuse a server-only command that arrived without a server (a DM, or a forged call).

    Discord hides such commands outside servers, but the bot does not rely on it.
    """
    command = interaction.command
    root = getattr(command, "root_parent", None) or command
    if interaction.guild_id is not None or not getattr(root, "guild_only", False):
        return True
    if interaction.type is discord.InteractionType.autocomplete:
        await interaction.response.autocomplete([])
        return False
    raise app_commands.NoPrivateMessage()
