"""Deadlines: challenge expiry, reminders, loss on time and archiving threads.

A player is reminded at half time, and on a timer of an hour or more again shortly before it
runs out (``LAST_REMINDER_*`` in bot/services/domain.py); before each reminder Discord is asked
whether they are still a member of the server: one who has left loses the set at once instead
(bot/flow/departures.py), and one timed out until their deadline or later is not reminded (their
clock is held then, unless it was held this move already: bot/player_holds.py). One who cannot
see the game's channel (an overwrite or a role taken away) is not pinged there, where Discord
would not show them the ping: their reminder waits until they can see it (asked again every
``ASK_AGAIN``), and if they still cannot at their deadline their clock is held instead.

The deadlines are rows in the database (the services keep them); this loop only asks, every
``timer_interval``, which ones are due and tells the channel. Nothing is held in memory, so after
a restart the first check picks up everything that fell due while the bot was away — except the
move clocks, challenges and takeback requests, which stand still while it is away: the loop notes
every ``RECORD_EVERY`` (and at a clean stop) that it runs, and at start-up the time since is given
back to every clock that was running then and to the expiry of every challenge and takeback
request that was open then (nobody can move, accept or answer while the bot is down); once
connected, their boards and messages are edited to show the new times. The same holds where
nobody can play while the bot runs — a server's outage, a locked thread, the servers of a shard
the gateway dropped, a game whose player to move a moderator shut out of its channel
(bot/holds.py): the checks leave them alone, and the time is given back when
they can play again (with one shard and it dropped, the checks wait). The computer's pending
turns are resumed at start-up too.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import re
from collections.abc import Coroutine
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.alike_names import NamesToldApart
from bot.computer_retries import ComputerRetries, StalledTurn
from bot.flow.posts import NO_PINGS, pinging
from bot.flow.threads import edit_reopening
from bot.flow.vanished import Gone, unknown_channel
from bot.holds import Holds
from bot.i18n import Language
from bot.names import mention
from bot.player_holds import ASK_AGAIN
from bot.services.absence import MovedExpiry, Resumed
from bot.services.domain import ActiveGame
from bot.services.errors import GameError
from bot.services.held import Held
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE, not_taken_now
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

FORGET_GIVEN_EVERY = timedelta(hours=1)
"""How often the time given back to clocks, challenges and takeback requests no longer
running is forgotten (bot/services/absence.py), the first time at the first check — by each
process those of its own servers (the process of shard 0 also those of no server): a process
down for long leaves the rows of its servers only, not every server's."""

PRUNE_EVERY = timedelta(hours=1)
"""How often the rows nobody reads again are deleted (bot/services/pruning.py), the first time
at the first check — by each process those of its own servers. A sweep deletes a few batches
at most (a backlog would hold the check up): what it left goes at the next check."""

REMINDERS_AT_ONCE_PER_SERVER = 4
"""How many reminders of one server are under way at once (asking Discord, posting)."""

REMINDERS_AT_ONCE_IN_ALL = 16
"""How many reminders are under way at once in all servers."""

OWED_AT_STOP = timedelta(seconds=5)
"""The longest a stop waits to give back the gateway's outages still owed (the database failed
them, and may not answer now): past it the stop goes on, and the next start gives them back."""


class Timers(ComputerRetries):
    """The background loop that acts on due deadlines."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None
        self._recorded = datetime.min.replace(tzinfo=UTC)
        """When the timers' running was last noted in the database."""
        self._forgotten = datetime.min.replace(tzinfo=UTC)
        """When the time given back to what no longer runs was last forgotten."""
        self._pruned = datetime.min.replace(tzinfo=UTC)
        """When the rows nobody reads again were last deleted."""
        self._prune_more = False
        """Whether the last sweep left rows to delete (a backlog): the next check goes on."""
        self._stalled: dict[int, StalledTurn] = {}
        """Computer turns that failed, by game id (a restart resumes them anyway)."""
        self._moved_clocks: list[tuple[int, int, datetime]] = []
        """The sets whose clocks :meth:`resume_clocks` moved on, for their boards."""
        self._moved_expiries: list[MovedExpiry] = []
        """The challenges and takeback requests :meth:`resume_clocks` gave time, for their
        messages."""
        self.holds = Holds(bot, self)
        """The servers, threads and shards nobody can play in now (bot/holds.py)."""
        self._unseen: dict[int, datetime] = {}
        """By game channel, when its player to move was last found unable to see it: its
        reminder waits, not asked about again for :data:`ASK_AGAIN`."""

    async def resume_clocks(self) -> None:
        """Before the first interaction: give the move clocks, challenges and takeback requests
        back the time the bot was away. The boards and requests showing the old times are
        corrected once the bot is connected."""
        resumed = await self.bot.services.clocks.resume_clocks(self.bot.clock())
        self._moved_clocks, self._moved_expiries = resumed.clocks, resumed.expiries
        self._recorded = self.bot.clock()
        await self.holds.reload()
        if self._moved_clocks or self._moved_expiries:
            _log.info(
                "Gave %d game clocks and %d challenges or takeback requests back the %s the bot "
                "was away",
                len(self._moved_clocks),
                len(self._moved_expiries),
                resumed.away,
            )

    @property
    def running(self) -> bool:
        """Whether the timers are checking (started, not stopped)."""
        return self._task is not None

    def noted(self, now: datetime) -> None:
        """The timers' running was noted in the database at ``now``."""
        self._recorded = now

    def moved(self, resumed: Resumed) -> None:
        """The clocks, challenges and takeback requests ``resumed`` moved on show their new
        times soon."""
        self._moved_clocks += resumed.clocks
        self._moved_expiries += resumed.expiries
        self.bot.spawn(self._show_moved_deadlines(), name="brandubh-moved-deadlines")

    async def _show_moved_deadlines(self) -> None:
        """Each board with buttons of a set whose clock was given time says the new deadline,
        and each challenge or takeback request given time its new expiry (the message's one
        Discord timestamp is replaced; a board's picture does not show the time)."""
        moved, self._moved_clocks = self._moved_clocks, []
        for set_id, channel_id, deadline in moved:
            board = await self.bot.services.boards.live_board(channel_id)
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
            await edit_reopening(self.bot, shown, content=content, allowed_mentions=NO_PINGS)
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info("Could not show the new time on %s (message %s): %s", what, message_id, error)

    def start(self) -> None:
        """Start checking (and resume the computer's turns in active games)."""
        self._task = asyncio.create_task(self._run(), name="brandubh-timers")

    async def stop(self) -> None:
        """Stop checking; a check in progress is cancelled. The gateway's outages still owed
        are given back, if the database lets within ``OWED_AT_STOP``. The time is noted: the
        clocks stand still from here until the next start (while the gateway is down, or an
        outage of it could not be given back yet, from when the timers last ran before it went
        down: that note is left as it is, and the next start gives the outage back with its
        own time)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            if self.holds.outage_owed:
                # In the background, waited for a while only: the database failed it lately,
                # and a stop that hangs on it is killed by the service manager.
                giving = self.bot.spawn(self._give_back_owed(), name="brandubh-owed-at-stop")
                await asyncio.wait({giving}, timeout=OWED_AT_STOP.total_seconds())
            if self.holds.all_down() or self.holds.outage_owed:
                # The gateway is down, or its outage is still owed: the clocks have stood
                # still since the timers last ran (noted then), and the next start gives that
                # time back with its own.
                _log.info(
                    "Stopping while the gateway is down or its outage owed: "
                    "the outage is given back at the next start"
                )
                return
            try:
                await self.bot.services.clocks.timers_ran(self.bot.clock())
            except StorageError as error:
                _log.warning("Could not note when the timers stopped: %s", error)

    async def _give_back_owed(self) -> None:
        """At a stop: give back the gateway's outages still owed, if the database lets."""
        try:
            await self.holds.give_back_owed()
        except StorageError as error:
            _log.warning("Could not give back the gateway's outage owed: %s", error)

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
            await self.holds.recheck_closed_threads()
        except Exception:
            _log.exception("Could not ask Discord about the threads held before the restart")
        interval = self.bot.settings.timer_interval.total_seconds()
        while True:
            if self.holds.all_down():  # Discord cannot reach me: the clocks stand still
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

    async def check(self, now: datetime) -> None:
        """Expire challenges, remind players (at half time, and shortly before their time runs
        out), end games on time, post owed boards (and the match results owed on their lines)
        and the daily puzzle, archive threads, and retry the computer's failed turns; hourly,
        forget the time given back to what no longer runs in these servers
        (:data:`FORGET_GIVEN_EVERY`) and delete the rows nobody reads again
        (:data:`PRUNE_EVERY`). Each step runs on its own: one that fails is logged and
        the others still run."""
        services = self.bot.services
        # Nobody could play during a gateway outage whose time the database failed to give
        # back: given first, or (raising) the check waits, as while the gateway was down.
        await self.holds.give_back_owed()
        if now - self._recorded >= RECORD_EVERY:  # where an absence would start
            await services.clocks.timers_ran(now)
            self._recorded = now
        await self._step("retrying the computer's turns", self.retry_stalled(now))
        await self._step("asking about players shut out", self.holds.ask_again())
        # Nobody can play where these are held now (their holds end only once their time is
        # given back, so a hold ending during this check still holds for it): their
        # challenges and requests wait, their reminders wait, their clocks stand still.
        held = await self.holds.held()
        await self._step("expiring challenges", self._expire_challenges(now, held))
        await self._step("reminding players", self._remind(now, held))
        await self._step("lapsing takebacks", self.bot.flow.takebacks.lapse(held))
        await self._step("posting owed boards", self.bot.flow.outbox.deliver())
        await self._step("showing results on match lines", self.bot.flow.set_ends.show_owed_lines())
        await self._step("posting the daily puzzle", self.bot.puzzles.post_daily(now))
        await self._step("archiving threads", self._archive_due(now))
        # Last, so that a board owed for a move is out before the set's end is announced.
        await self._step("ending games on time", self._time_out(now, held))
        if now - self._forgotten >= FORGET_GIVEN_EVERY:
            self._forgotten = now  # a failure is tried again in an hour
            await self._step("forgetting time given back", services.clocks.forget_given_back())
        if self._prune_more or now - self._pruned >= PRUNE_EVERY:
            if not self._prune_more:
                self._pruned = now  # a failure is tried again in an hour
            self._prune_more = False
            await self._step("deleting rows nobody reads", self._prune())

    async def _prune(self) -> None:
        """Delete the boards delivered and the challenges closed long ago
        (bot/services/pruning.py), a few batches: the rest, if any, at the next check."""
        swept = await self.bot.services.pruning.prune()
        self._prune_more = swept.more_left
        if swept.deleted:
            _log.info(
                "Deleted %d rows nobody reads again (boards out, challenges closed)%s",
                swept.deleted,
                ", more at the next check" if swept.more_left else "",
            )

    async def _step(self, what: str, work: Coroutine[Any, Any, None]) -> None:
        """Run one step of a check; its failure is logged (the next check tries again)."""
        try:
            await work
        except StorageError as error:
            _log.warning("Timers, %s: %s", what, error)
        except Exception:
            _log.exception("Timers, %s, failed", what)

    async def _time_out(self, now: datetime, held: Held) -> None:
        clocks = self.bot.services.clocks
        # Nobody could play in a server Discord says is unavailable, nor in a thread closed to
        # its players (bot/flow/locked_threads.py): their clocks stand still.
        due = (await clocks.out_of_time(now)).outside(held)
        closed = await self.bot.flow.vanished.before_time_out(due.channel_ids, due.set_ids)
        guilds = {row.channel_id: row.guild_id for row in due.rows}
        for thread_id, since in closed.items():  # found so (locked while I was away, say)
            await self.holds.thread_closed(thread_id, since, guild_id=guilds.get(thread_id))
        due = due.outside(Held(frozenset(closed)))
        # A player a moderator shut out of the channel (hidden from them, or timed out) cannot
        # play either: their clock stands still until they can; one Discord does not answer
        # about is not lost on time until it does (bot/player_holds.py).
        due = due.outside(Held(await self.holds.hold_shut_out(due.rows)))
        for end in await clocks.time_out(due):
            # Each ended set is announced on its own: one that fails (its board is then owed)
            # leaves the others' announcements, next sets and lines to come.
            try:
                await self.bot.flow.set_ends.announce(end)
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
            except (discord.HTTPException, *UNREACHABLE) as error:  # a long 429 as a 5xx
                _log.warning(
                    "Could not mark challenge %s expired: %s", challenge.challenge_id, error
                )
                await self._gone_if_unknown(challenge.channel_id, error)
            except StorageError as error:  # the others go on; a press on it shows it expired
                _log.warning("Challenge %s expired unshown: %r", challenge.challenge_id, error)

    async def _remind(self, now: datetime, held: Held) -> None:
        services = self.bot.services
        # Nobody can play where ``held`` (a post in a locked thread would be refused too):
        # their reminders wait until they can.
        # And a player found unable to see their game's channel lately: not asked again yet.
        self._unseen = {c: at for c, at in self._unseen.items() if now - at < ASK_AGAIN}
        held = replace(held, places=held.places | frozenset(self._unseen))
        half_time = await services.clocks.reminders_due(now, held=held)
        last = await services.clocks.last_reminders_due(now, held=held)
        lasts = {(active.set_id, active.ply) for active in last}
        # A half-time reminder still due when the last one is (Discord was down meanwhile) is
        # not posted as well: the last says it all.
        due = [active for active in half_time if (active.set_id, active.ply) not in lasts]
        # A few at a time in each server (and in all): one after another, 100 due in a server
        # behind a rate limit kept the last waiting minutes; all at once would be unbounded.
        in_all = asyncio.Semaphore(REMINDERS_AT_ONCE_IN_ALL)
        per_server: dict[int, asyncio.Semaphore] = {}
        reminding = []
        for active in due + last:
            server = per_server.setdefault(
                active.guild_id, asyncio.Semaphore(REMINDERS_AT_ONCE_PER_SERVER)
            )
            is_last = (active.set_id, active.ply) in lasts
            reminding.append(self._remind_within(active, now, server, in_all, last=is_last))
        await asyncio.gather(*reminding)

    async def _remind_within(
        self,
        active: ActiveGame,
        now: datetime,
        server: asyncio.Semaphore,
        in_all: asyncio.Semaphore,
        *,
        last: bool,
    ) -> None:
        """:meth:`_remind_one` once ``server`` and ``in_all`` let it; its failure is logged
        (the other reminders go on)."""
        async with server, in_all:
            try:
                await self._remind_one(active, now, is_last=last)
            except StorageError as error:
                _log.warning("Game %s: its reminder failed: %r", active.set_id, error)
            except Exception:
                _log.exception("Game %s: its reminder failed", active.set_id)

    async def _remind_one(self, active: ActiveGame, now: datetime, *, is_last: bool) -> None:
        """Remind the player to move in ``active`` (the ``is_last`` reminder, or the half-time
        one), unless they or their opponent left, they are timed out past the deadline, or
        they cannot see the channel (then it waits); the move came meanwhile, it is withdrawn;
        Discord could not take it, it is due again."""
        members = self.bot.flow.members
        # Not asked while a lookup in that server just got no answer in time (its rate
        # limit): the reminders due would each wait the limit out for nothing.
        seen = (
            None
            if active.player_to_move == active.computer_id or members.unanswered(active.guild_id)
            else await members.member_now(active.guild_id, active.player_to_move)
        )
        if seen is None and active.player_to_move != active.computer_id:
            # Not asked (lookups there pause), or no answer: the member last known, if any, so
            # the checks below (timed out, cannot see the channel) still hold; a stale "hidden"
            # only makes it wait for the next check, which asks again.
            seen = members.cached(active.guild_id, active.player_to_move)
        try:
            if await self._ended_for_leaving(active, to_move_left=seen is False):
                return
        except (StorageError, GameError) as error:
            # The departed player's set could not be ended now (a busy database): this
            # reminder is due again at the next check, which asks again; the other games'
            # reminders go on.
            _log.warning("Game %s: a departure could not be handled: %r", active.set_id, error)
            await self._reminder_due_again(active, last=is_last)
            return
        if isinstance(seen, discord.Member) and await self._held_at_deadline(active, seen):
            _log.info(
                "Game %s: its player is timed out past the deadline: no reminder", active.set_id
            )
            return
        if isinstance(seen, discord.Member) and not self._sees_channel(active, seen):
            # A ping there would reach nobody: it waits until they can see it.
            _log.info("Game %s: its player cannot see its channel: reminded later", active.set_id)
            self._unseen[active.channel_id] = now
            await self._reminder_due_again(active, last=is_last)
            return
        try:
            lang = await self.bot.flow.server_language(active.guild_id)
        except StorageError as error:
            # Claimed as posted: due again at the next check; the others go on.
            _log.warning("Game %s: its reminder's language is unread: %r", active.set_id, error)
            await self._reminder_due_again(active, last=is_last)
            return
        # Two players shown alike are told apart by their usernames (bare, those unread).
        names = await self.bot.names_told_apart(
            await self.bot.display_names(
                active.guild_id, active.attacker_id, active.defender_id, or_remembered=True
            ),
            or_as_shown=True,
        )
        reminder = reminder_text(active, lang, last=is_last, names=names)
        if not await self._still_due(active):
            return  # the move came first (asking Discord above takes a while)
        posted, message = await self._post(
            active.channel_id,
            reminder,
            ping=active.player_to_move,
            nonce=reminder_nonce(active, last=is_last),
        )
        if message is not None and not await self._still_due(active):
            await self._withdraw(message, active)  # the move landed while it was posted
        if posted is _Posted.REFUSED and await self._closed_or_unknown(active):
            posted = _Posted.LATER  # its thread is held now: posted once it opens
        if posted is _Posted.LATER:
            # Discord could not take it now (an outage): the next check tries again.
            await self._reminder_due_again(active, last=is_last)

    async def _still_due(self, active: ActiveGame) -> bool:
        """Whether ``active``'s reminder is still about the position it was claimed at: the set
        in progress at that ply, nothing taken back since (a move, a takeback or the set's end
        landing meanwhile makes it moot). A read the database fails says yes: the reminder
        goes out as claimed."""
        try:
            return await self.bot.services.boards.stands_at(active)
        except StorageError as error:
            _log.warning("Game %s: could not check its reminder is due: %r", active.set_id, error)
            return True

    async def _withdraw(self, message: discord.Message, active: ActiveGame) -> None:
        """Delete reminder ``message``, which a move made moot while it was posted (a deleted
        mention no longer shows as one); one Discord will not delete stays."""
        try:
            await message.delete()
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info("Could not delete game %s's moot reminder: %s", active.set_id, error)

    async def _reminder_due_again(self, active: ActiveGame, *, last: bool) -> None:
        """Undo the note that ``active``'s reminder was posted, so the next check posts it."""
        clocks = self.bot.services.clocks
        try:
            if last:
                await clocks.last_reminder_not_posted(active.set_id, active.ply)
            else:
                await clocks.reminder_not_posted(active.set_id, active.ply)
        except StorageError as error:  # then this one reminder is lost, not the others
            _log.warning("Game %s: its reminder stays noted as posted: %r", active.set_id, error)

    def _sees_channel(self, active: ActiveGame, member: discord.Member) -> bool:
        """Whether ``member``, the player to move in ``active``, can see its channel, as the
        cache computes their permissions there (a thread's are its channel's); yes if the cache
        cannot say."""
        channel = self.bot.get_channel(active.channel_id)
        if channel is None and active.parent_channel_id is not None:
            channel = self.bot.get_channel(active.parent_channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return True
        try:
            return channel.permissions_for(member).view_channel
        except discord.ClientException:  # a thread whose channel is not cached
            return True

    async def _held_at_deadline(self, active: ActiveGame, member: discord.Member) -> bool:
        """Whether ``member``, the player to move in ``active``, is timed out until its
        deadline or later, their clock to be held then (bot/player_holds.py): they cannot move
        before it, so a reminder that their time runs out would be untrue, and it would ping
        someone who cannot act (the hold's line says why, at the deadline). Not so if a hold
        of theirs gave this move its time back already (a move is held once: it does run out),
        or if the database cannot say."""
        until = member.timed_out_until
        if until is None or until <= self.bot.clock() or until < active.deadline:
            return False
        try:
            since = await self.bot.flow.vanished.turn_began(active.set_id)
            held = await self.bot.services.holds.held_this_move(active.set_id, active.ply, since)
        except StorageError as error:
            _log.warning("Game %s: was it held this move? unread: %r", active.set_id, error)
            return False
        return not held

    async def _ended_for_leaving(self, active: ActiveGame, *, to_move_left: bool) -> bool:
        """Before a reminder: whether the player to move (``to_move_left``, as Discord just
        said), or else their opponent (Discord is asked), has left the server; if so the set
        is ended, lost by the one who left, and announced instead (bot/flow/departures.py)."""
        end = await self.bot.flow.departures.forfeit_if_left(active, to_move_left=to_move_left)
        if end is None:
            return False
        try:
            await self.bot.flow.set_ends.announce(end)
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning("Could not announce game %s's end: %r", active.set_id, error)
            await self._gone_if_unknown(active.channel_id, error)
        except StorageError:
            raise
        except Exception:
            _log.exception("Announcing the end of game %s failed", active.set_id)
        return True

    async def _archive_due(self, now: datetime) -> None:
        for match_id, thread_id in await self.bot.services.boards.archives_due(now):
            await self._archive(match_id, thread_id)

    async def _archive(self, match_id: int, thread_id: int) -> None:
        """Archive a finished match's thread (its grace period is over); if a new match began
        in it meanwhile (a rematch against the computer, a challenge made in the thread), it is
        opened again at once."""
        try:
            await self.bot.http.edit_channel(thread_id, archived=True)
        except (discord.HTTPException, *UNREACHABLE) as error:
            if not_taken_now(error):  # a 5xx, the connection, a rate limit
                _log.info("Could not archive thread %s yet (tried again): %r", thread_id, error)
                return  # Discord's trouble: the next check tries again
            _log.warning("Could not archive thread %s: %s", thread_id, error)
        services = self.bot.services
        await services.boards.thread_archived(match_id)
        if await services.games.in_channel(thread_id) is not None:
            try:
                await self.bot.http.edit_channel(thread_id, archived=False)
            except (discord.HTTPException, *UNREACHABLE) as error:  # its next post opens it
                _log.info("Could not open thread %s again: %s", thread_id, error)

    async def _post(
        self, channel_id: int, content: str, *, ping: int, nonce: str
    ) -> tuple[_Posted, discord.Message | None]:
        """Post ``content`` pinging ``ping`` under ``nonce`` (one taken but whose answers were
        all lost is returned, not made again, when tried at a later check within the few
        minutes Discord keeps a nonce): posted (with the message), worth trying again
        later (Discord could not take it: 5xx, the connection, a time-out, a 429 past
        discord.py's tries), or refused. A refusal (any other 4xx: no permission, the channel
        locked) is not retried every few seconds — it would be refused again, and each refusal
        counts towards Discord's limit on invalid requests; a channel Discord no longer knows
        is gone."""
        try:
            message = await self.bot.get_partial_messageable(channel_id).send(
                content, allowed_mentions=pinging([ping]), nonce=nonce
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            if not_taken_now(error):
                _log.warning("Could not post in channel %s yet: %r", channel_id, error)
                return _Posted.LATER, None
            _log.warning("Could not post in channel %s (not retried): %s", channel_id, error)
            await self._gone_if_unknown(channel_id, error)
            return _Posted.REFUSED, None
        return _Posted.POSTED, message

    async def _closed_or_unknown(self, active: ActiveGame) -> bool:
        """:meth:`_found_closed`, or the database could not say (its reminder is then tried
        again at the next check, asked again, and the other reminders go on)."""
        try:
            return await self._found_closed(active)
        except StorageError as error:
            _log.warning("Game %s: is its thread closed? unread: %r", active.set_id, error)
            return True

    async def _found_closed(self, active: ActiveGame) -> bool:
        """After Discord refused a post in ``active``'s channel: whether it is a thread closed
        to its players (bot/flow/locked_threads.py), now held from when it was archived, or,
        locked but active, from when the turn began (Discord does not say since when it is
        locked, and the bot missed the lock's event: its player is not left with less time
        than the turn had when it was locked). A thread the cache shows open, or does not
        hold, is asked of Discord: the refusal says the cache may have missed the lock."""
        vanished = self.bot.flow.vanished
        cached = self.bot.get_channel(active.channel_id)
        if cached is not None and not isinstance(cached, discord.Thread):
            return False
        if cached is not None and self.holds.closed(cached):
            since: datetime | None = await vanished.turn_began(active.set_id)
        else:
            since = await vanished.closed_since(active.channel_id, active.set_id)
        if since is None:
            return False
        await self.holds.thread_closed(active.channel_id, since, guild_id=active.guild_id)
        return True

    async def _gone_if_unknown(self, channel_id: int, error: BaseException) -> None:
        """A post or edit in ``channel_id`` failed with ``error``: if Discord answered Unknown
        Channel, the channel is gone (deleted while the bot was away, or the deletion was
        missed), and its games are aborted as if the bot had been told."""
        if unknown_channel(error):
            await self.bot.flow.vanished.channel_gone(channel_id, Gone.UNKNOWN)


def reminder_nonce(active: ActiveGame, *, last: bool) -> str:
    """The nonce of ``active``'s reminder (the ``last`` one, or the half-time one): the set,
    its ply and how many moves were taken back in it (a takeback brings a ply back, a new turn
    with reminders of its own), each cut to its last digits, within Discord's 25 characters."""
    set_id, ply, undone = active.set_id % 10**9, active.ply % 10**4, active.undone % 10**3
    return f"rem.{set_id}.{ply}.{undone}{'L' if last else 'H'}"


def reminder_text(
    active: ActiveGame, lang: Language, *, last: bool, names: NamesToldApart | None = None
) -> str:
    """The reminder to the player to move in ``active``: at half time, or the ``last`` one
    (its mention with their username where ``names`` tells them apart by it)."""
    params = {
        "player": mention(active.player_to_move, names),
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
