"""Whether a thread is closed to its players by a moderator's lock (bot/flow/locked_threads.py
tells the story): pure predicates on discord.py's objects, which the error handler, the holds and
the flow all read, below the flow layer; and Discord's last word that a thread is locked
(:class:`LocksSeen`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TypeGuard
from urllib.parse import unquote, urlsplit

import discord

from bot.my_permissions import my_permissions

THREAD_LOCKED = 160005
"""Discord's code refusing a message in a thread a moderator locked ("Thread is locked")."""

THREAD_ARCHIVED = 50083
"""Discord's code "Operation is not allowed in an archived thread" ("Tried to perform an
operation on an archived thread, such as editing a message"): also what it answers an
interaction's visible answer in a locked thread (discord/discord-api-docs#5517, #6884)."""


def refused_for_lock(error: BaseException) -> TypeGuard[discord.Forbidden]:
    """Whether ``error`` is Discord refusing (403) a message of mine as in a locked thread:
    :data:`THREAD_LOCKED`, or :data:`THREAD_ARCHIVED` for one locked and archived (which a post
    or edit would otherwise open). Where it was refused is the caller's to judge."""
    return isinstance(error, discord.Forbidden) and error.code in (THREAD_LOCKED, THREAD_ARCHIVED)


def closed_to_players(*, locked: bool, archived: bool, i_manage_threads: bool) -> bool:
    """Whether a thread so locked and archived, where I have Manage Threads or not, holds its
    game's clocks: locked and archived, or locked where I lack Manage Threads."""
    return locked and (archived or not i_manage_threads)


def manages_threads(
    client: discord.Client, channel_id: int, told: Mapping[int, bool] | None = None
) -> bool:
    """Whether I have Manage Threads in channel ``channel_id`` (a thread's parent: a thread
    follows its parent's permissions): as an interaction from one of its threads last ``told``
    (Discord's word, which the cache may lag behind: bot/holds.py ``Holds.told``), else as the
    cache shows (:func:`my_permissions`). False when neither can say: a locked thread then
    holds its game's clocks, rather than its player losing on time where nobody may be able to
    play."""
    if told is not None and channel_id in told:
        return told[channel_id]
    mine = my_permissions(client, channel_id)
    return mine is not None and mine.manage_threads


def thread_closed_to_players(
    client: discord.Client, thread: discord.Thread, told: Mapping[int, bool] | None = None
) -> bool:
    """Whether ``thread`` (cached or fetched) holds its game's clocks
    (:func:`closed_to_players`; my Manage Threads as :func:`manages_threads` says)."""
    return closed_to_players(
        locked=thread.locked,
        archived=thread.archived,
        i_manage_threads=manages_threads(client, thread.parent_id, told),
    )


def refused_about(
    refused: discord.HTTPException,
    *,
    channel_id: int,
    application_id: int,
    interaction_id: int,
    token: str,
) -> bool:
    """Whether the request Discord ``refused`` was about channel ``channel_id`` (a message
    there: ``/channels/{channel_id}/…``) or the interaction ``interaction_id`` itself (its
    answer: ``/interactions/{interaction_id}/{token}/callback``; a followup or an edit of it:
    ``/webhooks/{application_id}/{token}…``), as the refused response's URL names it. A
    refusal of a request elsewhere (another channel) is not about them; nor is one whose URL
    is not known."""
    path = unquote(urlsplit(str(getattr(refused.response, "url", ""))).path)
    segments = path.split("/")
    resources = [i for i, part in enumerate(segments) if part in _RESOURCES]
    if not resources:
        return False
    first = resources[0]
    named = segments[first + 1 :]
    match segments[first]:
        case "channels":
            return named[:1] == [str(channel_id)]
        case "webhooks":
            return named[:2] == [str(application_id), token]
        case _:  # "interactions"
            return named[:3] == [str(interaction_id), token, "callback"]


def refused_in_channel(refused: discord.HTTPException) -> int | None:
    """The channel the request Discord ``refused`` was about (a message there, or the channel
    itself: ``/channels/{channel_id}/…``), as the refused response's URL names it; None for a
    request not about a channel (an interaction's answer, a followup) or an unknown URL."""
    path = unquote(urlsplit(str(getattr(refused.response, "url", ""))).path)
    segments = path.split("/")
    resources = [i for i, part in enumerate(segments) if part in _RESOURCES]
    if not resources or segments[resources[0]] != "channels":
        return None
    named = segments[resources[0] + 1 : resources[0] + 2]
    return int(named[0]) if named and named[0].isdigit() else None


_RESOURCES = ("channels", "webhooks", "interactions")
"""The first segment of Discord's API paths that :func:`refused_about` tells apart (after
``/api/v10``)."""


LOCK_SEEN_FOR = 5.0
"""The seconds Discord's word that a thread is locked stands (:class:`LocksSeen`): a burst of
commands and presses in a thread the cache holds locked costs one request, and an unlock whose
event was missed is seen at most this late."""


class LocksSeen:
    """The threads Discord last showed locked when asked (bot/locked_refusals.py
    ``still_locked_for_me``), each for :data:`LOCK_SEEN_FOR` seconds of ``monotonic`` (the
    bot's, which tests move forward): within them, Discord is not asked again. An unlock seen,
    or any change of the thread heard of (its THREAD_UPDATE), forgets it."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        """The clock (seconds) that ages Discord's word."""
        self._seen: dict[int, float] = {}
        """Thread id → when Discord showed it locked (``monotonic``)."""

    def locked(self, thread_id: int) -> None:
        """Discord showed ``thread_id`` locked just now (those seen too long ago go)."""
        now = self._monotonic()
        self._seen = {
            thread: seen for thread, seen in self._seen.items() if now - seen < LOCK_SEEN_FOR
        }
        self._seen[thread_id] = now

    def still_locked(self, thread_id: int) -> bool:
        """Whether Discord showed ``thread_id`` locked less than :data:`LOCK_SEEN_FOR` ago."""
        seen = self._seen.get(thread_id)
        return seen is not None and self._monotonic() - seen < LOCK_SEEN_FOR

    def forget(self, thread_id: int) -> None:
        """``thread_id`` was seen unlocked, or changed: Discord's last word on it is old."""
        self._seen.pop(thread_id, None)
