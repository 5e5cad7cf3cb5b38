"""Outage holds: the shards whose gateway connection has dropped (no interaction reaches the
bot from their servers) and the servers Discord says are unavailable, and since when
(bot/holds.py tells the story). A gateway outage of the one shard of a process is every
server's: its time is given back to every clock, and owed until the database takes it."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.hold_keeping import SHOWN_OUTAGE, HoldKeeping
from bot.services.held import Hold, HoldKind
from bot.shards import Shards
from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.client import BrandubhBot
    from bot.timers import Timers

_log = logging.getLogger(__name__)

RETURN_QUIET = timedelta(milliseconds=250)
"""Servers back within this of each other are given their time in one transaction (a shard that
connects anew brings every server it showed unavailable back in a burst)."""
RETURN_WAIT = timedelta(seconds=2)
"""The longest a server back waits for others to be given its time with them."""
RETURNS_PER_TRANSACTION = 100
"""The most servers given their time in one transaction: a burst of thousands (a shard that
connects anew) would hold every give-back, and the moves of its first servers, for seconds."""
OWED_TRIES_LOGGED = 5
"""After this many failed tries in a row to give back the same gateway outage, the failure is
logged once as an error (each try is a warning): its players' clocks are still short of it."""


class OutageHolds(HoldKeeping):
    """The shards the gateway dropped and the servers in an outage, held while they last."""

    def __init__(self, bot: BrandubhBot, timers: Timers) -> None:
        super().__init__(bot, timers)
        self._down: dict[int, datetime] = {}
        """The shards Discord's gateway has dropped (no interaction reaches me for their
        servers), and since when (:meth:`shard_down`)."""
        self._outages: dict[int, datetime] = {}
        """The servers Discord says are unavailable (an outage of theirs), and since when."""
        self._returned: dict[int, datetime] = {}
        """Servers available again, and when, whose time is given back with the next batch
        (:meth:`_give_back_returned`)."""
        self._returning = False
        """Whether a batch of servers' give-backs is being given (the servers back meanwhile
        are given with the next)."""
        self._owed_outages: list[tuple[datetime, datetime]] = []
        """The gateway's outages (one shard in this process) whose time could not be given
        back as they ended, from when to when, oldest first (:meth:`give_back_owed`): a later
        one waits behind them."""
        self._owed_tries_failed = 0
        """How many tries in a row to give back the oldest owed outage failed (none once it is
        given): the try that makes them :data:`OWED_TRIES_LOGGED` is logged as an error."""
        self._giving_owed = asyncio.Lock()
        """Held while the owed outages are given: one at a time, in order (a check's and a
        reconnect's at once would give the first twice and drop the second)."""
        self._kept_shards: dict[tuple[int, int], datetime] = {}
        """Shard holds kept from before a restart, by ``(shard id, shard count)``: the shard's
        connection at start-up ends its hold (bot/holds.py ``Holds.shard_up``)."""

    def _running_shards(self) -> set[int]:
        """The shards this process runs (every shard of the count, unless it names some)."""
        named = self.bot.shard_ids
        return set(named) if named else set(range(self.bot.shard_count or 1))

    def all_down(self) -> bool:
        """Whether the gateway has dropped every shard this process runs: then the checks
        wait (and note nothing: a stop now leaves the note from before the drop)."""
        return bool(self._down) and self._running_shards() <= set(self._down)

    async def shard_down(self, shard_id: int) -> None:
        """Discord's gateway dropped ``shard_id``: until it is back no interaction reaches me
        from its servers, so nobody there can move, accept a challenge or answer a takeback
        request. As while the bot is stopped, their clocks stand still: nobody there loses on
        time, is reminded or sees a challenge or request expire meanwhile, and the time is
        given back when the shard is back (bot/holds.py ``Holds.shard_up``). The servers of
        this process's other shards, whose players can play, go on as ever; once every shard is
        down the checks wait."""
        if not self.timers.running:  # stopped: the stop noted the time
            return
        count = self.bot.shard_count or 1
        hold = Hold(HoldKind.SHARD, shard_id, self.bot.clock(), shard_count=count)
        several = not self._running_shards() <= {shard_id}  # one of several: kept
        if self._begins_again(hold, keep=several):
            return
        if shard_id in self._down:  # its hold goes on (one whose end failed is not retried)
            self._unended.pop((HoldKind.SHARD, shard_id), None)
            return
        _log.info("The gateway dropped shard %s: its clocks stand still", shard_id)
        self._down[shard_id] = hold.since
        if several:
            await self._keep(hold)

    async def _shard_back(self, shard_id: int) -> bool:
        """``shard_id`` is connected again (resumed, or identified anew): the move clocks,
        challenges and takeback requests of its servers are given back the time since it was
        dropped; with one shard in this process, that is every server's (as after a
        restart). Returns whether it was held (its hold ended, or its end was tried)."""
        count = self.bot.shard_count or 1
        since = self._down.get(shard_id)
        if since is None:  # held before a restart, if at all
            since = self._kept_shards.pop((shard_id, count), None)
            if since is None:
                return False
            self._down[shard_id] = since
        if self._ends_again((HoldKind.SHARD, shard_id)):
            return False
        self._ending.add((HoldKind.SHARD, shard_id))
        until = self._ended((HoldKind.SHARD, shard_id))
        given = False
        try:
            if self._running_shards() <= {shard_id}:
                await self._give_back_outage(since)
                given = True  # not stored: if it failed, the checks give it (give_back_owed)
            else:
                given = await self._give_back(
                    since,
                    until,
                    f"shard {shard_id}",
                    (HoldKind.SHARD, shard_id),
                    shard=Shards(count, (shard_id,)),
                )
        finally:
            await self._after_end((HoldKind.SHARD, shard_id), self._down, given, until)
        return True

    async def _give_back_outage(self, since: datetime) -> None:
        """The gateway is back for the one shard of this process: the time since it was
        dropped (not since the last note of the timers, up to ``RECORD_EVERY`` before it) is
        given back to every clock, challenge and takeback request, once. It is owed until
        given, behind any outage owed already (given first): if the database fails it, the
        checks give it before anything else, and wait until they can
        (:meth:`give_back_owed`).

        In order, because each give-back notes the timers as running at its end, and the
        start-up after a stop gives back the time since the last note: an owed outage is
        given by the next start as long as nothing notes a time after its start — given
        after it, a later outage's give-back did, and a stop before the next check lost the
        first one's time."""
        now = self.bot.clock()
        if since >= now:
            return
        self._owed_outages.append((since, now))
        try:
            await self.give_back_owed()
        except StorageError as error:
            _log.warning("Could not give the clocks back the outage: %s", error)

    async def _outage_given(self, since: datetime, until: datetime) -> None:
        """Give the gateway's outage from ``since`` to ``until`` back (one shard)."""
        resumed = await self.bot.services.clocks.give_back_outage(since, until)
        self.timers.noted(until)
        if until - since >= SHOWN_OUTAGE:
            self.timers.moved(resumed)

    @property
    def outage_owed(self) -> bool:
        """Whether a gateway outage's time is not given back yet (its give-back failed, or is
        under way: an outage is queued before it is tried): the checks wait, and a stop leaves
        the timers' last note (from before the outage) as it is."""
        return bool(self._owed_outages)

    async def give_back_owed(self) -> None:
        """Give back the gateway outages whose time the database failed as they ended, oldest
        first, each up to its end (its players could play since). Raises
        :class:`~bot.storage.errors.StorageError` if the database fails again: the check
        waits (nobody loses on time, is reminded or sees a challenge expire meanwhile, as
        while the gateway was down), and the outages still owed are given at the next check,
        at a stop, or else by the next start (the timers' last note is from before them)."""
        async with self._giving_owed:
            while self._owed_outages:
                since, until = self._owed_outages[0]
                try:
                    await self._outage_given(since, until)
                except StorageError as error:
                    self._owed_try_failed(since, until, error)
                    raise
                del self._owed_outages[0]
                self._owed_tries_failed = 0

    def _owed_try_failed(self, since: datetime, until: datetime, error: StorageError) -> None:
        """A try to give back the owed outage from ``since`` to ``until`` failed (each try is
        logged as a warning where it was made): once :data:`OWED_TRIES_LOGGED` in a row have,
        that is logged once as an error, for it is no passing lock any more."""
        self._owed_tries_failed += 1
        if self._owed_tries_failed == OWED_TRIES_LOGGED:
            _log.error(
                "The players' clocks are not given back the gateway outage from %s to %s yet: "
                "%d tries in a row failed, the last with: %s",
                since.isoformat(),
                until.isoformat(),
                self._owed_tries_failed,
                error,
            )

    async def server_unavailable(self, guild_id: int, *, keep: bool = True) -> None:
        """Discord says server ``guild_id`` is unavailable (an outage of that server): nobody
        there can move, accept a challenge or answer a takeback request, so nobody there
        loses on time until it is back (:meth:`server_available` gives the time back). Kept
        in the database unless ``keep`` is false (one only the cache shows unavailable: every
        server of a shard that connects anew is so for a moment, and a write for each of
        thousands would hold up the checks)."""
        hold = Hold(HoldKind.SERVER, guild_id, self.bot.clock(), guild_id)
        if self._begins_again(hold, keep=keep):
            return
        if guild_id in self._outages:  # its hold goes on (one whose end failed is not retried)
            self._unended.pop((HoldKind.SERVER, guild_id), None)
            return
        _log.info("Server %s is unavailable: its clocks stand still", guild_id)
        self._outages[guild_id] = hold.since
        if keep:
            await self._keep(hold)

    async def server_available(self, guild_id: int) -> None:
        """Server ``guild_id`` is available again: its move clocks, challenges and takeback
        requests are given back the time it was not (never more than each had run), with
        those of the other servers back meanwhile, in one transaction (every server of a shard
        that connects anew comes back at once)."""
        self._returns(guild_id)
        await self._give_back_returned()

    def _returns(self, guild_id: int) -> None:
        """Server ``guild_id`` is back: its time is given back with the next batch (a second
        return meanwhile gives nothing)."""
        hold = (HoldKind.SERVER, guild_id)
        if guild_id in self._outages and not self._ends_again(hold):
            self._ending.add(hold)
            self._returned[guild_id] = self._ended(hold)

    async def _give_back_returned(self) -> None:
        """Give the servers back (:meth:`server_available`) their time, a batch (at most
        ``RETURNS_PER_TRANSACTION``) at a time: the servers back meanwhile wait for the next;
        once given (or if the database fails
        them, then tried again at the next check) their holds end."""
        if self._returning:
            return
        self._returning = True
        try:
            while self._returned:
                if len(self._returned) < RETURNS_PER_TRANSACTION:
                    await self._burst_over()
                batch = dict(list(self._returned.items())[:RETURNS_PER_TRANSACTION])
                for guild_id in batch:
                    del self._returned[guild_id]
                await self._end_servers(batch)
        finally:
            self._returning = False

    async def _burst_over(self) -> None:
        """Wait until no server has come back for ``RETURN_QUIET`` (at most ``RETURN_WAIT``):
        the time of each is given up to its return all the same."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + RETURN_WAIT.total_seconds()
        seen = 0
        while len(self._returned) != seen and loop.time() < give_up:
            seen = len(self._returned)
            await asyncio.sleep(RETURN_QUIET.total_seconds())

    async def _end_servers(self, batch: dict[int, datetime]) -> None:
        """End the holds of the servers of ``batch``, back at the times it gives (one the bot
        left meanwhile has no hold left to end)."""
        outages = [
            (guild_id, self._outages[guild_id], until)
            for guild_id, until in batch.items()
            if guild_id in self._outages
        ]
        given = False
        try:
            resumed = await self.bot.services.clocks.give_back_servers(outages)
            given = True
        except StorageError as error:
            _log.warning("Could not give %d servers back their outages: %s", len(batch), error)
            return
        finally:
            for guild_id, _, until in outages:
                await self._after_end((HoldKind.SERVER, guild_id), self._outages, given, until)
            for guild_id in batch.keys() - self._outages.keys():
                self._ending.discard((HoldKind.SERVER, guild_id))
        for (guild_id, since, until), moved in zip(outages, resumed, strict=True):
            self._given_back(f"server {guild_id}", moved)
            if until - since >= SHOWN_OUTAGE:
                self.timers.moved(moved)

    async def server_left(self, guild_id: int) -> None:
        """The bot was removed from server ``guild_id``: its games are aborted, so a hold of
        it ends with nothing to give back (should it invite the bot back, its new games are
        not held for the old outage)."""
        if self._outages.pop(guild_id, None) is not None:
            await self._release(HoldKind.SERVER, guild_id)

    async def _unavailable_servers(self) -> set[int]:
        """The servers in an outage now: those Discord said were unavailable, and any the
        cache holds as unavailable (one that was so when the bot connected), noted from now.
        One the cache holds as available again is no longer held once its time is given back
        (in the background: the check does not wait for a burst's pause and transactions): it
        may have come back in a GUILD_CREATE that discord.py reports as a join, not as the
        server available (``unavailable`` missing rather than false). One the bot is no
        longer in (removed during its outage) is forgotten: its games were aborted, and should
        it come back its new games are not held."""
        for guild_id in list(self._outages):
            guild = self.bot.get_guild(guild_id)
            if guild is None:
                await self.server_left(guild_id)
            elif not guild.unavailable:
                self._returns(guild_id)
            else:  # unavailable again: its hold goes on (one whose end failed is not retried)
                self._unended.pop((HoldKind.SERVER, guild_id), None)
        if self._returned and not self._returning:  # held until given: the checks go on
            self.bot.spawn(self._give_back_returned(), name="brandubh-servers-back")
        for guild in self.bot.guilds:
            if guild.unavailable and guild.id not in self._outages:
                await self.server_unavailable(guild.id, keep=False)
        return set(self._outages)
