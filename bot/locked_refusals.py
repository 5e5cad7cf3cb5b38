"""The refusals from a thread a moderator locked where I lack Manage Threads
(bot/flow/locked_threads.py tells the story): whether an interaction comes from one, on the
cache's word or Discord's (:func:`locked_for_me`, :func:`still_locked_for_me`,
:func:`refused_as_locked`), and the refusal that says so, beginning the thread's hold
(:func:`locked_refusal`). Below the flow layer, beside the error handler, which answers with
them."""

from __future__ import annotations

import asyncio
import enum
import logging
from typing import Any, Final

import discord
from discord import app_commands

from bot.i18n import _
from bot.services.errors import GameError
from bot.thread_locks import (
    THREAD_ARCHIVED,
    THREAD_LOCKED,
    LocksSeen,
    refused_about,
    refused_for_lock,
    refused_in_channel,
)
from bot.unreachable import UNREACHABLE

_log = logging.getLogger(__name__)


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
    resignation, an abort), its final board owed alike; ``taken_back``: so was a takeback (an
    accepted request, or one against the computer), the board after it owed alike;
    ``declined``: so was the decline of a takeback request (nothing is owed: the game goes on
    as it was); ``lapsed``: the request answered had lapsed, stored so as the answer came (its
    message, owed, says so once the thread is unlocked)."""

    def __init__(
        self,
        *,
        held: bool = False,
        played: str | None = None,
        ended: Ended | None = None,
        taken_back: bool = False,
        declined: bool = False,
        lapsed: bool = False,
    ) -> None:
        if lapsed and held:
            message = _(
                "That takeback request lapsed, but a moderator locked this thread: Discord "
                "takes nothing from me here until one unlocks it, and the game's clocks here "
                "stand still until then."
            )
        elif lapsed:
            message = _(
                "That takeback request lapsed, but a moderator locked this thread: Discord "
                "takes nothing from me here until one unlocks it."
            )
        elif declined and held:
            message = _(
                "You declined the takeback, but a moderator locked this thread: Discord takes "
                "nothing from me here until one unlocks it, and the game's clocks here stand "
                "still until then."
            )
        elif declined:
            message = _(
                "You declined the takeback, but a moderator locked this thread: Discord takes "
                "nothing from me here until one unlocks it."
            )
        elif taken_back and held:
            message = _(
                "The takeback is done, but a moderator locked this thread: Discord takes "
                "nothing from me here, so I post the board once a moderator unlocks it, and "
                "the game's clocks here stand still until then."
            )
        elif taken_back:
            message = _(
                "The takeback is done, but a moderator locked this thread: Discord takes "
                "nothing from me here, so I post the board once a moderator unlocks it."
            )
        elif ended is Ended.RESIGNED and held:  # the match goes on with set 2, held
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
        refused_for_lock(error)
        and isinstance(channel, discord.Thread)
        and refused_about(
            error,
            channel_id=channel.id,
            application_id=interaction.application_id,
            interaction_id=interaction.id,
            token=interaction.token,
        )
    )


class LockedElsewhere(GameError):
    """Discord refused a post of mine in a thread closed to me, and it is not the thread the
    interaction came from (a press of Accept in a channel whose game was to be played in the
    challenge message's thread, which a moderator locked): the sentence names that thread, not
    the permissions of the interaction's channel, and says what Discord said of it — locked
    (:data:`THREAD_LOCKED`), or archived (:data:`THREAD_ARCHIVED`: a moderator's lock is
    likely, as a post would open an archived thread otherwise, but Discord does not say so)."""

    def __init__(self, thread_id: int, code: int = THREAD_LOCKED) -> None:
        self.thread_id = thread_id
        thread = f"<#{thread_id}>"
        if code == THREAD_ARCHIVED:
            message = _(
                "Discord says {thread} is archived: it takes nothing from me there until the "
                "thread is opened again.",
                thread=thread,
            )
        else:
            message = _(
                "A moderator locked {thread}: Discord takes nothing from me there until one "
                "unlocks it.",
                thread=thread,
            )
        super().__init__(message)


def locked_elsewhere(
    interaction: discord.Interaction[Any], error: BaseException
) -> LockedElsewhere | None:
    """The refusal for ``error`` when it is Discord refusing (403) a post of mine in another
    thread than the one ``interaction`` came from as locked or archived
    (:func:`refused_as_locked` tells that thread's own lock), else None."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if not refused_for_lock(error):
        return None
    thread_id = refused_in_channel(error)
    if thread_id is None or thread_id == interaction.channel_id:
        return None
    return LockedElsewhere(thread_id, error.code)


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
    taken_back: bool = False,
    declined: bool = False,
    lapsed: bool = False,
    match_over: bool = False,
) -> ThreadLockedForMe:
    """The refusal of ``interaction`` from a thread locked for me (:func:`locked_for_me`, or
    ``on_discords_word``: Discord refused my message there as locked, :func:`refused_as_locked`,
    and the cache, which missed the lock, now shows it locked, as the event missed would have):
    if the thread has a game that is not held, its hold begins (the interaction is Discord's
    word, fresher than the cache the hold otherwise follows: ``Holds.refused_in``), and the
    refusal says its clocks stand still — and that ``played`` was played, the set ``ended``,
    a move was ``taken_back``, a takeback ``declined``, or the request answered ``lapsed``, if
    it was. ``match_over``: that move
    or end ended the match, so no clock is left to stand still, though the thread is held (a
    hold begun before, the cache showing it open: a reminder refused, bot/timers.py
    ``_found_closed``)."""
    holds = _holds(interaction)
    channel_id = interaction.channel_id
    if holds is None or channel_id is None:
        return ThreadLockedForMe(
            played=played, ended=ended, taken_back=taken_back, declined=declined, lapsed=lapsed
        )
    channel = interaction.channel
    if not isinstance(channel, discord.Thread):
        return ThreadLockedForMe(
            played=played, ended=ended, taken_back=taken_back, declined=declined, lapsed=lapsed
        )
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
    return ThreadLockedForMe(
        held=bool(held) and not match_over,
        played=played,
        ended=ended,
        taken_back=taken_back,
        declined=declined,
        lapsed=lapsed,
    )
