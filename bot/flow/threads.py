"""A thread per game: whether one can be opened, what it is called, and the line that links it.

When a challenge is accepted the bot starts a public thread from the challenge message and the
game is played there; the challenge message becomes one line in the parent channel that links
the thread and, once the match is over, shows its result. A match against the computer is
started the same way from the answer to /challenge (bot/flow/computer_match.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal, TypeVar

import discord

from bot.alike_names import NamesToldApart
from bot.i18n import ENGLISH, Language, _
from bot.i18n.directions import without_direction_controls
from bot.my_permissions import my_permissions
from bot.names import mention, player_name
from bot.services.domain import Challenge, GuildSettings, MatchEnd
from bot.services.errors import GameError
from bot.thread_locks import THREAD_ARCHIVED
from bot.unreachable import UNREACHABLE
from bot.views.common import within_deadline
from engine import MatchReason, get_ruleset

_log = logging.getLogger(__name__)

_Edited = TypeVar("_Edited", discord.Message, discord.InteractionMessage)

THREAD_NAME_LIMIT = 100
"""Discord's limit on a channel's (and so a thread's) name."""

THREAD_ARCHIVE_MINUTES: Final[Literal[10080]] = 10080
"""Discord archives a quiet thread after this long (a week); the bot archives it at match end."""


async def edit_reopening(
    client: discord.Client, message: discord.PartialMessage | discord.Message, **fields: Any
) -> discord.Message:
    """Edit the bot's ``message`` with ``fields``. Discord refuses any edit in an archived
    thread (50083), and archives a game's thread when nobody wrote in it for a while although
    the game goes on: then the thread is opened again (the bot started it, wrote in it, or
    joined it: :func:`join_to_reopen`; and "Editing a thread to set archived to false only
    requires the current user has already been added to the thread", Discord's Threads
    topic) and the edit made once more. A thread a moderator locked is left closed: that is
    their hold on the game (bot/holds.py), and the refusal is raised as it came. Files in
    ``attachments`` must be made from bytes (the bot's boards): they are read again for the
    second edit. Raises discord.HTTPException."""
    return await _reopening(client, message.channel.id, message.edit, fields)


async def edit_answer_reopening(
    interaction: discord.Interaction[Any], **fields: Any
) -> discord.InteractionMessage:
    """:func:`edit_reopening` for ``interaction``'s answer, edited with its token: in a thread
    archived since it was given (a finished match's thread, archived ten minutes after the
    end, while a slow answer worked), the thread is opened again and the edit made once more.
    Raises discord.HTTPException."""
    return await _reopening(
        interaction.client, interaction.channel_id, interaction.edit_original_response, fields
    )


async def _reopening(
    client: discord.Client,
    channel_id: int | None,
    edit: Callable[..., Awaitable[_Edited]],
    fields: dict[str, Any],
) -> _Edited:
    """``edit(**fields)`` of a message in ``channel_id``, made once more after opening the
    thread again if Discord refused it as archived (:func:`edit_reopening`)."""
    try:
        return await edit(**fields)
    except discord.HTTPException as error:
        if (
            error.code != THREAD_ARCHIVED
            or channel_id is None
            or not await _reopen(client, channel_id)
        ):
            raise
    for file in fields.get("attachments") or ():
        if isinstance(file, discord.File):
            file.reset()  # read by the refused edit
    return await edit(**fields)


async def _reopen(client: discord.Client, thread_id: int) -> bool:
    """Unarchive thread ``thread_id`` if Discord shows it archived and not locked; whether it
    was. Raises discord.HTTPException."""
    thread = await client.fetch_channel(thread_id)
    if not isinstance(thread, discord.Thread) or not thread.archived or thread.locked:
        return False
    _log.info("Opening thread %s again: Discord archived it while its game goes on", thread_id)
    await thread.edit(archived=False)
    return True


async def join_to_reopen(client: discord.Client, channel: object) -> None:
    """Join ``channel`` if it is a thread I neither started nor joined, where I just left a
    message to edit later (a challenge, edited when it expires; a board against the computer,
    edited when time is given back): Discord archives a quiet thread, and "Editing a thread to
    set archived to false only requires the current user has already been added to the
    thread" (Discord's Threads topic), so in a thread I am not in :func:`edit_reopening` could
    not open it again. Joining needs the thread active (as it is when a command comes from
    it); what stops it is logged."""
    if not isinstance(channel, discord.Thread) or channel.me is not None:
        return
    if client.user is not None and channel.owner_id == client.user.id:
        return
    try:
        await channel.join()
    except (discord.HTTPException, *UNREACHABLE) as error:  # then its edits may stay refused
        _log.info("Could not join thread %s: %s", channel.id, error)


async def close_unused_thread(thread: discord.Thread, reason: str | None) -> None:
    """A thread opened for a match that then did not start (the challenge was withdrawn or
    expired while Discord made the thread): say why in it, if known, and archive it, so no
    empty thread stays in the channel's list."""
    try:
        if reason:
            await thread.send(reason, allowed_mentions=discord.AllowedMentions.none())
        await thread.edit(archived=True)
    except (discord.HTTPException, *UNREACHABLE) as error:  # the refusal told stands
        _log.warning("Could not close the unused thread %s: %r", thread.id, error)


THREADLESS = (discord.ChannelType.voice, discord.ChannelType.stage_voice)
"""Channels whose text chat takes commands and messages but no threads (Discord refuses one
started from a message there: 50024, "Cannot execute action on this channel type")."""


def threadless(channel: object) -> bool:
    """Whether ``channel`` is a voice or stage channel's text chat, where no thread starts."""
    return getattr(channel, "type", None) in THREADLESS


def no_threads_from(channel: object) -> bool:
    """Whether no game's thread can start from ``channel``: it is a thread itself, or a voice
    or stage channel's chat (:func:`threadless`)."""
    return isinstance(channel, discord.Thread) or threadless(channel)


def played_where_asked(guild: discord.Guild | None, channel_id: int) -> bool:
    """Whether games in ``channel_id`` of ``guild`` are played where they are asked, whatever
    the settings and my permissions: a voice or stage channel's chat (:func:`threadless`), or a
    forum, whose posts are threads already (and which takes no message itself)."""
    channel = None if guild is None else guild.get_channel(channel_id)
    return threadless(channel) or isinstance(channel, discord.ForumChannel)


async def require_thread_member(interaction: discord.Interaction[Any]) -> None:
    """Refuse a game started in a private thread I am not a member of (nor a moderator of):
    Discord takes my answers there, but nothing I post on my own — a reminder, a set's end on
    time, the computer's reply when its edit is refused — so its players would wait for posts
    that never come, and nobody would be told why. Where discord.py does not know that I am in
    it (a thread opened again after Discord archived it comes back without my membership),
    Discord is asked (:func:`_member_as_discord_says`) rather than the game refused untruly."""
    channel = interaction.channel
    if (
        not isinstance(channel, discord.Thread)
        or channel.type is not discord.ChannelType.private_thread
        or channel.me is not None
        or interaction.app_permissions.manage_threads
    ):
        return
    asked = _member_as_discord_says(interaction.client, channel.id)
    if await within_deadline(interaction, asked, ephemeral=True):
        return
    raise GameError(
        _(
            "I am not a member of this private thread, so nothing I post on my own "
            "(reminders, results on time) would reach it: add me to the thread, or start "
            "the game in another channel."
        )
    )


async def _member_as_discord_says(client: discord.Client, thread_id: int) -> bool:
    """Whether Discord shows me a member of private thread ``thread_id`` (its thread, as GET
    /channels/{id} gives it, carries my thread member; one I am not in is hidden from me: 403).
    When Discord cannot say, True: the game is not refused on a guess."""
    try:
        thread = await client.fetch_channel(thread_id)
    except discord.Forbidden:
        return False
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not ask Discord whether I am in thread %s: %s", thread_id, error)
        return True
    return not isinstance(thread, discord.Thread) or thread.me is not None


def may_open_threads(interaction: discord.Interaction[Any]) -> bool:
    """Whether a game accepted from where ``interaction`` is could have a thread of its own,
    whatever the server's settings: a thread has none, nor a voice or stage channel's chat,
    and without Create Public Threads and Send Messages in Threads I can start none."""
    if no_threads_from(interaction.channel):
        return False
    return _may_start_threads(interaction.app_permissions)


def member_threads_here(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member could start a thread where ``interaction`` is and play in it: not
    already in a thread nor in a voice or stage channel's chat, the member may create public
    threads, and I may post in threads."""
    if no_threads_from(interaction.channel):
        return False
    return (
        interaction.permissions.create_public_threads
        and interaction.app_permissions.send_messages_in_threads
    )


def member_threads_in(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """As :func:`member_threads_here`, for ``channel_id`` in the interaction's server (a
    rematch asked in a match's thread goes to its channel), from the cached permissions there
    of the member and of mine; True when they are unknown."""
    if channel_id == interaction.channel_id:
        return member_threads_here(interaction)
    guild = interaction.guild
    channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
    if no_threads_from(channel):
        return False
    member = interaction.user
    if guild is None or channel is None or not isinstance(member, discord.Member):
        return True
    mine = my_permissions(interaction.client, channel_id)
    return channel.permissions_for(member).create_public_threads and (
        mine is None or mine.send_messages_in_threads
    )


def may_open_threads_in(client: discord.Client, channel_id: int) -> bool:
    """Whether a game accepted in ``channel_id`` could have a thread of its own (as
    :func:`may_open_threads`, from the bot's cached permissions there: :func:`my_permissions`;
    True when unknown)."""
    if no_threads_from(client.get_channel(channel_id)):
        return False
    mine = my_permissions(client, channel_id)
    return mine is None or _may_start_threads(mine)


def _may_start_threads(permissions: discord.Permissions) -> bool:
    """Whether ``permissions`` (the bot's in a channel) let it start a game's thread there."""
    return permissions.create_public_threads and permissions.send_messages_in_threads


def thread_refusal(
    interaction: discord.Interaction[Any], settings: GuildSettings, lang: Language = ENGLISH
) -> str | None:
    """Why the game cannot get a thread of its own here (one sentence), or None if it can."""
    if not settings.threads:
        return lang._("Threads are off on this server, so the game is played in this channel.")
    if isinstance(interaction.channel, discord.Thread):
        return lang._("This channel is a thread already, so the game is played here.")
    if threadless(interaction.channel):
        return lang._(
            "A voice or stage channel's chat cannot have threads, so the game is played here."
        )
    if not may_open_threads(interaction):
        return lang._(
            "I may not create threads here (Create Public Threads and Send Messages in Threads), "
            "so the game is played in this channel."
        )
    return None


def thread_not_opened(lang: Language = ENGLISH) -> str:
    """Why the game is played where it was started when Discord refused its thread (one
    sentence): the reasons known before trying are :func:`thread_refusal`'s."""
    return lang._("Discord would not let me open a thread, so the game is played here.")


def rematch_reason(
    interaction: discord.Interaction[Any], settings: GuildSettings, lang: Language = ENGLISH
) -> str:
    """Why a rematch against the computer, played where the last match was, has no thread of
    its own (one sentence): :func:`thread_refusal`'s reason where there is one now, else that
    the last match was played here (Discord refused its thread, say)."""
    return thread_refusal(interaction, settings, lang) or lang._(
        "The last match was played here, so the rematch is too."
    )


def plain_name(name: str) -> str:
    """A display name as plain text for a thread's name (no line breaks, and no direction
    controls that would turn the rest of the thread's name around)."""
    return " ".join(without_direction_controls(name).split())


def thread_name(
    challenger: str,
    opponent: str,
    ruleset: str,
    lang: Language = ENGLISH,
    usernames: tuple[str | None, str | None] = (None, None),
) -> str:
    """``Aoife vs Brian · Brandubh`` (``Aoife gegen Brian`` in German), shortened to
    Discord's 100 characters. ``usernames``, given for two names that read alike, follow
    them ("alex (@alex_w) vs alex (@alex_k)"), kept whole as the names are shortened."""
    title = lang.gettext(get_ruleset(ruleset).title)
    suffix = f" · {title}"
    room = THREAD_NAME_LIMIT - len(suffix) - len(_versus("", "", lang))
    names = (plain_name(challenger), plain_name(opponent))
    first, second = (_tagged(name, tag, room) for name, tag in zip(names, usernames, strict=True))
    if len(first) + len(second) > room:
        half = room // 2
        first = _tagged(names[0], usernames[0], max(half, room - len(second)))
        second = _tagged(names[1], usernames[1], room - len(first))
    return _versus(first, second, lang) + suffix


def _tagged(name: str, username: str | None, limit: int) -> str:
    """``name`` followed by ``username`` ("alex (@alex_w)") in ``limit`` characters: the
    name shortened first; where not even one letter of it leaves room, the username alone
    ("@alex_w")."""
    if username is None:
        return _shorten(name, limit)
    tag = f" (@{username})"
    if len(tag) + 2 <= limit:
        return _shorten(name, limit - len(tag)) + tag
    return _shorten(f"@{username}", limit)


def _versus(first: str, second: str, lang: Language) -> str:
    # Translators: the two players of a game, in its thread's name and its challenge's line
    # ("alice vs bob"): keep it short, a thread's name has at most 100 characters.
    return lang._("{first} vs {second}", first=first, second=second)


def _shorten(text: str, limit: int) -> str:
    """``text`` in ``limit`` characters, cut with an ellipsis after its last letter kept
    ("Ann Mary…", not "Ann Mary …")."""
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def match_line(
    challenge: Challenge, names: Mapping[int, str], thread_id: int, lang: Language = ENGLISH
) -> str:
    """The challenge message once accepted: who plays what, and where."""
    assert challenge.opponent_id is not None, "an accepted challenge has its opponent"
    pairing = _pairing(
        challenge.challenger_id, challenge.opponent_id, challenge.ruleset, names, lang
    )
    return lang._(
        "{pairing} — the game is on in {thread}.", pairing=pairing, thread=f"<#{thread_id}>"
    )


def accepted_line(
    opponent_name: str | None,
    attacker_id: int,
    defender_id: int,
    lang: Language = ENGLISH,
    names: NamesToldApart | None = None,
) -> str:
    """The challenge message once accepted where the match has no thread of its own: who
    accepted (``opponent_name``), who attacks and who defends (mentions, which an edit does
    not ping, with their usernames where ``names`` tells them apart by them)."""
    return lang._(
        "{player} accepted: {attacker} attacks, {defender} defends. Good game!",
        player=player_name(opponent_name, lang),
        attacker=mention(attacker_id, names),
        defender=mention(defender_id, names),
    )


def computer_line(
    human_id: int,
    computer_id: int,
    ruleset: str,
    level: int,
    names: Mapping[int, str],
    thread_id: int,
    lang: Language = ENGLISH,
) -> str:
    """The answer to a challenge of the computer once its thread is open (its level beside
    its name: "**Alice** vs **Brandubh (level 4)** · Brandubh (World Tafl Federation)")."""
    computer = lang._(
        "{name} (level {level})", name=names.get(computer_id, lang._("a player")), level=level
    )
    pairing = _pairing(human_id, computer_id, ruleset, {**names, computer_id: computer}, lang)
    return lang._(
        "{pairing} — the game is on in {thread}.", pairing=pairing, thread=f"<#{thread_id}>"
    )


def finished_line(
    end: MatchEnd,
    ruleset: str,
    names: Mapping[int, str],
    thread_id: int,
    lang: Language = ENGLISH,
) -> str:
    """The challenge line once the match is over: the result, and the thread to look back at."""
    first, second = end.player_ids
    pairing = _pairing(first, second, ruleset, names, lang)
    thread = f"<#{thread_id}>"
    if end.aborted or end.result is None:
        return lang._("{pairing} — the match was aborted. {thread}", pairing=pairing, thread=thread)
    wins = end.result.wins
    if end.winner_id is None:
        score = f"{wins.get(first, 0)}–{wins.get(second, 0)}"
        return lang._(
            "{pairing} — the match was drawn ({score}). {thread}",
            pairing=pairing,
            score=score,
            thread=thread,
        )
    loser = second if end.winner_id == first else first
    score = f"{wins.get(end.winner_id, 0)}–{wins.get(loser, 0)}"
    winner = player_name(names.get(end.winner_id), lang)
    if len(end.sets) == 1:
        return lang._(
            "{pairing} — **{player}** won. {thread}", pairing=pairing, player=winner, thread=thread
        )
    if (gone := end.forfeited_by) is not None:
        return lang._(
            "{pairing} — **{player}** won the match {score} by forfeit: **{other}** left the "
            "server. {thread}",
            pairing=pairing,
            player=winner,
            score=score,
            other=player_name(names.get(gone), lang),
            thread=thread,
        )
    if end.reason is MatchReason.FEWER_MOVES:
        return lang._(
            "{pairing} — **{player}** won the match {score} on the tiebreak: their set was won "
            "in fewer moves. {thread}",
            pairing=pairing,
            player=winner,
            score=score,
            thread=thread,
        )
    return lang._(
        "{pairing} — **{player}** won the match {score}. {thread}",
        pairing=pairing,
        player=winner,
        score=score,
        thread=thread,
    )


def _pairing(
    first: int, second: int, ruleset: str, names: Mapping[int, str], lang: Language
) -> str:
    title = lang.gettext(get_ruleset(ruleset).title)
    one = player_name(names.get(first), lang)
    two = player_name(names.get(second), lang)
    return _versus(f"**{one}**", f"**{two}**", lang) + f" · {title}"
