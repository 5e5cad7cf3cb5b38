"""Deadlines: challenge expiry, reminders, loss on time and archiving threads.

A player is reminded at half time, and on a timer of an hour or more again shortly before it
runs out (``LAST_REMINDER_*`` in bot/services/domain.py); before each reminder Discord is asked
whether they are still a member of the server: one who has left loses the set at once instead
(bot/flow/departures.py).

The deadlines are rows in the database (the services keep them); this loop only asks, every
``timer_interval``, which ones are due and tells the channel. Nothing is held in memory, so after
a restart the first check picks up everything that fell due while the bot was away — except the
move clocks, challenges and takeback requests, which stand still while it is away: the loop notes
every ``RECORD_EVERY`` (and at a clean stop) that it runs, and at start-up the time since is given
back to every clock that was running then and to the expiry of every challenge and takeback
request that was open then (nobody can move, accept or answer while the bot is down); once
connected, their boards and messages are edited to show the new times. The same holds while
Discord's gateway has dropped a shard of the running bot (no interaction reaches it from that
shard's servers then): their deadlines stand still, and the time is given back to them once it
is connected again; the other shards' servers go on (with one shard, the checks wait). The
computer's pending turns are resumed at start-up too.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import re
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.errors import UNREACHABLE
from bot.flow.posts import NO_PINGS, pinging
from bot.flow.vanished import Gone, unknown_channel
from bot.i18n import Language
from bot.services.absence import MovedExpiry
from bot.services.domain import ActiveGame
from bot.services.errors import GameError, NoGameHere
from bot.services.held import Held, Hold, HoldKind
from bot.shards import Shards
from bot.storage.errors import StorageError
from engine import Side

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

_TIMESTAMP = re.compile(r"<t:-?\d+:R>")
"""A Discord relative timestamp, as a board's turn line shows its deadline (and a challenge or
takeback request its expiry)."""

RECORD_EVERY = timedelta(seconds=10)
"""How often the timers note in the database that they are running: a restart gives the move
clocks, challenges and takeback requests back the time since (at most this much more than the bot
was really away)."""

SHOWN_OUTAGE = timedelta(minutes=1)
"""An outage of the gateway at least this long has the boards and requests whose deadlines it
moved on edited to show the new times (a shorter one moves them by less than their relative
timestamps show)."""

GIVEN_TO_ALL_KEPT = 64
"""How many of the latest absences given back to every clock are remembered, to be taken off a
server's or thread's hold that overlaps them (a gateway that drops more often than this within
one hold gives that hold the oldest drops' time twice)."""

STALLED_RETRY = timedelta(minutes=1)
"""When the computer gave up on a move, it tries again after this (doubling, at most hourly)."""
STALLED_RETRY_MAX = timedelta(hours=1)


class Timers:
    """The background loop that acts on due deadlines."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None
        self._recorded = datetime.min.replace(tzinfo=UTC)
        """When the timers' running was last noted in the database."""
        self._stalled: dict[int, _Stalled] = {}
        """Computer turns that failed, by game id (a restart resumes them anyway)."""
        self._moved_clocks: list[tuple[int, int, datetime]] = []
        """The sets whose clocks :meth:`resume_clocks` moved on, for their boards."""
        self._moved_expiries: list[MovedExpiry] = []
        """The challenges and takeback requests :meth:`resume_clocks` gave time, for their
        messages."""
        self._down: dict[int, datetime] = {}
        """The shards Discord's gateway has dropped (no interaction reaches me for their
        servers), and since when (:meth:`shard_down`)."""
        self._outages: dict[int, datetime] = {}
        """The servers Discord says are unavailable (an outage of theirs), and since when."""
        self._closed_threads: dict[int, datetime] = {}
        """The game threads a moderator locked and archived, and since when."""
        self._ending: set[tuple[HoldKind, int]] = set()
        """The holds whose time is being given back: another end of the same hold meanwhile
        (two events for one server's return, say) gives nothing."""
        self._kept_shards: dict[tuple[int, int], datetime] = {}
        """Shard holds kept from before a restart, by ``(shard id, shard count)``: the shard's
        connection at start-up ends its hold (:meth:`shard_up`)."""
        self._given_to_all: list[tuple[datetime, datetime]] = []
        """The absences (the bot's, at start-up; the gateway's) whose time was given back to
        every clock, oldest first: a server's or thread's hold that overlaps one gives back
        only the rest of its time (:meth:`_give_back`). At most ``GIVEN_TO_ALL_KEPT``."""

    async def resume_clocks(self) -> None:
        """Before the first interaction: give the move clocks, challenges and takeback requests
        back the time the bot was away. The boards and requests showing the old times are
        corrected once the bot is connected."""
        resumed = await self.bot.services.games.resume_clocks(self.bot.clock())
        self._moved_clocks, self._moved_expiries = resumed.clocks, resumed.expiries
        self._recorded = now = self.bot.clock()
        if resumed.away > timedelta(0):
            self._given_to_all.append((now - resumed.away, now))
            del self._given_to_all[:-GIVEN_TO_ALL_KEPT]
        await self._reload_holds()
        if self._moved_clocks or self._moved_expiries:
            _log.info(
                "Gave %d game clocks and %d challenges or takeback requests back the %s the bot "
                "was away",
                len(self._moved_clocks),
                len(self._moved_expiries),
                resumed.away,
            )

    async def _reload_holds(self) -> None:
        """Take up the holds kept before the restart: the servers in an outage and the threads
        locked and archived then are held from when they were (their time back at their end,
        less the bot's absence, given to every clock already); the threads are asked of
        Discord once connected (:meth:`_recheck_closed_threads`)."""
        try:
            kept = await self.bot.services.holds.kept()
        except StorageError as error:
            _log.warning("Could not read the holds kept before the restart: %s", error)
            return
        for hold in kept:
            if hold.kind is HoldKind.SERVER:
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

    async def _release(self, kind: HoldKind, place_id: int) -> None:
        """The hold of ``kind`` ``place_id`` is over, with no time to give back."""
        try:
            await self.bot.services.holds.release(kind, place_id)
        except StorageError as error:
            _log.warning("Could not end the hold of %s %s: %s", kind.value, place_id, error)

    def _running_shards(self) -> set[int]:
        """The shards this process runs (every shard of the count, unless it names some)."""
        named = self.bot.shard_ids
        return set(named) if named else set(range(self.bot.shard_count or 1))

    def _all_down(self) -> bool:
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
        if self._task is None:  # not checking (stopped): the stop noted the time
            return
        if shard_id in self._down:
            return
        _log.info("The gateway dropped shard %s: its clocks stand still", shard_id)
        self._down[shard_id] = since = self.bot.clock()
        if not self._running_shards() <= {shard_id}:  # one of several: kept across a restart
            count = self.bot.shard_count or 1
            await self._keep(Hold(HoldKind.SHARD, shard_id, since, shard_count=count))

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
        if (HoldKind.SHARD, shard_id) in self._ending:
            return
        self._ending.add((HoldKind.SHARD, shard_id))
        try:
            if self._running_shards() <= {shard_id}:
                await self._give_back_outage(since)
            else:
                await self._give_back(
                    since,
                    f"shard {shard_id}",
                    (HoldKind.SHARD, shard_id),
                    shard=Shards(count, (shard_id,)),
                )
        finally:  # whatever failed, its servers' checks go on
            self._down.pop(shard_id, None)
            self._ending.discard((HoldKind.SHARD, shard_id))
        self.bot.spawn(self._show_moved_deadlines(), name="brandubh-moved-deadlines")
        self.bot.spawn(self._recheck_closed_threads(), name="brandubh-closed-threads")

    async def _give_back_outage(self, since: datetime) -> None:
        """The gateway is back for the one shard of this process: the time since it was
        dropped (not since the last note of the timers, up to ``RECORD_EVERY`` before it) is
        given back to every clock, challenge and takeback request, once."""
        now = self.bot.clock()
        if since >= now:
            return
        try:
            resumed = await self.bot.services.games.give_back_outage(since, now)
        except StorageError as error:
            _log.warning("Could not give the clocks back the outage: %s", error)
            return
        self._recorded = now
        self._given_to_all.append((since, now))
        del self._given_to_all[:-GIVEN_TO_ALL_KEPT]
        if now - since >= SHOWN_OUTAGE:
            self._moved_clocks += resumed.clocks
            self._moved_expiries += resumed.expiries

    async def _recheck_closed_threads(self) -> None:
        """After the gateway was down (a thread opened meanwhile sent me nothing, and would
        otherwise be held for as long as the bot runs): each held thread is asked of Discord,
        and one no longer locked and archived is opened, its time given back."""
        for thread_id in list(self._closed_threads):
            if not await self.bot.flow.vanished.still_closed(thread_id):
                await self.thread_opened(thread_id)

    async def server_unavailable(self, guild_id: int) -> None:
        """Discord says server ``guild_id`` is unavailable (an outage of that server): nobody
        there can move, accept a challenge or answer a takeback request, so nobody there
        loses on time until it is back (:meth:`server_available` gives the time back)."""
        if guild_id in self._outages:
            return
        _log.info("Server %s is unavailable: its clocks stand still", guild_id)
        self._outages[guild_id] = since = self.bot.clock()
        await self._keep(Hold(HoldKind.SERVER, guild_id, since, guild_id))

    async def server_available(self, guild_id: int) -> None:
        """Server ``guild_id`` is available again: its move clocks, challenges and takeback
        requests are given back the time it was not (never more than each had run)."""
        since = self._outages.get(guild_id)
        hold = (HoldKind.SERVER, guild_id)
        if since is None or hold in self._ending:
            return
        self._ending.add(hold)
        try:
            # Held until its time is given back: a check meanwhile must not end its games.
            await self._give_back(since, f"server {guild_id}", hold, guild_id=guild_id)
            self._outages.pop(guild_id, None)
        finally:
            self._ending.discard(hold)

    async def server_left(self, guild_id: int) -> None:
        """The bot was removed from server ``guild_id``: its games are aborted, so a hold of
        it ends with nothing to give back (should it invite the bot back, its new games are
        not held for the old outage)."""
        if self._outages.pop(guild_id, None) is not None:
            await self._release(HoldKind.SERVER, guild_id)

    def holds_thread(self, thread_id: int) -> bool:
        """Whether thread ``thread_id`` is held, locked and archived by a moderator."""
        return thread_id in self._closed_threads

    async def thread_locked(self, thread_id: int) -> None:
        """A moderator locked and archived thread ``thread_id``: held (:meth:`thread_closed`)
        when a game is being played in it — any other thread is not kept; if the database
        cannot say, it is held."""
        guild_id: int | None = None
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
        """A moderator locked and archived thread ``thread_id`` (at ``since``, if it was
        before now): only members with Manage Threads may open it again, and Discord's clients
        offer no commands in an archived thread, so its players cannot play. Its game is not
        lost on time meanwhile (:meth:`thread_opened` gives the time back, from ``since``,
        less the absences of the bot or the gateway given back meanwhile); an admin's
        ``/abort`` still ends it."""
        if thread_id in self._closed_threads:
            return
        _log.info("Thread %s is locked and archived: its clocks stand still", thread_id)
        now = self.bot.clock()
        if since is None or since > now:
            since = now
        self._closed_threads[thread_id] = since
        await self._keep(Hold(HoldKind.THREAD, thread_id, since, guild_id))

    async def thread_opened(self, thread_id: int) -> None:
        """Thread ``thread_id`` is no longer locked and archived: its game's clock, and its
        takeback request's expiry, are given back the time it was."""
        since = self._closed_threads.get(thread_id)
        hold = (HoldKind.THREAD, thread_id)
        if since is None or hold in self._ending:
            return
        self._ending.add(hold)
        try:
            # Held until its time is given back: a check meanwhile must not end its game.
            await self._give_back(since, f"thread {thread_id}", hold, channel_id=thread_id)
            self._closed_threads.pop(thread_id, None)
        finally:
            self._ending.discard(hold)

    async def _give_back(
        self,
        since: datetime,
        what: str,
        hold: tuple[HoldKind, int],
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        shard: Shards | None = None,
    ) -> None:
        """Give the time since ``since`` back to the clocks and requests of a server, a
        thread or a shard's servers (``what`` names it in the log) its players could not play
        in, less the
        absences of the bot or the gateway already given back to every clock in that time
        (a restart during the hold, say: given once, not twice, and the hours before it still
        given); after a minute or more the boards and requests show their new times."""
        now = self.bot.clock()
        given = sum(
            (
                max(timedelta(0), min(end, now) - max(start, since))
                for start, end in self._given_to_all
            ),
            timedelta(0),
        )
        held = now - since - given
        if held <= timedelta(0):
            await self._release(*hold)
            return
        since = now - held
        try:
            resumed = await self.bot.services.games.give_back_closed(
                since,
                now,
                guild_id=guild_id,
                channel_id=channel_id,
                shard=shard,
                releasing=hold,
            )
        except StorageError as error:
            _log.warning("Could not give the clocks of %s back its time: %s", what, error)
            return
        if resumed.clocks or resumed.expiries:
            _log.info(
                "Gave %d game clocks and %d challenges or takeback requests of %s back %s",
                len(resumed.clocks),
                len(resumed.expiries),
                what,
                resumed.away,
            )
        if now - since >= SHOWN_OUTAGE:
            self._moved_clocks += resumed.clocks
            self._moved_expiries += resumed.expiries
            self.bot.spawn(self._show_moved_deadlines(), name="brandubh-moved-deadlines")

    async def _held(self) -> Held:
        """The servers in an outage, the threads locked and archived and the servers of the
        shards the gateway dropped: nobody can play in them now, so their clocks stand still
        and their reminders wait."""
        return Held(
            frozenset(await self._unavailable_servers() | set(self._closed_threads)),
            frozenset(self._down),
            self.bot.shard_count or 1,
        )

    async def _unavailable_servers(self) -> set[int]:
        """The servers in an outage now: those Discord said were unavailable, and any the
        cache holds as unavailable (one that was so when the bot connected), noted from now.
        One the cache holds as available again is no longer held, its time given back: it
        may have come back in a GUILD_CREATE that discord.py reports as a join, not as the
        server available (``unavailable`` missing rather than false). One the bot is no
        longer in (removed during its outage) is forgotten: its games were aborted, and should
        it come back its new games are not held."""
        for guild_id in list(self._outages):
            guild = self.bot.get_guild(guild_id)
            if guild is None:
                await self.server_left(guild_id)
            elif not guild.unavailable:
                await self.server_available(guild_id)
        for guild in self.bot.guilds:
            if guild.unavailable and guild.id not in self._outages:
                await self.server_unavailable(guild.id)
        return set(self._outages)

    async def _show_moved_deadlines(self) -> None:
        """Each board with buttons of a set whose clock was given time says the new deadline,
        and each challenge or takeback request given time its new expiry (the message's one
        Discord timestamp is replaced; a board's picture does not show the time)."""
        moved, self._moved_clocks = self._moved_clocks, []
        for set_id, channel_id, deadline in moved:
            board = await self.bot.services.games.live_board(channel_id)
            if board is not None:
                await self._show_time(channel_id, board, deadline, f"the board of set {set_id}")
        expiries, self._moved_expiries = self._moved_expiries, []
        for moved_expiry in expiries:
            if moved_expiry.message_id is not None:
                await self._show_time(
                    moved_expiry.channel_id,
                    moved_expiry.message_id,
                    moved_expiry.expires_at,
                    f"{moved_expiry.kind.value} {moved_expiry.row_id}",
                )

    async def _show_time(self, channel_id: int, message_id: int, when: datetime, what: str) -> None:
        """Replace the one Discord timestamp in the text of the bot's message with ``when``,
        pinging nobody again; a message without exactly one, or one Discord will not let the
        bot read or edit, is left as it is (``what`` names it in the log)."""
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            shown = await message.fetch()
            stamps = len(_TIMESTAMP.findall(shown.content))
            if stamps != 1:
                _log.info("Not showing the new time on %s: it has %d timestamps", what, stamps)
                return
            content = _TIMESTAMP.sub(f"<t:{int(when.timestamp())}:R>", shown.content)
            await shown.edit(content=content, allowed_mentions=NO_PINGS)
        except discord.HTTPException as error:
            _log.info("Could not show the new time on %s (message %s): %s", what, message_id, error)

    def start(self) -> None:
        """Start checking (and resume the computer's turns in active games)."""
        self._task = asyncio.create_task(self._run(), name="brandubh-timers")

    async def stop(self) -> None:
        """Stop checking; a check in progress is cancelled. The time is noted: the clocks
        stand still from here until the next start (while the gateway is down, from when the
        timers last ran before it went down: that note is left as it is)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            if self._all_down():
                # The gateway is down: the clocks have stood still since the timers last ran
                # (noted then), and the next start gives that time back with its own.
                _log.info("Stopping while the gateway is down: its outage is given back later")
                return
            try:
                await self.bot.services.games.timers_ran(self.bot.clock())
            except StorageError as error:
                _log.warning("Could not note when the timers stopped: %s", error)

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        try:
            await self.bot.flow.vanished.servers_left()
        except Exception:
            _log.exception("Could not look for the servers the bot was removed from")
        try:
            await self.resume_computer_turns()
        except Exception:
            _log.exception("Could not resume the computer's turns")
        try:
            await self._show_moved_deadlines()
        except Exception:
            _log.exception("Could not show the deadlines moved at start-up")
        try:  # those held before the restart: one opened meanwhile told me nothing
            await self._recheck_closed_threads()
        except Exception:
            _log.exception("Could not ask Discord about the threads held before the restart")
        interval = self.bot.settings.timer_interval.total_seconds()
        while True:
            if self._all_down():  # Discord cannot reach me: the clocks stand still
                await asyncio.sleep(interval)
                continue
            try:
                await self.check(self.bot.clock())
            except asyncio.CancelledError:
                raise
            except StorageError as error:
                _log.warning("Checking deadlines: %s; trying again in %.1f s", error, interval)
            except Exception:
                _log.exception("Checking deadlines failed; trying again in %.1f s", interval)
            await asyncio.sleep(interval)

    async def resume_computer_turns(self) -> None:
        """Let the computer move in every active game where it was to move at shutdown; its
        board replaces the player's "… I am thinking…" line, as it would have without the
        restart."""
        for active in await self.bot.services.games.active():
            if active.computer_to_move:
                await self._start_computer_turn(active)

    async def _start_computer_turn(self, active: ActiveGame) -> None:
        """Start the computer's turn again, its board to replace the player's "… I am
        thinking…" line (the message that went out for the player's move; if the database
        cannot say which now, the board comes as a new message — the turn starts anyway)."""
        try:
            thinking = await self.bot.services.announcements.message_of(active.set_id, active.ply)
        except StorageError as error:
            _log.warning("Could not find game %s's last line: %s", active.set_id, error)
            thinking = None
        self.bot.flow.start_computer_turn(active, reply_in=thinking)

    def computer_stalled(self, set_id: int, ply: int) -> bool:
        """The computer gave up on its move at ``ply``: try again later.

        True the first time at this ply (the players have not been told yet).
        """
        previous = self._stalled.get(set_id)
        if previous is None or previous.ply != ply:
            self._stalled[set_id] = _Stalled(ply, self.bot.clock() + STALLED_RETRY, STALLED_RETRY)
            return True
        wait = min(previous.wait * 2, STALLED_RETRY_MAX)
        self._stalled[set_id] = _Stalled(ply, self.bot.clock() + wait, wait)
        return False

    def computer_unstalled(self, set_id: int) -> None:
        """The computer moved in ``set_id``: forget any earlier failure."""
        self._stalled.pop(set_id, None)

    async def retry_stalled(self, now: datetime) -> None:
        """Start again the computer turns that failed and whose retry time has come."""
        for set_id, stalled in list(self._stalled.items()):
            if stalled.retry_at is None or stalled.retry_at > now:
                continue
            try:
                active = await self.bot.services.games.get(set_id)
            except NoGameHere:
                del self._stalled[set_id]
                continue
            if not active.computer_to_move or active.ply != stalled.ply:
                del self._stalled[set_id]
                continue
            self._stalled[set_id] = _Stalled(stalled.ply, None, stalled.wait)
            await self._start_computer_turn(active)

    async def check(self, now: datetime) -> None:
        """Expire challenges, remind players (at half time, and shortly before their time runs
        out), end games on time, post owed boards and the daily puzzle, archive threads, and
        retry the computer's failed turns. Each step runs on its own: one that fails is logged
        and the others still run."""
        services = self.bot.services
        if now - self._recorded >= RECORD_EVERY:  # where an absence would start
            await services.games.timers_ran(now)
            self._recorded = now
        await self._step("retrying the computer's turns", self.retry_stalled(now))
        held = await self._held()  # nobody can answer there now: their requests wait
        await self._step("expiring challenges", self._expire_challenges(now, held))
        await self._step("reminding players", self._remind(now))
        await self._step("lapsing takebacks", self.bot.flow.takebacks.lapse(held))
        await self._step("posting owed boards", self.bot.flow.outbox.deliver())
        await self._step("posting the daily puzzle", self.bot.puzzles.post_daily(now))
        await self._step("archiving threads", self._archive_due(now))
        # Last, so that a board owed for a move is out before the set's end is announced.
        await self._step("ending games on time", self._time_out(now))

    async def _step(self, what: str, work: Coroutine[Any, Any, None]) -> None:
        """Run one step of a check; its failure is logged (the next check tries again)."""
        try:
            await work
        except StorageError as error:
            _log.warning("Timers, %s: %s", what, error)
        except Exception:
            _log.exception("Timers, %s, failed", what)

    async def _time_out(self, now: datetime) -> None:
        games = self.bot.services.games
        # Nobody could play in a server Discord says is unavailable, nor in a thread locked and
        # archived: their clocks stand still.
        due = (await games.out_of_time(now)).outside(await self._held())
        closed = await self.bot.flow.vanished.before_time_out(due.channel_ids)
        guilds = {row.channel_id: row.guild_id for row in due.rows}
        for thread_id, since in closed.items():  # found so (locked while I was away, say)
            await self.thread_closed(thread_id, since, guild_id=guilds.get(thread_id))
        due = due.outside(Held(frozenset(closed)))
        for end in await games.time_out(due):
            # Each ended set is announced on its own: one that fails (its board is then owed)
            # leaves the others' announcements, next sets and lines to come.
            try:
                await self.bot.flow.announce_set_end(end)
            except (discord.HTTPException, *UNREACHABLE) as error:
                _log.warning("Could not announce timeout in game %s: %r", end.game.set_id, error)
                await self._gone_if_unknown(end.game.channel_id, error)
            except StorageError:
                raise
            except Exception:
                _log.exception("Announcing the timeout in game %s failed", end.game.set_id)

    async def _expire_challenges(self, now: datetime, held: Held) -> None:
        for challenge in await self.bot.services.challenges.expire_due(now, held=held):
            try:
                await self.bot.flow.challenges.show_expired(challenge)
            except discord.HTTPException as error:
                _log.warning(
                    "Could not mark challenge %s expired: %s", challenge.challenge_id, error
                )
                await self._gone_if_unknown(challenge.channel_id, error)

    async def _remind(self, now: datetime) -> None:
        services = self.bot.services
        # Nobody can play in a server's outage or a locked thread, and a post there would be
        # refused: their reminders wait until they can.
        held = await self._held()
        half_time = await services.games.reminders_due(now, held=held)
        last = await services.games.last_reminders_due(now, held=held)
        lasts = {(active.set_id, active.ply) for active in last}
        # A half-time reminder still due when the last one is (Discord was down meanwhile) is
        # not posted as well: the last says it all.
        due = [active for active in half_time if (active.set_id, active.ply) not in lasts]
        for active in due + last:
            is_last = (active.set_id, active.ply) in lasts
            try:
                if await self._ended_for_leaving(active):
                    continue
            except (StorageError, GameError) as error:
                # The departed player's set could not be ended now (a busy database): this
                # reminder is due again at the next check, which asks again; the other games'
                # reminders go on.
                _log.warning("Game %s: a departure could not be handled: %r", active.set_id, error)
                await self._reminder_due_again(active, last=is_last)
                continue
            lang = await self.bot.flow.server_language(active.guild_id)
            reminder = reminder_text(active, lang, last=is_last)
            posted = await self._post(active.channel_id, reminder, ping=active.player_to_move)
            if posted is _Posted.REFUSED and await self._found_closed(active):
                posted = _Posted.LATER  # its thread is held now: posted once it opens
            if posted is _Posted.LATER:
                # Discord could not take it now (an outage): the next check tries again.
                await self._reminder_due_again(active, last=is_last)

    async def _reminder_due_again(self, active: ActiveGame, *, last: bool) -> None:
        """Undo the note that ``active``'s reminder was posted, so the next check posts it."""
        games = self.bot.services.games
        try:
            if last:
                await games.last_reminder_not_posted(active.set_id, active.ply)
            else:
                await games.reminder_not_posted(active.set_id, active.ply)
        except StorageError as error:  # then this one reminder is lost, not the others
            _log.warning("Game %s: its reminder stays noted as posted: %r", active.set_id, error)

    async def _ended_for_leaving(self, active: ActiveGame) -> bool:
        """Before a reminder: whether the player to move has left the server (Discord is
        asked); if so their set is ended and announced instead (bot/flow/departures.py)."""
        end = await self.bot.flow.departures.forfeit_if_left(active)
        if end is None:
            return False
        try:
            await self.bot.flow.announce_set_end(end)
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning("Could not announce game %s's end: %r", active.set_id, error)
            await self._gone_if_unknown(active.channel_id, error)
        except StorageError:
            raise
        except Exception:
            _log.exception("Announcing the end of game %s failed", active.set_id)
        return True

    async def _archive_due(self, now: datetime) -> None:
        for match_id, thread_id in await self.bot.services.games.archives_due(now):
            await self._archive(match_id, thread_id)

    async def _archive(self, match_id: int, thread_id: int) -> None:
        """Archive a finished match's thread (its grace period is over); if a new match began
        in it meanwhile (a rematch against the computer, a challenge made in the thread), it is
        opened again at once."""
        try:
            await self.bot.http.edit_channel(thread_id, archived=True)
        except discord.HTTPException as error:
            if error.status >= 500:
                return  # Discord's trouble: the next check tries again
            _log.warning("Could not archive thread %s: %s", thread_id, error)
        services = self.bot.services
        await services.games.thread_archived(match_id)
        if await services.games.in_channel(thread_id) is not None:
            try:
                await self.bot.http.edit_channel(thread_id, archived=False)
            except discord.HTTPException as error:  # its next post opens it anyway
                _log.info("Could not open thread %s again: %s", thread_id, error)

    async def _post(self, channel_id: int, content: str, *, ping: int) -> _Posted:
        """Post ``content`` pinging ``ping``: posted, worth trying again later (Discord could
        not take it: 5xx, the connection, a time-out), or refused. A refusal (4xx: no
        permission, the channel locked) is not retried every few seconds — it would be
        refused again, and each refusal counts towards Discord's limit on invalid requests; a
        channel Discord no longer knows is gone."""
        try:
            await self.bot.get_partial_messageable(channel_id).send(
                content, allowed_mentions=pinging([ping])
            )
        except UNREACHABLE as error:
            _log.warning("Could not post in channel %s yet: %r", channel_id, error)
            return _Posted.LATER
        except discord.HTTPException as error:
            _log.warning("Could not post in channel %s (not retried): %s", channel_id, error)
            await self._gone_if_unknown(channel_id, error)
            return _Posted.REFUSED
        return _Posted.POSTED

    async def _found_closed(self, active: ActiveGame) -> bool:
        """After Discord refused a post in ``active``'s channel: whether it is a thread
        locked and archived (one not in the cache is asked of Discord), now held from when it
        was archived."""
        if self.bot.get_channel(active.channel_id) is not None:
            return False  # cached: not archived (discord.py drops archived threads)
        since = await self.bot.flow.vanished.closed_since(active.channel_id)
        if since is None:
            return False
        await self.thread_closed(active.channel_id, since, guild_id=active.guild_id)
        return True

    async def _gone_if_unknown(self, channel_id: int, error: BaseException) -> None:
        """A post or edit in ``channel_id`` failed with ``error``: if Discord answered Unknown
        Channel, the channel is gone (deleted while the bot was away, or the deletion was
        missed), and its games are aborted as if the bot had been told."""
        if unknown_channel(error):
            await self.bot.flow.vanished.channel_gone(channel_id, Gone.UNKNOWN)


def reminder_text(active: ActiveGame, lang: Language, *, last: bool) -> str:
    """The reminder to the player to move in ``active``: at half time, or the ``last`` one."""
    params = {
        "player": f"<@{active.player_to_move}>",
        "deadline": f"<t:{int(active.deadline.timestamp())}:R>",
    }
    attackers = active.to_move is Side.ATTACKERS
    if last and attackers:
        return lang._(
            "{player}, last reminder: it is your move as the attackers, and your time runs out "
            "{deadline}.",
            **params,
        )
    if last:
        return lang._(
            "{player}, last reminder: it is your move as the defenders, and your time runs out "
            "{deadline}.",
            **params,
        )
    if attackers:
        return lang._(
            "{player}, reminder: it is your move as the attackers. Half your time is gone; it "
            "runs out {deadline}.",
            **params,
        )
    return lang._(
        "{player}, reminder: it is your move as the defenders. Half your time is gone; it runs "
        "out {deadline}.",
        **params,
    )


class _Posted(enum.Enum):
    """What became of a post."""

    POSTED = enum.auto()
    LATER = enum.auto()
    """Discord could not take it now: worth trying again."""
    REFUSED = enum.auto()
    """Discord refused it (4xx): not tried again as it is."""


@dataclass(frozen=True)
class _Stalled:
    """A computer turn that failed: at which ply, when to retry (None: retrying now), the wait."""

    ply: int
    retry_at: datetime | None
    wait: timedelta
