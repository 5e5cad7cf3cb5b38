"""Games whose place is gone: a channel or thread deleted, or the bot removed from a server.

Discord says so with an event (CHANNEL_DELETE, THREAD_DELETE, GUILD_DELETE;
bot/cogs/server_changes.py listens) or, when the bot was away or missed it, by refusing a post
with Unknown Channel (10003), which the outbox and the timers hand here instead of backing off;
before anyone loses on time in a channel the bot does not know, it asks Discord first. Either
way the games there are aborted as ``/abort`` aborts them (bot/services/vanished.py) and nothing
is posted in the place that is gone; a thread game's line in its channel, if that channel is
still there, says the match was aborted, as after ``/abort``.
"""

from __future__ import annotations

import enum
import logging
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import discord

from bot.services.domain import SetEnd
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003
"""Discord's error code for a channel (or thread) that does not exist."""


def unknown_channel(error: BaseException) -> bool:
    """Whether ``error`` is Discord answering 404 Unknown Channel: the channel is gone."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL


class Gone(enum.Enum):
    """How the bot learnt that a game's channel or thread is gone."""

    DELETED = "deleted"
    """CHANNEL_DELETE or THREAD_DELETE."""
    UNKNOWN = "unknown"
    """Discord refused a post there with Unknown Channel (deleted while the bot was away)."""


class VanishedFlow:
    """Aborts the games of a place that is gone, posting nothing there."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._deleting: Counter[int] = Counter()
        """Channel deletions of each server whose games are still being aborted."""
        self._asking: set[int] = set()
        """Servers whose uncached game places are being asked of Discord."""
        self._ask_again: set[int] = set()
        """Servers with a deletion done while their places were being asked: once more."""

    async def channel_gone(self, channel_id: int, how: Gone) -> None:
        """``channel_id`` (a channel or a thread) is gone, with a channel the threads in it.

        A post refused as Unknown Channel (``Gone.UNKNOWN``) is taken for a deletion only once
        Discord says so again when asked for the channel, with its server available: an abort
        cannot be undone, and Discord has answered 10003 for live channels in outages."""
        if how is Gone.UNKNOWN and not await self._gone_for_sure(channel_id):
            return
        await self._abort_in(channel_id, how)

    async def channel_deleted(self, guild: discord.Guild, channel_id: int) -> None:
        """CHANNEL_DELETE: ``channel_id`` of ``guild`` is gone, with its threads. The games of
        threads its members started are recorded as played in a place of their own (the
        thread, no channel noted), and discord.py reports deleted only the threads it holds: an
        archived one it forgot. So a game's place of ``guild`` that is neither a channel nor
        a thread the cache holds is asked of Discord, and one it no longer knows is gone — a
        request per game in progress in an archived member's thread, at a channel's deletion.
        Deletions in a burst (a category's channels, a RESUME replaying them) share the
        asking: it waits for the last deletion of the server being handled, and one done while
        the places are being asked makes that go round once more when done, rather than each
        asking them all alongside (one request per such game and deletion, a burst's worth of
        them at once, into Discord's global rate limit)."""
        self._deleting[guild.id] += 1
        try:
            await self.channel_gone(channel_id, Gone.DELETED)
        finally:
            self._deleting[guild.id] -= 1
        if self._deleting[guild.id] > 0:
            return  # the last one asks
        del self._deleting[guild.id]
        if guild.id in self._asking:
            self._ask_again.add(guild.id)
            return
        self._asking.add(guild.id)
        try:
            await self._uncached_asked(guild)
            while guild.id in self._ask_again:
                self._ask_again.discard(guild.id)
                await self._uncached_asked(guild)
        finally:
            self._asking.discard(guild.id)
            self._ask_again.discard(guild.id)

    async def _uncached_asked(self, guild: discord.Guild) -> None:
        """Each game's place of ``guild`` in no channel, and not in the cache, is asked of
        Discord (the games of the channels deleted are aborted already)."""
        places = await self.flow.bot.services.records.places_in_progress(guild.id)
        for place_id, parent in places:
            if parent is None and guild.get_channel_or_thread(place_id) is None:
                await self.channel_gone(place_id, Gone.UNKNOWN)

    async def channels_unseen(self, guild: discord.Guild) -> None:
        """``guild``'s channels are known anew (a GUILD_CREATE: at start-up, after an outage,
        after a session the gateway could not resume, whose CHANNEL_DELETEs and THREAD_DELETEs
        were lost with it, or when the bot is invited back after a removal it did not see):
        a channel with a game in progress (or holding a game's thread) that it lacks is asked
        of Discord, and one Discord no longer knows is gone — its games are aborted now, not
        when a post there or the deadline finds it. So is a game's thread missing from the
        server's active threads (GUILD_CREATE's ``threads``) whose channel is there: it may be
        archived (Discord shows it is still there, and its game goes on), hidden from the bot,
        or deleted alone. A channel is never archived, so only one deleted (or a member's
        thread archived) is asked: a request per place missing, none otherwise."""
        places = await self.flow.bot.services.records.places_in_progress(guild.id)
        channels = {channel_id if parent is None else parent for channel_id, parent in places}
        for channel_id in sorted(channels):
            if guild.get_channel_or_thread(channel_id) is None:
                await self.channel_gone(channel_id, Gone.UNKNOWN)
        threads = {  # of a channel still there: one gone took its threads' games with it
            thread_id
            for thread_id, parent in places
            if parent is not None
            and guild.get_channel(parent) is not None
            and guild.get_thread(thread_id) is None
        }
        for thread_id in sorted(threads):
            await self.channel_gone(thread_id, Gone.UNKNOWN)

    async def _abort_in(self, channel_id: int, how: Gone) -> None:
        for end in await self.flow.bot.services.vanished.channel_gone(channel_id):
            _log_abort(end, why(end, channel_id, how))
            parent = end.game.parent_channel_id
            if parent is not None and self.flow.bot.get_channel(parent) is not None:
                await self.flow.set_ends.after_set(end)  # the match's line says it was aborted

    async def _gone_for_sure(self, channel_id: int) -> bool:
        """Whether Discord answers Unknown Channel when asked for ``channel_id``, its server
        being available to the bot (not in an outage, not still loading)."""
        bot = self.flow.bot
        guild_id = await bot.services.vanished.guild_of(channel_id)
        guild = None if guild_id is None else bot.get_guild(guild_id)
        if guild_id is not None and (guild is None or guild.unavailable):
            _log.info("Channel %s may be gone, but its server is not available", channel_id)
            return False
        try:
            await bot.fetch_channel(channel_id)
        except (discord.HTTPException, *UNREACHABLE) as error:
            return unknown_channel(error)
        except discord.InvalidData:  # Discord knows it: a channel type discord.py does not
            pass
        return False

    async def before_time_out(
        self, channel_ids: Sequence[int], set_ids: Mapping[int, int]
    ) -> dict[int, datetime]:
        """Before games are lost on time in ``channel_ids``: a game's channel the bot has not
        heard of (not in its cache: deleted while it was away, an archived thread, or not
        cached) is asked of Discord, and one Discord no longer knows is gone — its game is
        aborted, not lost on time (rated) where nobody could play. Returns the threads closed
        to their players (bot/flow/locked_threads.py: locked and archived, or locked where I
        lack Manage Threads), whose clocks stand still, each with since when: an archived
        one, since it was archived; an active one, since its player's turn began (the game
        ``set_ids`` gives for the channel: :meth:`turn_began`) — Discord does not say since
        when it is locked, the lock did not reach the bot as an event, and held from now its
        player would be left no time once it is unlocked. If Discord cannot say, the game is
        ended on time as usual."""
        bot = self.flow.bot
        closed: dict[int, datetime] = {}
        for channel_id in channel_ids:
            cached = bot.get_channel(channel_id)
            if cached is not None:  # not archived (discord.py drops archived threads)
                if isinstance(cached, discord.Thread) and bot.timers.holds.closed(cached):
                    closed[channel_id] = await self.turn_began(set_ids.get(channel_id))
                continue
            if await self._gone_for_sure(channel_id):
                await self._abort_in(channel_id, Gone.UNKNOWN)
            elif (
                since := await self.closed_since(channel_id, set_ids.get(channel_id))
            ) is not None:
                closed[channel_id] = since
        return closed

    async def turn_began(self, set_id: int | None) -> datetime:
        """When the turn of set ``set_id``'s player to move began (``Holds.turn_began``), or
        now if there is no such set."""
        bot = self.flow.bot
        if set_id is None:
            return bot.clock()
        return await bot.timers.holds.turn_began(set_id)

    async def still_closed(self, thread_id: int) -> bool:
        """Whether thread ``thread_id`` is still closed to its players (locked and archived,
        or locked where I lack Manage Threads), as far as Discord says (when it cannot say,
        it is taken to be)."""
        try:
            channel = await self.flow.bot.fetch_channel(thread_id)
        except discord.NotFound:
            return False  # gone: its game is aborted when that is heard of
        except (discord.HTTPException, *UNREACHABLE):
            return True
        except discord.InvalidData:  # a channel type discord.py does not know: no thread
            return False
        return isinstance(channel, discord.Thread) and self.flow.bot.timers.holds.closed(channel)

    async def closed_since(self, channel_id: int, set_id: int | None = None) -> datetime | None:
        """Since when ``channel_id`` is closed to its players, if Discord shows it as a thread
        so (else None): since it was archived, if it is locked and archived; if it is locked
        but active where I lack Manage Threads (Discord does not say since when), since the
        turn of its game ``set_id`` began (:meth:`turn_began`; now without one)."""
        try:
            channel = await self.flow.bot.fetch_channel(channel_id)
        except (discord.HTTPException, discord.InvalidData, *UNREACHABLE):
            return None  # unanswered, or a channel type discord.py does not know: no thread
        if not isinstance(channel, discord.Thread) or not self.flow.bot.timers.holds.closed(
            channel
        ):
            return None
        if channel.archived:
            return channel.archive_timestamp
        return await self.turn_began(set_id)

    async def servers_left(
        self, *, shard_id: int | None = None, listed: Collection[int] = ()
    ) -> None:
        """At start-up: a server with games in progress, a daily puzzle on or open challenges
        that the gateway's READY did not list for the bot (it was removed while it was away)
        is gone once Discord confirms it cannot see the server (403 or 404): its games are
        aborted, its challenges withdrawn and its daily puzzle switched off, noting why. Only
        the servers of this process's shards are weighed (another process's are not in its
        READY, and not gone); if Discord cannot say, nothing is done. After ``shard_id``
        identified anew (its session lost), discord.py still holds the servers it knew, so
        that shard's servers not ``listed`` by its fresh READY are weighed instead."""
        bot = self.flow.bot
        for guild_id in await bot.services.vanished.guilds_served():
            if shard_id is None:
                if bot.get_guild(guild_id) is not None:
                    continue
            elif guild_id in listed or (guild_id >> 22) % (bot.shard_count or 1) != shard_id:
                continue
            try:
                await bot.fetch_guild(guild_id)
            except (discord.Forbidden, discord.NotFound):
                await self.guild_gone(guild_id)
                await self._uncached(guild_id)
            except (discord.HTTPException, *UNREACHABLE) as error:
                _log.info("Could not ask Discord about server %s: %s", guild_id, error)

    async def _uncached(self, guild_id: int) -> None:
        """``guild_id``, found gone, leaves discord.py's cache as its GUILD_DELETE would take
        it out (``on_guild_remove``), and a hold of its outage ends. After a lost session
        discord.py keeps the servers its fresh READY no longer lists: one in an outage then
        was held for good (its clocks and hold rows), and its channels looked known."""
        bot = self.flow.bot
        cached = bot.get_guild(guild_id)
        if cached is not None:
            bot._connection._remove_guild(cached)
        await bot.timers.holds.server_left(guild_id)

    async def guild_gone(self, guild_id: int) -> None:
        """The bot was removed from ``guild_id`` (it can post nothing there any more)."""
        for end in await self.flow.bot.services.vanished.guild_gone(guild_id):
            _log_abort(end, "the bot was removed from its server")


def why(end: SetEnd, channel_id: int, how: Gone) -> str:
    """Why the set ``end`` was aborted, for the log, when ``channel_id`` is gone."""
    active = end.game
    if active.channel_id != channel_id:
        place = "the channel its thread was in"
    else:
        place = "its channel" if active.parent_channel_id is None else "its thread"
    if how is Gone.UNKNOWN:
        return f"Discord no longer knows {place} (Unknown Channel)"
    return f"{place} was deleted"


def _log_abort(end: SetEnd, reason: str) -> None:
    """One line per aborted game, saying why."""
    active = end.game
    _log.info(
        "Aborted game %s (match %s) in channel %s of server %s: %s",
        active.set_id,
        active.match_id,
        active.channel_id,
        active.guild_id,
        reason,
    )
