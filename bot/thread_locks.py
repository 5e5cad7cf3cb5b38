"""Whether a thread is closed to its players by a moderator's lock (bot/flow/locked_threads.py
tells the story): pure predicates on discord.py's objects, which the error handler, the holds and
the flow all read, below the flow layer."""

from __future__ import annotations

from collections.abc import Mapping

import discord

THREAD_LOCKED = 160005
"""Discord's code refusing a message in a thread a moderator locked ("Thread is locked")."""

THREAD_ARCHIVED = 50083
"""Discord's code "Operation is not allowed in an archived thread" ("Tried to perform an
operation on an archived thread, such as editing a message"): also what it answers an
interaction's visible answer in a locked thread (discord/discord-api-docs#5517, #6884)."""


def closed_to_players(*, locked: bool, archived: bool, i_manage_threads: bool) -> bool:
    """Whether a thread so locked and archived, where I have Manage Threads or not, holds its
    game's clocks: locked and archived, or locked where I lack Manage Threads."""
    return locked and (archived or not i_manage_threads)


def manages_threads(
    guild: discord.Guild | None, channel_id: int, told: Mapping[int, bool] | None = None
) -> bool:
    """Whether I have Manage Threads in channel ``channel_id`` of ``guild`` (a thread's parent:
    a thread follows its parent's permissions): as an interaction from one of its threads
    last ``told`` (Discord's word, which the cache may lag behind: bot/holds.py
    ``Holds.told``), else as the cache shows. False when neither can say: a locked thread
    then holds its game's clocks, rather than its player losing on time where nobody may be
    able to play."""
    if told is not None and channel_id in told:
        return told[channel_id]
    if guild is None or guild.me is None:
        return False
    channel = guild.get_channel(channel_id)
    if channel is None:
        return False
    return channel.permissions_for(guild.me).manage_threads


def thread_closed_to_players(
    thread: discord.Thread, told: Mapping[int, bool] | None = None
) -> bool:
    """Whether ``thread`` (cached or fetched) holds its game's clocks
    (:func:`closed_to_players`; my Manage Threads as :func:`manages_threads` says)."""
    return closed_to_players(
        locked=thread.locked,
        archived=thread.archived,
        i_manage_threads=manages_threads(thread.guild, thread.parent_id, told),
    )
