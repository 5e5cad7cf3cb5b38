"""Holds: the servers, threads and shards nobody can play in now, and since when.

Nobody can move, accept a challenge or answer a takeback request in a server Discord says is
unavailable (its outage), in a game's thread a moderator locked and archived (only moderators
may open it again, and Discord's clients offer no commands in it) or locked where I lack Manage
Threads (Discord takes no message of mine there: bot/flow/locked_threads.py), or in the servers
of a shard whose gateway connection has dropped (no interaction reaches the bot from them).
Their clocks, challenges and takeback requests stand still meanwhile: the timers' checks leave
them alone (:meth:`Holds.held`), and when the hold ends the time is given back to them — to each
only the part not given to it already by another hold, the bot's absence or the gateway's that
overlapped it (bot/services/absence.py notes, per clock, the time given back). The holds are
stored (schema 28; a player's, schema 36), so that a restart takes them up again: keeping a
row while a hold lasts costs less than asking Discord about every game's thread at each start,
Discord does not say since when a server was unavailable or a shard dropped, and a player's
found again would have its line posted again.

What every hold shares (stored while it lasts, its time given back once at its end) is in
bot/hold_keeping.py; the holds of threads in bot/thread_holds.py; those of shards and servers
(the gateway's outages and the servers') in bot/outage_holds.py; those of game channels whose
player to move a moderator shut out (hidden from them, or timed out), found when their time
would run out, in bot/player_holds.py. :class:`Holds` composes them.
"""

from __future__ import annotations

import logging

from bot.outage_holds import OutageHolds
from bot.player_holds import PlayerHolds
from bot.services.held import Held, HoldKind
from bot.storage.errors import StorageError
from bot.thread_holds import ThreadHolds

_log = logging.getLogger(__name__)


class Holds(ThreadHolds, OutageHolds, PlayerHolds):
    """The places held now, kept in the database; the time given back when each ends."""

    async def reload(self) -> None:
        """Take up the holds kept before the restart: the servers in an outage, the threads
        closed to their players and the game channels held for a player shut out then are held
        from when they were (their time back at their end, less the bot's absence the start-up
        gave their clocks already); the threads are asked of Discord once connected
        (:meth:`recheck_closed_threads`), the players at the first check."""
        await self.reload_players()
        try:
            kept = await self.bot.services.holds.kept()
        except StorageError as error:
            _log.warning("Could not read the holds kept before the restart: %s", error)
            return
        count = self.bot.shard_count or 1
        for hold in kept:
            if hold.kind is HoldKind.SHARD and hold.shard_count != count:
                # Kept under another shard layout: that shard's servers are others now (and
                # the restart that changed the layout gave every clock its time).
                await self._release(HoldKind.SHARD, hold.place_id)
            elif hold.kind is HoldKind.SERVER:
                self._outages.setdefault(hold.place_id, hold.since)
            elif hold.kind is HoldKind.THREAD:
                self._closed_threads.setdefault(hold.place_id, hold.since)
            elif hold.shard_count is not None:
                self._kept_shards.setdefault((hold.place_id, hold.shard_count), hold.since)
        if kept:
            _log.info("Holding %d servers, threads or shards held before the restart", len(kept))

    async def shard_up(self, shard_id: int) -> None:
        """``shard_id`` is connected again (resumed, or identified anew): the move clocks,
        challenges and takeback requests of its servers are given back the time since it was
        dropped; with one shard in this process, that is every server's (as after a
        restart). If it was held, the threads held are asked of Discord again
        (:meth:`recheck_closed_threads`): one opened meanwhile sent me nothing."""
        if await self._shard_back(shard_id):
            self.bot.spawn(self.recheck_closed_threads(), name="brandubh-closed-threads")

    async def _end_again(self) -> None:
        """Try again to give back the time of the holds that ended while the database failed
        (a server's is tried again by :meth:`_unavailable_servers`, as long as the cache shows
        it available)."""
        for kind, place_id in sorted(self._unended, key=lambda hold: hold[1]):
            if kind is HoldKind.SHARD:
                await self.shard_up(place_id)
            elif kind is HoldKind.THREAD:
                await self.thread_opened(place_id)
            elif kind is HoldKind.PLAYER:
                await self.player_back(place_id, announce=True)

    async def held(self) -> Held:
        """The servers in an outage, the threads closed to their players, the game channels
        whose player to move a moderator shut out and the servers of the shards the gateway
        dropped: nobody can play in them now, so their clocks stand still
        and their reminders wait. The holds whose time could not be given back as they ended
        are given it now, if the database lets."""
        if self._unended:
            await self._end_again()
        return Held(
            frozenset(
                await self._unavailable_servers()
                | set(self._closed_threads)
                | self.shut_out_channels()
            ),
            frozenset(self._down),
            self.bot.shard_count or 1,
        )
