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
stored (schema 28), so that a restart takes them up again: keeping a row while a hold lasts
costs less than asking Discord about every game's thread at each start, and Discord does not say
since when a server was unavailable or a shard dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.services.absence import Resumed
from bot.services.held import Held, Hold, HoldKind
from bot.shards import Shards
from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.client import BrandubhBot
    from bot.timers import Timers

_log = logging.getLogger(__name__)

SHOWN_OUTAGE = timedelta(minutes=1)
"""A hold at least this long has the boards and requests whose deadlines it moved on edited to
show the new times (a shorter one moves them by less than their relative timestamps show)."""


_FORGOTTEN_WHEN_HEARD = "brandubh-forgotten-when-heard"
"""An interaction's note (its ``extras``) of how many times the told words had been forgotten
when it came (:meth:`Holds.heard`)."""

RETURN_QUIET = timedelta(milliseconds=250)
"""Servers back within this of each other are given their time in one transaction (a shard that
connects anew brings every server it showed unavailable back in a burst)."""
RETURN_WAIT = timedelta(seconds=2)
"""The longest a server back waits for others to be given its time with them."""
RETURNS_PER_TRANSACTION = 100
"""The most servers given their time in one transaction: a burst of thousands (a shard that
connects anew) would hold every give-back, and the moves of its first servers, for seconds."""


class Holds:
    """The places held now, kept in the database; the time given back when each ends."""

    def __init__(self, bot: BrandubhBot, timers: Timers) -> None:
        self.bot = bot
        self.timers = timers
        self._down: dict[int, datetime] = {}
        """The shards Discord's gateway has dropped (no interaction reaches me for their
        servers), and since when (:meth:`shard_down`)."""
        self._outages: dict[int, datetime] = {}
        """The servers Discord says are unavailable (an outage of theirs), and since when."""
        self._closed_threads: dict[int, datetime] = {}
        """The game threads closed to their players (locked and archived, or locked where I
        lack Manage Threads), and since when."""
        self._ending: set[tuple[HoldKind, int]] = set()
        """The holds whose time is being given back: another end of the same hold meanwhile
        (two events for one server's return, say) gives nothing."""
        self._returned: dict[int, datetime] = {}
        """Servers available again, and when, whose time is given back with the next batch
        (:meth:`_give_back_returned`)."""
        self._returning = False
        """Whether a batch of servers' give-backs is being given (the servers back meanwhile
        are given with the next)."""
        self._again: dict[tuple[HoldKind, int], tuple[Hold, bool]] = {}
        """Holds that began while their place's last hold was being given its time back (a
        gateway or a moderator quick to drop or lock again), each with whether it is to be
        stored: they begin once that is done (:meth:`_after_end`)."""
        self._unended: dict[tuple[HoldKind, int], datetime] = {}
        """Holds that ended but whose time could not be given back (the database failed), and
        when they ended: still held, and tried again at each check (:meth:`held`), so that the
        time is given now rather than, from the stored hold, at the next start (all of it
        since it began) — up to when each ended, not to the retry (its players could play
        meanwhile)."""
        self._owed_outages: list[tuple[datetime, datetime]] = []
        """The gateway's outages (one shard in this process) whose time could not be given
        back as they ended, from when to when, oldest first (:meth:`give_back_owed`): a later
        one waits behind them."""
        self._giving_owed = asyncio.Lock()
        """Held while the owed outages are given: one at a time, in order (a check's and a
        reconnect's at once would give the first twice and drop the second)."""
        self._kept_shards: dict[tuple[int, int], datetime] = {}
        """Shard holds kept from before a restart, by ``(shard id, shard count)``: the shard's
        connection at start-up ends its hold (:meth:`shard_up`)."""
        self.told: dict[int, bool] = {}
        """Whether I have Manage Threads in a channel (a thread's parent), by Discord's word in
        the last interaction from one of its threads: the cache's may lag behind it (an event
        it missed), and a hold follows what the interactions show, as the refusals do
        (bot/flow/locked_threads.py). Forgotten when an event changes the server's
        permissions (:meth:`forget_told`): the cache is as fresh then."""
        self._forgotten = 0
        """How many times the told words were forgotten: a word from an interaction that came
        before the last time (:meth:`heard`) is older than the cache, and not kept."""
        self._weighing: dict[int, tuple[asyncio.Lock, int]] = {}
        """Per thread, the lock under which its hold begins or ends, and how many use it
        (:meth:`in_turn`)."""

    async def reload(self) -> None:
        """Take up the holds kept before the restart: the servers in an outage and the threads
        closed to their players then are held from when they were (their time back at their end,
        less the bot's absence the start-up gave their clocks already); the threads are asked of
        Discord once connected (:meth:`recheck_closed_threads`)."""
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

    async def _keep(self, hold: Hold) -> None:
        """Store ``hold`` (a restart takes it up again); if the database cannot, it is held
        for as long as this process runs."""
        try:
            await self.bot.services.holds.hold(hold)
        except StorageError as error:
            _log.warning(
                "Could not keep the hold of %s %s: %s", hold.kind.value, hold.place_id, error
            )

    async def _release(self, kind: HoldKind, place_id: int) -> bool:
        """The hold of ``kind`` ``place_id`` is over, with no time to give back. Returns
        whether its row is gone (False: the database failed)."""
        try:
            await self.bot.services.holds.release(kind, place_id)
        except StorageError as error:
            _log.warning("Could not end the hold of %s %s: %s", kind.value, place_id, error)
            return False
        return True

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
        given back when the shard is back (:meth:`shard_up`). The servers of this process's
        other shards, whose players can play, go on as ever; once every shard is down the
        checks wait."""
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

    async def shard_up(self, shard_id: int) -> None:
        """``shard_id`` is connected again (resumed, or identified anew): the move clocks,
        challenges and takeback requests of its servers are given back the time since it was
        dropped; with one shard in this process, that is every server's (as after a
        restart)."""
        count = self.bot.shard_count or 1
        since = self._down.get(shard_id)
        if since is None:  # held before a restart, if at all
            since = self._kept_shards.pop((shard_id, count), None)
            if since is None:
                return
            self._down[shard_id] = since
        if self._ends_again((HoldKind.SHARD, shard_id)):
            return
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
        self.bot.spawn(self.recheck_closed_threads(), name="brandubh-closed-threads")

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
        resumed = await self.bot.services.games.give_back_outage(since, until)
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
                await self._outage_given(since, until)
                del self._owed_outages[0]

    async def recheck_closed_threads(self) -> None:
        """After the gateway was down (a thread opened meanwhile sent me nothing, and would
        otherwise be held for as long as the bot runs): each held thread is asked of Discord,
        and one no longer closed to its players is opened, its time given back. One whose game
        ended meanwhile (an admin's ``/abort`` from the channel) is held no more, and not
        asked about: nothing there is left to give time back to."""
        for thread_id in list(self._closed_threads):
            if await self._without_game(thread_id):
                continue
            if not await self.bot.flow.vanished.still_closed(thread_id):
                await self.thread_opened(thread_id)

    async def _without_game(self, thread_id: int) -> bool:
        """Whether held thread ``thread_id`` has no game in progress any more: then its hold
        ends, with nothing to give back (if the database cannot say, it stays held)."""
        if (HoldKind.THREAD, thread_id) in self._ending:
            return False
        try:
            active = await self.bot.services.games.in_channel(thread_id)
        except StorageError as error:
            _log.warning("Could not tell whether thread %s has a game: %s", thread_id, error)
            return False
        if active is not None:
            return False
        self._closed_threads.pop(thread_id, None)
        await self._release(HoldKind.THREAD, thread_id)
        return True

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
            resumed = await self.bot.services.games.give_back_servers(outages)
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

    def heard(self, extras: dict[str, object]) -> None:
        """An interaction came (``extras``, its own notes): when its word is told, a change of
        permissions heard of since it came is fresher (:meth:`tell`)."""
        extras.setdefault(_FORGOTTEN_WHEN_HEARD, self._forgotten)

    def tell(self, channel_id: int, manage_threads: bool, extras: dict[str, object]) -> None:
        """An interaction from a thread of ``channel_id`` (``extras``, its own notes) shows
        whether I have Manage Threads there (:attr:`told`) — as it was when the interaction
        came: if an event changed the server's permissions since (heard of as its answer was
        made, say), the cache is fresher, and the word is not kept."""
        if extras.get(_FORGOTTEN_WHEN_HEARD, self._forgotten) == self._forgotten:
            self.told[channel_id] = manage_threads

    def forget_told(self, channel_ids: Iterable[int]) -> None:
        """An event changed permissions in ``channel_ids`` (a server's): the cache is fresh."""
        self._forgotten += 1
        for channel_id in channel_ids:
            self.told.pop(channel_id, None)

    @contextlib.asynccontextmanager
    async def in_turn(self, thread_id: int) -> AsyncIterator[None]:
        """Begin or end thread ``thread_id``'s hold after the changes heard of before, whoever
        heard of them (a gateway event, an interaction from the thread: bot/flow/locked_threads.py):
        a lock undone at once is heard as two events, and the lock's (which asks the database
        whether a game is played there) must not end after the unlock's, holding a thread open
        to all."""
        lock, users = self._weighing.get(thread_id, (asyncio.Lock(), 0))
        self._weighing[thread_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._weighing[thread_id]
            if users == 1:
                del self._weighing[thread_id]
            else:
                self._weighing[thread_id] = (lock, users - 1)

    async def in_play(self, thread_ids: list[int]) -> dict[int, int] | None:
        """Of ``thread_ids``, those with a game in progress, each with its server, in one read
        (a server's locked threads weighed at once); None if the database cannot say (then
        each closed one is held, as :meth:`thread_locked` holds it)."""
        try:
            return await self.bot.services.games.guilds_in_play(thread_ids)
        except StorageError as error:
            count = len(thread_ids)
            _log.warning("Could not tell which of %d threads have games: %s", count, error)
            return None

    async def refused_in(self, thread_id: int, still_closed: Callable[[], bool]) -> bool:
        """An interaction from thread ``thread_id`` was refused as locked for me (Discord's own
        word, in the interaction: fresher than the cache the events keep, which may have missed
        the lock or my Manage Threads taken away): if a game is played there and the thread is
        not held, its hold begins, from when its player's turn began — Discord does not say
        since when it is locked, and the lock may be as old as that (held from now, its player
        would be left less time than the turn had when it was locked: as for a lock found at
        the deadline, bot/flow/locked_threads.py). ``still_closed`` says whether the thread is
        still closed once the changes heard of before are weighed (an unlock, or Manage Threads
        given me, heard of since the interaction came: then it is not held). Returns whether
        the thread is held (False: no game there, or the database cannot say)."""
        async with self.in_turn(thread_id):  # after the lock's or unlock's event heard before
            if self.thread_held(thread_id):
                return True
            try:
                active = await self.bot.services.games.in_channel(thread_id)
            except StorageError as error:
                _log.warning("Could not tell whether thread %s has a game: %s", thread_id, error)
                return False
            if active is None:
                return False
            since = await self.turn_began(active.set_id)
            if not still_closed():  # weighed after the reads: a change heard of meanwhile
                return False
            _log.info("An interaction from thread %s was refused as locked for me", thread_id)
            await self.thread_closed(thread_id, since, guild_id=active.guild_id)
            return self.thread_held(thread_id)

    async def turn_began(self, set_id: int) -> datetime:
        """When the turn of set ``set_id``'s player to move began — its last move, or the
        takeback that gave it back, or the set's start (``GameService.turn_began``) — from which
        a lock found late is held: not its deadline less its time per move, which time given
        back during the turn makes later than that (and the hold's give-back, less the time
        given meanwhile, would leave the player short). Now if it is not in progress or the
        database cannot say."""
        try:
            began = await self.bot.services.games.turn_began(set_id)
        except StorageError as error:
            _log.warning("Could not tell when the turn of game %s began: %s", set_id, error)
            return self.bot.clock()
        return self.bot.clock() if began is None else began

    async def played_in(self, thread_id: int, still_open: Callable[[], bool]) -> None:
        """An interaction from thread ``thread_id`` was answered for all to see (Discord took a
        message of mine there): if the thread is held, it is not closed to its players after
        all (the cache held it locked for me; or missed its unlock, which Discord showed before
        the interaction went on — then called at once, however it is answered: bot/errors.py
        ``still_locked_for_me``; or my Manage Threads
        given back), so its hold ends, its time given back once. ``still_open`` says whether the
        thread is still open once the changes heard of before are weighed (a lock heard of as
        the interaction was answered keeps it held)."""
        if not self.thread_held(thread_id):
            return
        async with self.in_turn(thread_id):
            if self.thread_held(thread_id) and still_open():
                _log.info("An interaction from held thread %s was answered there", thread_id)
                await self.thread_opened(thread_id)

    def thread_held(self, thread_id: int) -> bool:
        """Whether thread ``thread_id`` is held, closed to its players by a moderator's lock."""
        return thread_id in self._closed_threads

    async def thread_locked(self, thread_id: int, guild_id: int | None = None) -> None:
        """A moderator closed thread ``thread_id`` to its players (of server ``guild_id``, as
        Discord's event says): held (:meth:`thread_closed`) when a game is being played in it
        — any other thread is not kept; if the database cannot say, it is held (and stored
        with its server, so that the process running that server takes it up again)."""
        try:
            active = await self.bot.services.games.in_channel(thread_id)
        except StorageError as error:
            _log.warning("Could not tell whether thread %s has a game: %s", thread_id, error)
        else:
            if active is None:
                return
            guild_id = active.guild_id
        await self.thread_closed(thread_id, guild_id=guild_id)

    async def thread_closed(
        self, thread_id: int, since: datetime | None = None, *, guild_id: int | None = None
    ) -> None:
        """A moderator closed thread ``thread_id`` to its players (at ``since``, if it was
        before now): locked and archived (only members with Manage Threads may open it again,
        and Discord's clients offer no commands in an archived thread), or locked where I lack
        Manage Threads (Discord takes no message of mine there), so its players cannot play.
        Its game is not lost on time meanwhile (:meth:`thread_opened` gives the time back,
        from ``since``, less what was given back to its clock meanwhile); an admin's ``/abort``
        still ends it."""
        now = self.bot.clock()
        if since is None or since > now:
            since = now
        hold = Hold(HoldKind.THREAD, thread_id, since, guild_id)
        if self._begins_again(hold, keep=True):
            return
        if thread_id in self._closed_threads:  # its hold goes on (one whose end failed too)
            self._unended.pop((HoldKind.THREAD, thread_id), None)
            return
        _log.info("Thread %s is locked for its players: its clocks stand still", thread_id)
        self._closed_threads[thread_id] = since
        await self._keep(hold)

    async def thread_opened(self, thread_id: int) -> None:
        """Thread ``thread_id`` is no longer closed to its players: its game's clock, and its
        takeback request's expiry, are given back the time it was."""
        await self._end((HoldKind.THREAD, thread_id), self._closed_threads, channel_id=thread_id)

    async def _end(
        self,
        hold: tuple[HoldKind, int],
        places: dict[int, datetime],
        *,
        channel_id: int,
    ) -> None:
        """End the hold of a thread kept in ``places``: once its time is given back (to the
        thread ``channel_id``'s clock and request), it is no longer held; until then (or if
        the database fails it) it stays, so a check meanwhile does not end its games. A second
        end meanwhile gives nothing."""
        kind, place_id = hold
        since = places.get(place_id)
        if since is None or self._ends_again(hold):
            return
        self._ending.add(hold)
        until = self._ended(hold)
        given = False
        try:
            given = await self._give_back(
                since, until, f"{kind.value} {place_id}", hold, channel_id=channel_id
            )
        finally:
            await self._after_end(hold, places, given, until)

    def _begins_again(self, hold: Hold, *, keep: bool) -> bool:
        """Whether ``hold`` begins while its place's last hold is being given its time back
        (then it is noted, to begin once that is done; ``keep``: to be stored)."""
        place = (hold.kind, hold.place_id)
        if place not in self._ending:
            return False
        self._again.setdefault(place, (hold, keep))
        return True

    def _ends_again(self, hold: tuple[HoldKind, int]) -> bool:
        """Whether ``hold`` is being given its time back already: then this end gives nothing,
        and ends the hold that began meanwhile, if one did (its seconds are not given)."""
        if hold not in self._ending:
            return False
        self._again.pop(hold, None)
        return True

    def _ended(self, hold: tuple[HoldKind, int]) -> datetime:
        """When ``hold``, ending now, ended: now, or when it first did if its time could not
        be given back then (:attr:`_unended`)."""
        return self._unended.get(hold) or self.bot.clock()

    async def _after_end(
        self,
        hold: tuple[HoldKind, int],
        places: dict[int, datetime],
        given: bool,
        until: datetime,
    ) -> None:
        """The give-back of ``hold``, kept in ``places``, ended at ``until``, is done, its
        time ``given`` back or not (the database failed: then it is tried again, up to
        ``until``). A hold of the same place that began
        meanwhile begins now (it was not lost in the give-back); if the give-back failed, the
        first hold simply goes on."""
        kind, place_id = hold
        self._ending.discard(hold)
        again = self._again.pop(hold, None)
        if given:
            self._unended.pop(hold, None)
            places.pop(place_id, None)
        elif again is None:
            self._unended.setdefault(hold, until)
        if again is None:
            return
        self._unended.pop(hold, None)
        begun, keep = again
        if given:
            _log.info("%s %s is held again: its clocks stand still", kind.value, place_id)
            places[place_id] = begun.since
            if keep:
                await self._keep(begun)

    async def _end_again(self) -> None:
        """Try again to give back the time of the holds that ended while the database failed
        (a server's is tried again by :meth:`_unavailable_servers`, as long as the cache shows
        it available)."""
        for kind, place_id in sorted(self._unended, key=lambda hold: hold[1]):
            if kind is HoldKind.SHARD:
                await self.shard_up(place_id)
            elif kind is HoldKind.THREAD:
                await self.thread_opened(place_id)

    async def _give_back(
        self,
        since: datetime,
        until: datetime,
        what: str,
        hold: tuple[HoldKind, int],
        *,
        channel_id: int | None = None,
        shard: Shards | None = None,
    ) -> bool:
        """Give the time from ``since`` to ``until`` back to the clocks and requests of a thread
        or a shard's servers (``what`` names it in the log) its players could not play
        in — to each the part not given to it already (a restart or another hold during this
        one, say: given once, not twice, and the hours around it still given); after a minute
        or more the boards and requests show their new times. Returns whether it did (False:
        the database failed, and the hold stays)."""
        if since >= until:
            return await self._release(*hold)
        try:
            resumed = await self.bot.services.games.give_back_closed(
                since,
                until,
                channel_id=channel_id,
                shard=shard,
                releasing=hold,
            )
        except StorageError as error:
            _log.warning("Could not give the clocks of %s back its time: %s", what, error)
            return False
        self._given_back(what, resumed)
        if until - since >= SHOWN_OUTAGE:
            self.timers.moved(resumed)
        return True

    @staticmethod
    def _given_back(what: str, resumed: Resumed) -> None:
        """Log what the end of the hold of ``what`` moved on, if anything."""
        if resumed.clocks or resumed.expiries:
            _log.info(
                "Gave %d game clocks and %d challenges or takeback requests of %s back %s",
                len(resumed.clocks),
                len(resumed.expiries),
                what,
                resumed.away,
            )

    async def held(self) -> Held:
        """The servers in an outage, the threads closed to their players and the servers of the
        shards the gateway dropped: nobody can play in them now, so their clocks stand still
        and their reminders wait. The holds whose time could not be given back as they ended
        are given it now, if the database lets."""
        if self._unended:
            await self._end_again()
        return Held(
            frozenset(await self._unavailable_servers() | set(self._closed_threads)),
            frozenset(self._down),
            self.bot.shard_count or 1,
        )

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
