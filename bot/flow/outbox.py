"""The outbox in Discord: posting the boards that stored moves and set ends are still owed.

A board is owed from the moment its move (or set end) is stored; the flow marks it delivered
when it posts it. What Discord refused, or what a restart cut off, the timer posts from here.
So does it edit a takeback request's message to show how it ended, when Discord refused that
edit as locked (:meth:`Outbox.show_answers`). Each board is made as it stood after its move by
bot/flow/late_boards.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.channel_waits import GlobalRateLimited, Route
from bot.flow.late_boards import LateBoards
from bot.flow.posts import NO_PINGS
from bot.flow.takebacks import ended_request_text
from bot.flow.threads import edit_reopening
from bot.flow.vanished import Gone, unknown_channel
from bot.services.domain import ActiveGame
from bot.storage.announcements import AnnouncementRow, LateCause, OwedAnswer
from bot.storage.errors import StorageError
from bot.storage.times import to_us
from bot.thread_locks import refused_for_lock
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


UNKNOWN_MESSAGE = 10008


def unknown_message(error: BaseException) -> bool:
    """Whether ``error`` is Discord's 404 Unknown Message: the message edited was deleted, or,
    answering a post, a message with the post's nonce was made in the past few minutes and
    deleted since (Discord does not make it again)."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_MESSAGE


def late_cause(error: BaseException) -> LateCause | None:
    """Why Discord refused a post (``error``), as a board posted late tells it: a moderator had
    locked the thread (403 160005, or 50083 for a thread locked and archived, which a post
    would otherwise open), or another refusal (a permission); None when Discord could not be
    reached (or the error is none of Discord's refusals)."""
    if refused_for_lock(error):
        return LateCause.LOCKED
    return LateCause.REFUSED if isinstance(error, discord.Forbidden) else None


STARTING_BOUND = timedelta(minutes=2)
"""The longest a match's first board is left to the flow starting it (:meth:`Outbox.starting`):
past discord.py's retries of the calls before it, and short enough that a board a failing
flow never posted comes soon after."""


class Outbox:
    """Posts what is owed, with retries (the services keep what is owed and when to retry)."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._posting: Counter[tuple[int, int]] = Counter()
        """The boards (set, ply) the flow is posting itself right now (:meth:`posting`), with
        how many posts claim each: a move's board and the final board of a set resigned at
        that move are owed at the same ply, and may be posted at once."""
        self._starting: dict[tuple[int, int], asyncio.TimerHandle] = {}
        """The first boards of matches stored just now (:meth:`starting`), each claimed until
        the flow's post of it takes over, or its bound passes."""
        self._unrecorded: dict[tuple[int, int], _Unrecorded] = {}
        """The boards (set, ply) the flow posted but the database could not record as out,
        each with when that failed (µs), the board as owed if known, and the write that
        records it (:meth:`record_later`)."""
        self.late = LateBoards(flow, flow.bot.clock())
        """Making and posting each owed board, as it stood after its move."""

    @contextlib.contextmanager
    def posting(self) -> Iterator[Callable[[int, int], None]]:
        """While the flow posts a board itself, the boards it claims (with the function this
        yields: set, ply, once stored) are left alone by the outbox, even past their grace: a
        drawing or a post slower than that would otherwise be posted twice. Once the flow is
        done (posted and marked delivered, or failed), what is still owed is the outbox's —
        unless another post still claims it. A claim made after that (a task outliving its
        post, at shutdown) changes nothing: nothing would end it, and the board would never be
        posted."""
        mine: set[tuple[int, int]] = set()
        over = False

        def claim(set_id: int, ply: int) -> None:
            if over:
                _log.info("Board of game %s at ply %s claimed too late: left owed", set_id, ply)
            elif (set_id, ply) not in mine:
                mine.add((set_id, ply))
                self._posting[set_id, ply] += 1

        try:
            yield claim
        finally:
            over = True
            for board in mine:
                self._unclaim(board)

    def starting(self, active: ActiveGame) -> None:
        """A match stored just now, whose first board (owed from the storing) the flow posts
        once the Discord calls before it are done — a thread made, the challenge's message
        edited — which may outlast my grace: I leave that board alone until
        :meth:`GameFlow.begin_match` claims it (:meth:`started`), or for
        :data:`STARTING_BOUND` at most, after which a flow that failed before posting it has
        left it to me. Left unclaimed, it was posted twice, pinging the players twice."""
        board = (active.set_id, active.ply)
        if board in self._starting:
            return
        self._posting[board] += 1
        loop = asyncio.get_running_loop()
        self._starting[board] = loop.call_later(
            STARTING_BOUND.total_seconds(), self.started, active
        )

    def started(self, active: ActiveGame) -> None:
        """The claim :meth:`starting` made on ``active``'s first board ends (the flow's own
        post of it claims it now, or the bound passed)."""
        board = (active.set_id, active.ply)
        handle = self._starting.pop(board, None)
        if handle is None:
            return
        handle.cancel()
        self._unclaim(board)

    def _unclaim(self, board: tuple[int, int]) -> None:
        """One claim on ``board`` (set, ply) ends: the outbox's once none is left."""
        self._posting[board] -= 1
        if self._posting[board] <= 0:
            del self._posting[board]

    def record_later(
        self,
        set_id: int,
        ply: int,
        error: StorageError,
        record: Callable[[], Awaitable[None]],
        owed: tuple[int, int] | None = None,
    ) -> None:
        """The flow (or I) posted the board of ``set_id`` at ``ply``, but the database failed
        (``error``) to record it out: when it falls due, :meth:`deliver` makes that write
        (``record``) instead of posting it again — a board that was an interaction's answer
        carries no nonce, and a nonce holds only minutes. Kept in memory: after a restart the
        board, owed from before the start, is looked for among the channel's newest messages
        first (:mod:`bot.flow.boards_shown`: by its buttons, or by its picture's name once they
        came off), and found there, not posted again. A board owed anew at that ply after this
        (the set ended at that move, a takeback back to it) is another board: posted, not
        marked out by this write. ``owed``: the board posted, as it was owed (when, and how many
        were owed at its ply before it: storage's ``announcements._same``), which tells it from
        one owed anew there at the same instant (a clock standing still); unknown, the board
        owed when this failed or before."""
        _log.warning(
            "Board of game %s at ply %s is out but not recorded (recorded later): %s",
            set_id,
            ply,
            error,
        )
        self._unrecorded[set_id, ply] = _Unrecorded(to_us(self.flow.bot.clock()), owed, record)

    async def deliver(self) -> None:
        """Post the boards that stored moves are owed (Discord was down, or the bot stopped).

        A channel Discord no longer knows (deleted while the bot was away, or its deletion
        missed) is gone: its games are aborted and nothing more is owed there. A board the
        database fails (a server's language unread, a write) stays owed, tried again at the
        next check, and the boards after it are posted still."""
        gone: set[int] = set()
        for row in await self.flow.bot.services.announcements.due():
            if row.channel_id in gone:
                continue  # dropped with the first of its boards
            try:
                await self._deliver_board(row, gone)
            except StorageError as error:
                # The database failed this board (its server's language, say): it stays owed,
                # tried again at the next check, and the other servers' boards go on.
                _log.warning(
                    "Board of game %s at ply %s (server %s) left owed: %r",
                    row.set_id,
                    row.ply,
                    row.guild_id,
                    error,
                )
        await self.show_answers()

    async def _deliver_board(self, row: AnnouncementRow, gone: set[int]) -> None:
        """Post ``row``'s owed board (:meth:`deliver`), adding its channel to ``gone`` if
        Discord no longer knows it; raises StorageError if the database fails it."""
        services = self.flow.bot.services
        if (row.set_id, row.ply) in self._posting:
            return  # the flow is posting it (slowly): it is owed only if that fails
        until = self._waiting(Route.POST, row.channel_id)
        if until is not None:  # not tried into the rate limit: its turn comes after
            await services.announcements.held_back(row, until)
            return
        unrecorded = self._unrecorded.pop((row.set_id, row.ply), None)
        if unrecorded is not None and unrecorded.recorded(row):
            try:
                await unrecorded.record()  # out (a board owed anew since is left owed)
            except StorageError:
                self._unrecorded[row.set_id, row.ply] = unrecorded
                raise  # tried again at the next check
            return
        try:
            out = await self.late.post(row)
        except (discord.HTTPException, *UNREACHABLE) as error:
            if unknown_message(error):
                # Its post, under the same nonce, was made (by the flow, its answer lost,
                # or by me before a crash) and deleted since: it was out.
                _log.info("Board of game %s at ply %s was deleted", row.set_id, row.ply)
                channel = self.flow.bot.get_partial_messageable(row.channel_id)

                async def deleted() -> None:
                    # If it was my reply, posted apart: the line before it says no longer
                    # that I am thinking (a member's board before it is left as it is).
                    await self.late.stop_thinking(row.set_id, row.ply, channel)
                    await services.announcements.posted(row, None)

                await self._out(row, deleted)
                return
            if unknown_channel(error):
                gone.add(row.channel_id)
                await self.flow.vanished.channel_gone(row.channel_id, Gone.UNKNOWN)
                return
            if isinstance(error, discord.RateLimited):
                until = self._wait(Route.POST, row.channel_id, error)
                await services.announcements.failed(row, not_before=until)
                return
            refused = not isinstance(error, UNREACHABLE)
            log = _log.warning if refused and row.attempts == 0 else _log.info
            log("Board of game %s at ply %s not posted yet: %r", row.set_id, row.ply, error)
            await services.announcements.failed(row, refused=refused, cause=late_cause(error))
            return
        except StorageError:
            raise  # the database's trouble: left owed (:meth:`deliver` says so)
        except Exception:
            # A fault of ours in one board must not hold up the others, nor the timers.
            _log.exception("Board of game %s at ply %s could not be made", row.set_id, row.ply)
            await services.announcements.failed(row, refused=True)
            return
        message_id = None if out is None else out.message_id

        async def recorded() -> None:
            # What goes with the post first, then the board marked out, as the row was read
            # (a board owed anew meanwhile stays owed).
            if out is not None:
                await out.follow_up()
            await services.announcements.posted(row, message_id)

        try:
            await self._out(row, recorded)
        except Exception:
            # A fault of ours in what follows one board must not hold up the others; the
            # board is out all the same.
            _log.exception(
                "Board of game %s at ply %s is out; what follows it failed", row.set_id, row.ply
            )
            await self._out(row, lambda: services.announcements.posted(row, message_id))

    async def _out(self, row: AnnouncementRow, recorded: Callable[[], Awaitable[None]]) -> None:
        """``row``'s board is out (or was, and was deleted since): ``recorded`` makes the
        writes that say so. If the database fails them, they are made when the row falls due,
        instead of posting the board again (:meth:`record_later`): a nonce holds only minutes,
        and a board posted while the database stays down past them would show twice."""
        try:
            await recorded()
        except StorageError as error:
            self.record_later(row.set_id, row.ply, error, recorded, (row.created_us, row.owed_anew))

    async def show_answers(self) -> None:
        """Edit the takeback requests whose message Discord refused to edit as locked when
        they were answered (or lapsed): once the thread is unlocked, each shows how it ended,
        without its Accept and Decline — naming its asker, who was not there to see it, pinging
        nobody (a decline asks nothing of them; an accepted takeback's board pings them, as the
        player to move). A message gone is left as it is. One the database fails (its server's
        language unread, a write) stays owed, and the others are edited still."""
        for owed in await self.flow.bot.services.announcements.answers_due():
            try:
                await self._show_answer(owed)
            except StorageError as error:
                # The database failed this answer (its server's language, say): it stays
                # owed, tried again at the next check, and the other servers' answers go on.
                _log.warning(
                    "Takeback %s's answer (server %s) left owed: %r",
                    owed.takeback_id,
                    owed.guild_id,
                    error,
                )

    async def _show_answer(self, owed: OwedAnswer) -> None:
        """Edit ``owed``'s request message to show how it ended (:meth:`show_answers`);
        raises StorageError if the database fails it."""
        services = self.flow.bot.services
        if owed.message_id is None:
            await services.announcements.answer_shown(owed)
            return
        if self._waiting(Route.EDIT, owed.channel_id) is not None:
            return  # tried again once Discord's wait there is up
        lang = await self.flow.server_language(owed.guild_id)
        bot = self.flow.bot
        names = None
        if owed.answered_by is not None:  # two players named: those shown alike told apart
            names = await bot.names_told_apart(  # by their usernames (bare, those unread)
                await bot.display_names(
                    owed.guild_id, owed.asked_by, owed.answered_by, or_remembered=True
                ),
                or_as_shown=True,
            )
        message = bot.get_partial_messageable(owed.channel_id).get_partial_message(owed.message_id)
        try:
            await edit_reopening(
                self.flow.bot,
                message,
                content=ended_request_text(owed, lang, names),
                view=None,
                allowed_mentions=NO_PINGS,
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            if isinstance(error, discord.NotFound):  # the message, or its channel, is gone
                await services.announcements.answer_shown(owed)
                return
            if isinstance(error, discord.RateLimited):
                until = self._wait(Route.EDIT, owed.channel_id, error)
                await services.announcements.answer_failed(owed, not_before=until)
                return
            refused = not isinstance(error, UNREACHABLE)
            _log.info("Takeback %s's answer not shown yet: %r", owed.takeback_id, error)
            await services.announcements.answer_failed(owed, refused=refused)
            return
        except StorageError:
            raise  # the database's trouble: left owed (:meth:`show_answers` says so)
        except Exception:  # a fault of ours in one must not hold up the others
            _log.exception("Takeback %s's answer could not be shown", owed.takeback_id)
            await services.announcements.answer_failed(owed, refused=True)
            return
        await services.announcements.answer_shown(owed)

    def _wait(self, route: Route, channel_id: int, limited: discord.RateLimited) -> datetime:
        """Discord asked ``route`` in ``channel_id`` to wait ``limited.retry_after`` seconds
        (longer than discord.py waits): until when nothing more is sent there, by me or by the
        flow (:mod:`bot.channel_waits`, which has kept it already, unless it refused the
        request itself). Discord limits each route in each channel apart, so the others'
        boards go on. A wait of Discord's global limit is no channel's: not kept."""
        if isinstance(limited, GlobalRateLimited):
            return self.flow.bot.clock() + timedelta(seconds=limited.retry_after)
        return self.flow.bot.channel_waits.wait(route, channel_id, limited.retry_after)

    def _waiting(self, route: Route, channel_id: int) -> datetime | None:
        """Until when ``route`` in ``channel_id`` still waits (:meth:`_wait`), if it does."""
        return self.flow.bot.channel_waits.waiting(route, channel_id)


@dataclass(frozen=True)
class _Unrecorded:
    """A board out whose record the database failed (:meth:`Outbox.record_later`)."""

    at_us: int
    """When its record failed."""
    owed: tuple[int, int] | None
    """The board posted, as it was owed (``created_us``, ``owed_anew``), if known."""
    record: Callable[[], Awaitable[None]]
    """The writes that record it out."""

    def recorded(self, row: AnnouncementRow) -> bool:
        """Whether ``row``, owed now, is the board this records (else one owed anew at its ply
        since, to post): the same board as owed, or, that unknown, owed before its record
        failed — on a clock standing still, also one owed anew at that instant."""
        if self.owed is not None:
            return self.owed == (row.created_us, row.owed_anew)
        return self.at_us >= row.created_us
