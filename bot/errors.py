"""The one place where errors become replies.

Domain errors (the services' ``GameError`` sentences, the engine's ``IllegalMoveError``) and
Discord's check failures become ephemeral one-sentence replies, said in the language of the
person who used the interaction (its ``locale``); anything else is logged with its traceback and
the player gets a short apology, never a Python message. The command tree, every button and
every select route their errors here.
"""

from __future__ import annotations

import enum
import logging
import math
from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from bot.i18n import ENGLISH, Language, _, command
from bot.i18n.audience import reader
from bot.i18n.text import engine_sentence
from bot.i18n.typed import as_shown
from bot.locked_refusals import (
    locked_elsewhere,
    locked_for_me,
    locked_refusal,
    refused_as_locked,
)
from bot.my_permissions import my_permissions
from bot.names import escaped, shown_name
from bot.services.errors import ChannelNotAllowed, GameError
from bot.storage.errors import DatabaseBusy, IdOutOfRange, StorageError
from engine import IllegalMoveError
from engine.errors import echoed

_log = logging.getLogger(__name__)

APOLOGY = _("Sorry, something went wrong on my side. It has been logged; please try again.")

LONGEST_WAIT_IN_SECONDS = 90
"""The longest wait a refusal tells in seconds; a longer one is told in minutes (rounded up)."""

UNKNOWN_COMMAND = _("I do not know that command (any more): type / to see mine.")
MISSING_OPTIONS = _(
    "That command arrived without the options it needs: pick it again from the / menu."
)
UNKNOWN_BUTTON = _(
    "That button is not one of mine (any more): use the newest message, or {games_command}.",
    games_command=command("games"),
)

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


def allowed_channel_needs(channel: object) -> tuple[str, ...]:
    """What games need in ``channel``, which an admin allows: seeing it, and posting boards
    where its games are played — in a forum, its posts, threads (where Send Messages in Threads
    stands for Send Messages, which a forum calls Create Posts)."""
    forum = getattr(channel, "type", None) is discord.ChannelType.forum
    return ("view_channel", *(THREAD_PERMISSIONS if forum else CHANNEL_PERMISSIONS))


def missing_channel_permissions(
    permissions: discord.Permissions, *, in_thread: bool = False
) -> list[str]:
    """The game permissions missing from ``permissions`` (the bot's, in a channel or thread)."""
    needed = THREAD_PERMISSIONS if in_thread else CHANNEL_PERMISSIONS
    return [name for name in needed if not getattr(permissions, name)]


def permissions_missing(
    interaction: discord.Interaction[Any], channel_id: int, needed: tuple[str, ...]
) -> list[str]:
    """Which of ``needed`` I lack in ``channel_id`` (a channel or a thread), as
    :func:`my_permissions` reads them; none when they are not known (the channel or my member
    not cached: a post there will say in the log why it failed)."""
    mine = my_permissions(interaction.client, channel_id)
    if mine is None:
        return []
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


DAILY_POSTING = ("view_channel", "send_messages", "read_message_history")
"""What the daily post cannot be made without: the channel's latest messages are read first
(a day is never posted twice); without Attach Files its board is posted as text."""


def daily_trouble(
    interaction: discord.Interaction[Any], channel_id: int, lang: Language
) -> str | None:
    """Why the daily puzzle cannot be posted in ``channel_id`` (the permissions I lack there,
    as Discord last told me: an admin may have taken them since it was set), or None: each
    post there would be refused, and nothing else would tell an admin."""
    missing = permissions_missing(interaction, channel_id, DAILY_POSTING)
    if not missing:
        return None
    return ChannelRefused(channel_id, missing, ChannelUse.DAILY_PUZZLE).sentence(lang)


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


def posting_lacks(missing: list[str]) -> list[str]:
    """Those of ``missing`` (:func:`missing_here`) without which I cannot post there: all but
    Attach Files, whose lack only shows pictures as text
    (:func:`bot.flow.posts.pictures_or_text`)."""
    return [name for name in missing if name != "attach_files"]


def answers_only_note(missing: list[str], lang: Language, *, computer: bool = False) -> str:
    """The lines telling a player whose move was played where I lack ``missing`` what that
    means: without Send Messages (in Threads) only my answers get through there (Discord
    delivers those without it), not what I post on my own (reminders, results on time, the
    computer's reply); without Attach Files boards are shown as text (Discord refuses files
    in my answers too)."""
    posting = posting_lacks(missing)
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


def sentence_for(
    error: BaseException, lang: Language = ENGLISH, me: discord.abc.User | None = None
) -> str | None:
    """The reply a player should see for ``error``, in ``lang``; None if it is a bug to log.
    ``me`` is the bot's user: a name that passes for mine is not shown (:func:`shown_name`)."""
    if isinstance(error, app_commands.CommandInvokeError):
        return sentence_for(error.original, lang, me)
    if isinstance(error, app_commands.TransformerError) and error.__cause__ is not None:
        cause = sentence_for(error.__cause__, lang, me)
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
    if isinstance(error, discord.RateLimited):  # a channel's long 429 (bot/channel_waits.py)
        seconds = max(1, math.ceil(error.retry_after))
        if seconds > LONGEST_WAIT_IN_SECONDS:
            return lang.n_(
                "Discord asks me to wait before posting in that channel: try again in {count} "
                "minute.",
                "Discord asks me to wait before posting in that channel: try again in {count} "
                "minutes.",
                math.ceil(seconds / 60),
            )
        return lang.n_(
            "Discord asks me to wait before posting in that channel: try again in {count} second.",
            "Discord asks me to wait before posting in that channel: try again in {count} seconds.",
            seconds,
        )
    if isinstance(error, app_commands.TransformerError):
        value = error.value
        if isinstance(value, discord.abc.User):  # a member option given someone who left
            return lang._(
                "{player} is not a member of this server.",
                player=f"**{escaped(shown_name(value, me))}**",
            )
        if isinstance(value, str):
            shown = as_shown(echoed(value))
            return lang._("I could not read {value} for that option.", value=f"'{shown}'")
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


REACHED = "brandubh.reached"
"""The key in ``interaction.extras`` of when the interaction reached me (:func:`reached`)."""


def reached(interaction: discord.Interaction[Any]) -> None:
    """Note that ``interaction`` reaches me now: if its answer comes too late, the log can say
    whether it came late (a gateway RESUME replays the interactions it missed) or my work on it
    was slow."""
    interaction.extras.setdefault(REACHED, discord.utils.utcnow())


def _log_expired(interaction: discord.Interaction[Any]) -> None:
    """One WARNING line for ``interaction``, whose answer Discord refused as too late, saying
    what is known: how long after it was made it reached me, and its answer was refused."""
    made = interaction.created_at
    refused_after = (discord.utils.utcnow() - made).total_seconds()
    came = interaction.extras.get(REACHED)
    if isinstance(came, datetime):
        _log.warning(
            "Interaction %s of user %s was not acknowledged within Discord's 3 seconds: it "
            "reached me %.1f s after it was made; its answer was refused %.1f s after",
            interaction.id,
            interaction.user.id,
            (came - made).total_seconds(),
            refused_after,
        )
    else:
        _log.warning(
            "Interaction %s of user %s was not acknowledged within Discord's 3 seconds: its "
            "answer was refused %.1f s after it was made",
            interaction.id,
            interaction.user.id,
            refused_after,
        )


def expired(interaction: discord.Interaction[Any], error: BaseException) -> bool:
    """Discord refused ``interaction``'s first answer as too late: nothing can answer it now."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return (
        isinstance(error, discord.NotFound)
        and error.code == UNKNOWN_INTERACTION
        and not interaction.response.is_done()
    )


async def _as_seen_here(
    interaction: discord.Interaction[Any], error: BaseException
) -> BaseException:
    """``error`` as it should read in ``interaction``'s server: a refusal to play in a channel
    games are not allowed in names none of the allowed channels Discord has deleted; Discord's
    refusal of a post (Forbidden) in a thread as locked is the locked refusal (its hold begins,
    on Discord's word: :func:`refused_as_locked`), or, in another thread than
    ``interaction``'s, names that thread (:func:`locked_elsewhere`); else it names the
    permissions I lack where ``interaction`` is, when its permissions show which
    (:func:`_refused_for`)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ChannelNotAllowed):
        return error.without(deleted_channels(interaction, error.allowed_channel_ids))
    if isinstance(error, discord.Forbidden):
        if refused_as_locked(interaction, error):
            return await locked_refusal(interaction, on_discords_word=True)
        if locked_for_me(interaction):
            return await locked_refusal(interaction)
        elsewhere = locked_elsewhere(interaction, error)
        if elsewhere is not None:
            return elsewhere
        return MissingChannelPermissions(_refused_for(interaction, error))
    return error


MISSING_ACCESS = 50001
"""Discord's code refusing a request in a channel the bot may not see (View Channel)."""


def refused_permissions(
    interaction: discord.Interaction[Any], refused: discord.Forbidden
) -> list[str] | None:
    """The permissions I lack where ``interaction`` is, as its refusal of Discord's
    ``refused`` names them (:func:`_as_seen_here`); None when that refusal is a locked
    thread's instead (this one's, or another's: :func:`locked_elsewhere`)."""
    if (
        refused_as_locked(interaction, refused)
        or locked_for_me(interaction)
        or locked_elsewhere(interaction, refused) is not None
    ):
        return None
    return _refused_for(interaction, refused)


def _refused_for(interaction: discord.Interaction[Any], refused: discord.Forbidden) -> list[str]:
    """The permissions Discord's ``refused`` (a 403 where ``interaction`` is) is taken to be
    about: those of a game there (a thread's in a thread) and View Channel that my permissions
    there show missing — as the interaction brought them, else as Discord last told me (an
    admin may have taken one away while a slow command worked: /analyse); when neither shows
    any, View Channel for Missing Access, else all of a game's (it cannot tell which)."""
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = THREAD_PERMISSIONS if in_thread else CHANNEL_PERMISSIONS
    now = (
        None
        if interaction.channel_id is None
        else my_permissions(interaction.client, interaction.channel_id)
    )
    for mine in (interaction.app_permissions, now):
        if mine is None:
            continue
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
    An interaction Discord refused as too old (not acknowledged within 3 seconds of its making:
    it reached me late, replayed by a gateway RESUME, or the process was slow) is one WARNING
    line saying which (:func:`_log_expired`): answering it would be refused the same way, and a
    traceback and a doomed request per interaction are what an overloaded process can least
    afford.
    """
    if expired(interaction, error):
        _log_expired(interaction)
        return
    lang = reader(interaction)
    seen = await _as_seen_here(interaction, error)
    sentence = sentence_for(seen, lang, interaction.client.user)
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
    it did could be answered there: :func:`bot.locked_refusals.still_locked_for_me`, asked
    in time: ``BrandubhBot.locked_for_me``) before it does anything."""
    if not await _guild_only_check(interaction):
        return False
    # A player shut out of this channel can play after all: their clock runs from here.
    await interaction.client.came(interaction)
    if (
        interaction.type is discord.InteractionType.application_command
        and await interaction.client.locked_for_me(interaction)
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
