"""Puzzles: the shipped bank, players' attempts and streaks, and the daily puzzle's timer.

The bank is ``bot/data/puzzles.txt`` (made by ``python -m benchmarks.generate_puzzles``). Judging
a move needs the engine's proof search, which the flow runs in the process pool
(:func:`engine.puzzles.answer_move`); this service keeps what happened. A player meets each
puzzle once; the first attempt counts, and the streak is the number of puzzles solved since the
last one failed. The daily post is a row per server and day, claimed before posting and marked
once Discord has it, with the next post's time stored beside the setting: a restart neither
skips a day nor posts one twice. The server's leaderboard ranks its members by the puzzles they
solved there (first attempts, as everything here), over all time or the last 30 days.
"""

from __future__ import annotations

import functools
import logging
import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from importlib import resources

from bot.i18n import _, command
from bot.services.clock import Clock
from bot.services.daily_puzzle import (
    DAILY_RETRY,
    DAILY_RETRY_MAX,
    DEFAULT_DAILY_HOUR,
    DailyPost,
    DailySetting,
    DailyStop,
    next_at,
)
from bot.services.domain import last_page
from bot.services.errors import (
    ForeignButton,
    InvalidOption,
    NoPuzzle,
    PuzzleOver,
    StaleGameError,
)
from bot.services.puzzle_leaderboard import (
    BOARD_PAGE_MAX,
    Period,
    SolverBoard,
    SolverKey,
    solver_standing,
)
from bot.shards import Shards
from bot.storage import Database, puzzles
from bot.storage.connection import Connection
from bot.storage.puzzles import AttemptRow, DailyPostRow, DailyRow
from bot.storage.sets import EVERY
from bot.storage.times import from_us, to_us
from engine.puzzles import Difficulty, Puzzle

_log = logging.getLogger(__name__)


@functools.cache
def bank() -> tuple[Puzzle, ...]:
    """The shipped puzzles, easiest first."""
    text = resources.files("bot").joinpath("data", "puzzles.txt").read_text()
    return tuple(
        Puzzle.parse(line)
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    )


@functools.cache
def by_id() -> dict[str, Puzzle]:
    """The shipped puzzles by id."""
    return {puzzle.puzzle_id: puzzle for puzzle in bank()}


@dataclass(frozen=True)
class Attempt:
    """A player's attempt with its puzzle."""

    row: AttemptRow
    puzzle: Puzzle

    @property
    def attempt_id(self) -> int:
        """The attempt's id (in the picker's custom ids)."""
        return self.row.attempt_id

    @property
    def line(self) -> tuple[str, ...]:
        """Both sides' moves played so far."""
        return self.row.line

    @property
    def moves_left(self) -> int:
        """The solver's moves still to find."""
        return self.puzzle.moves - len(self.row.line) // 2

    @property
    def finished(self) -> bool:
        """Solved or failed."""
        return self.row.status != puzzles.OPEN


@dataclass(frozen=True)
class PuzzleStats:
    """A player's puzzle record."""

    user_id: int
    solved: int
    failed: int
    streak: int
    best_streak: int
    daily_solved: int
    hardest: Puzzle | None
    left: int
    """Puzzles of the bank the player has not seen yet."""


def _attempts_lock(user_id: int) -> str:
    """The lock held while a player's next puzzle is chosen and its attempt opened."""
    return f"puzzle-attempts:{user_id}"


def _setting(row: DailyRow) -> DailySetting:
    return DailySetting(row.guild_id, row.channel_id, row.hour, from_us(row.next_post_us))


class PuzzleService:
    """Attempts, stats and the daily puzzle."""

    def __init__(self, database: Database, clock: Clock, shards: Shards = EVERY) -> None:
        self._database = database
        self._clock = clock
        self._shards = shards
        """Only the servers of these shards get their daily post from this process."""

    # ---------------------------------------------------------------- attempts

    async def start(
        self, *, guild_id: int, user_id: int, difficulty: Difficulty | None = None
    ) -> Attempt:
        """The player's newest unfinished puzzle (of ``difficulty``), else a new one they never
        met.

        Two asks at the same moment (two quick presses of "Another puzzle") open one
        attempt, both shown it: the player's attempts are read and a new one written under
        the player's lock (SQLite runs one write at a time; PostgreSQL would let both read
        none open and each draw one).

        Raises NoPuzzle when the bank has none left for them, or none at all.
        """
        async with self._database.transaction() as db:
            await db.lock(_attempts_lock(user_id))
            # Any unfinished one of that difficulty, not only the newest: asking for another
            # difficulty and back would otherwise draw a new puzzle and skip the unsolved one.
            known = by_id()
            for current in await puzzles.open_attempts(db, user_id):
                puzzle = known.get(current.puzzle_id)
                if puzzle is not None and (difficulty is None or puzzle.difficulty is difficulty):
                    return Attempt(current, puzzle)
            met = await puzzles.attempted(db, user_id)
            if not bank():  # whoever runs the bot fills it (README, "Puzzles")
                raise NoPuzzle(
                    _("There are no puzzles in the bank yet: whoever runs the bot adds them.")
                )
            shipped = [p for p in bank() if difficulty is None or p.difficulty is difficulty]
            if not shipped:
                raise NoPuzzle(
                    _("There are no puzzles of that difficulty in the bank yet: try another.")
                )
            fresh = [p for p in shipped if p.puzzle_id not in met]
            if not fresh:
                raise NoPuzzle(
                    _("You have seen every puzzle in the bank: well done!")
                    if difficulty is None
                    else _(
                        "You have seen every puzzle of that difficulty in the bank: try "
                        "another, or well done!"
                    )
                )
            # Easier ones first, drawn from the easiest few so that friends do not all get one.
            puzzle = random.choice(fresh[:5])
            row = await puzzles.start(
                db,
                user_id=user_id,
                guild_id=guild_id,
                puzzle_id=puzzle.puzzle_id,
                daily_day=None,
                now_us=to_us(self._clock()),
            )
        return Attempt(row, puzzle)

    async def start_daily(
        self,
        *,
        guild_id: int,
        user_id: int,
        puzzle_id: str,
        day: str,
        shown_in: tuple[int, int] | None = None,
    ) -> Attempt:
        """The player's attempt at a daily puzzle (a new one, or the one begun before).

        ``shown_in``: the channel and message of the bot's own daily post of ``day`` in this
        server that shows ``puzzle_id`` (its text, which no press can change, says so), where
        the press came from. Such a post whose claim was dropped before its message id could be
        stored (a new day's claim drops the days never marked posted) is recorded again, and
        its button works.

        Raises ForeignButton unless ``puzzle_id`` was the server's daily puzzle of ``day`` (a
        forged Solve button would start any puzzle of the bank, as any day's), NoPuzzle,
        PuzzleOver."""
        puzzle = by_id().get(puzzle_id)
        if puzzle is None:
            raise NoPuzzle(_("This puzzle is no longer in the bank."))
        async with self._database.snapshot() as db:
            post = await puzzles.post_of(db, guild_id, day)
        if post is not None and post.puzzle_id != puzzle_id:
            raise ForeignButton()
        if post is None and shown_in is None:
            raise ForeignButton()
        async with self._database.transaction() as db:
            # As :meth:`start`: "Another puzzle" pressed meanwhile draws no puzzle this opens.
            await db.lock(_attempts_lock(user_id))
            if shown_in is not None and (post is None or post.message_id is None):
                channel_id, message_id = shown_in
                await puzzles.found_post(
                    db, guild_id, day, puzzle_id, channel_id, message_id, to_us(self._clock())
                )
            row = await puzzles.start(
                db,
                user_id=user_id,
                guild_id=guild_id,
                puzzle_id=puzzle_id,
                daily_day=day,
                now_us=to_us(self._clock()),
            )
            if row.status == puzzles.OPEN and row.daily_day is None:
                # Drawn with /puzzle play and still open: solved from the daily post, it counts
                # as the day's.
                await puzzles.make_daily(db, row.attempt_id, guild_id, day)
                row = replace(row, daily_day=day, guild_id=guild_id)
        if row.status != puzzles.OPEN:
            raise PuzzleOver(
                _(
                    "You have already solved this puzzle: {play_command} gives a new one.",
                    play_command=command("puzzle play"),
                )
                if row.status == puzzles.SOLVED
                else _(
                    "You have already failed this puzzle: {play_command} gives a new one.",
                    play_command=command("puzzle play"),
                )
            )
        return Attempt(row, puzzle)

    async def attempt(self, attempt_id: int, user_id: int) -> Attempt:
        """An open attempt of ``user_id``; PuzzleOver once finished."""
        async with self._database.snapshot() as db:
            row = await puzzles.attempt(db, attempt_id)
        if row is None or row.user_id != user_id or row.puzzle_id not in by_id():
            raise NoPuzzle(
                _(
                    "This puzzle is not yours: {play_command} gives you one.",
                    play_command=command("puzzle play"),
                )
            )
        if row.status != puzzles.OPEN:
            raise PuzzleOver(
                _(
                    "This puzzle is already solved: {play_command} for another.",
                    play_command=command("puzzle play"),
                )
                if row.status == puzzles.SOLVED
                else _(
                    "This puzzle is already failed: {play_command} for another.",
                    play_command=command("puzzle play"),
                )
            )
        return Attempt(row, by_id()[row.puzzle_id])

    async def solving(self, user_id: int) -> bool:
        """Whether ``user_id`` has a puzzle unfinished (a daily one too) that is still in the
        bank: the picker of one since removed answers that it is not theirs."""
        async with self._database.snapshot() as db:
            unfinished = await puzzles.unfinished_puzzle_ids(db, user_id)
        return not unfinished.isdisjoint(by_id())

    async def line(self, attempt_id: int, user_id: int) -> tuple[str, ...] | None:
        """The moves of ``user_id``'s attempt so far, finished or not; None if not theirs."""
        async with self._database.snapshot() as db:
            row = await puzzles.attempt(db, attempt_id)
        return None if row is None or row.user_id != user_id else row.line

    async def record(
        self,
        attempt: Attempt,
        played: tuple[str, ...],
        status: str,
        *,
        guild_id: int | None = None,
    ) -> Attempt:
        """Add ``played`` (the solver's move and the reply) to the attempt, with its status,
        played in ``guild_id`` (default: where it was drawn). A puzzle drawn in one server and
        played in another counts in the latter, unless it is a daily puzzle.

        Raises StaleGameError if another answer changed the attempt first.
        """
        line = attempt.line + played
        async with self._database.transaction() as db:
            changed = await puzzles.advance(
                db,
                attempt.attempt_id,
                line_before=attempt.line,
                line=line,
                status=status,
                now_us=to_us(self._clock()),
                guild_id=attempt.row.guild_id if guild_id is None else guild_id,
            )
            if not changed:
                raise StaleGameError(_("This puzzle moved on since: look at its newest message."))
            row = await puzzles.attempt(db, attempt.attempt_id)
        assert row is not None
        return Attempt(row, attempt.puzzle)

    async def stats(self, user_id: int) -> PuzzleStats:
        """Solved, failed, the current and best streak, daily puzzles solved, the hardest."""
        async with self._database.snapshot() as db:
            done = await puzzles.finished(db, user_id)
            met = await puzzles.attempted(db, user_id)
        streak = best = 0
        for row in done:
            streak = streak + 1 if row.status == puzzles.SOLVED else 0
            best = max(best, streak)
        solved = [row for row in done if row.status == puzzles.SOLVED]
        known = by_id()
        hardest = max(
            (known[row.puzzle_id] for row in solved if row.puzzle_id in known),
            key=lambda p: p.rating,
            default=None,
        )
        return PuzzleStats(
            user_id=user_id,
            solved=len(solved),
            failed=len(done) - len(solved),
            streak=streak,
            best_streak=best,
            daily_solved=sum(1 for row in solved if row.daily_day is not None),
            hardest=hardest,
            left=sum(1 for p in bank() if p.puzzle_id not in met),
        )

    # ---------------------------------------------------------------- the leaderboard

    async def leaderboard(
        self,
        guild_id: int,
        viewer_id: int,
        period: Period = Period.ALL_TIME,
        offset: int = 0,
        limit: int = 10,
        *,
        after: SolverKey | None = None,
        before: SolverKey | None = None,
    ) -> SolverBoard:
        """A page of the server's puzzle solvers: most puzzles solved in the server (first
        attempts, finished in ``period``) first, ties to the higher solve rate, then to
        whoever reached the count first; with ``viewer_id``'s line if it is not on the page.
        The page is the solvers right ``after`` a key (Next) or right ``before`` one
        (Previous; the whole first page once fewer than a page are left before it), else
        those from ``offset``: turned by keys, a puzzle finished between two
        presses neither repeats nor skips a player. Ranks count from 1; ``limit`` is capped
        at 100."""
        offset = max(0, offset)
        limit = max(1, min(BOARD_PAGE_MAX, limit))
        since = period.since(self._clock())
        since_us = 0 if since is None else to_us(since)
        async with self._database.snapshot() as db:
            total, rows = 0, list[puzzles.SolverRow]()
            places = range(offset + 1, offset + limit + 1)
            key = after or before
            if key is not None:
                total = await puzzles.solvers_count(db, guild_id, since_us)
                places, rows = await puzzles.solvers_beside(
                    db, guild_id, since_us, _key(key), after is not None, limit, viewer_id
                )
                if before is not None and len(places) < limit:  # the top: the whole first page
                    places = range(0)
            if not any(row.place in places for row in rows):
                if key is not None:  # nobody left past the key (the last page), or fewer than a
                    # page before it (the first page)
                    offset = last_page(total, total, limit) if after is not None else 0
                total, rows = await puzzles.solvers_board(
                    db, guild_id, since_us, offset, limit, viewer_id
                )
                if (last := last_page(offset, total, limit)) != offset:
                    offset = last  # the list shrank below the page asked for
                    total, rows = await puzzles.solvers_board(
                        db, guild_id, since_us, offset, limit, viewer_id
                    )
                places = range(offset + 1, offset + limit + 1)
        on_page = [row for row in rows if row.place in places]
        elsewhere = [row for row in rows if row not in on_page]  # the viewer's, off the page
        offset = places.start - 1 if places else offset
        page = tuple(solver_standing(row) for row in on_page)
        viewer = solver_standing(elsewhere[0]) if elsewhere else None
        return SolverBoard(guild_id, period, viewer_id, offset, limit, total, page, viewer)

    # ---------------------------------------------------------------- the daily puzzle

    async def daily_setting(self, guild_id: int) -> DailySetting | None:
        """Where and when the server's daily puzzle is posted (``None``: off)."""
        async with self._database.snapshot() as db:
            row = await puzzles.daily(db, guild_id)
        return None if row is None else _setting(row)

    async def set_daily(
        self, guild_id: int, channel_id: int | None, hour: int | None
    ) -> DailySetting | None:
        """Post a puzzle in ``channel_id`` every day at ``hour`` (UTC), from the next such hour;
        ``None`` keeps the channel or the hour as stored when this is written (another admin's
        change written meanwhile stays), the hour :data:`DEFAULT_DAILY_HOUR` the first time.
        None, changing nothing, when no channel is given and the daily puzzle is off.

        If today's puzzle was already posted, the next post is tomorrow's.
        """
        if hour is not None and not 0 <= hour <= 23:
            raise InvalidOption(_("The hour must be from 0 to 23 (UTC)."))
        now = self._clock()
        async with self._database.transaction() as db:
            await db.lock(f"daily:{guild_id}")
            current = await puzzles.daily(db, guild_id)
            if channel_id is not None:
                where = channel_id
            elif current is not None:
                where = current.channel_id
            else:
                return None
            at = hour if hour is not None else (current.hour if current else DEFAULT_DAILY_HOUR)
            due = next_at(now, at)
            posted_today = await puzzles.post_before(db, guild_id, _day(due + timedelta(days=1)))
            if posted_today is not None and posted_today.day == _day(due):
                due += timedelta(days=1)
            row = DailyRow(guild_id, where, at, to_us(due))
            await puzzles.set_daily(db, row)
        return _setting(row)

    async def why_daily_off(self, guild_id: int) -> DailyStop | None:
        """Why the server's daily puzzle is off when no admin switched it off (None: an admin
        did, it was never on, or it is on)."""
        async with self._database.snapshot() as db:
            row = await puzzles.daily_stop(db, guild_id)
        return None if row is None else DailyStop(row.reason)

    async def stop_daily(self, guild_id: int) -> bool:
        """Stop the server's daily puzzle; whether it was on."""
        async with self._database.transaction() as db:
            return await puzzles.clear_daily(db, guild_id)

    async def claim_due(self, now: datetime | None = None) -> None:
        """Claim the day's post of every server whose time has come (and move its timer on)."""
        moment = now if now is not None else self._clock()
        async with self._database.snapshot() as db:
            if not await puzzles.dailies_due(db, to_us(moment), self._shards):
                return  # the usual case: no write, no lock taken
        async with self._database.transaction() as db:
            for setting in await puzzles.dailies_due(db, to_us(moment), self._shards):
                due = from_us(setting.next_post_us)
                # A post a day or more late (the bot was away) is today's, not the missed day's.
                day = _day(moment if moment - due >= timedelta(days=1) else due)
                used = await puzzles.daily_puzzle_ids(db, setting.guild_id)
                puzzle = pick_daily(day, used)
                next_post = next_at(max(moment, due) + timedelta(minutes=1), setting.hour)
                if puzzle is None:  # the bank shipped empty: the day is passed over
                    await puzzles.move_daily_on(db, setting, to_us(next_post))
                    _log.warning(
                        "No puzzle is left in the bank: the daily puzzle of server %s for %s is "
                        "not posted",
                        setting.guild_id,
                        day,
                    )
                    continue
                await puzzles.claim_day(
                    db,
                    setting,
                    day=day,
                    puzzle_id=puzzle.puzzle_id,
                    now_us=to_us(moment),
                    next_post_us=to_us(next_post),
                )

    async def posts_owed(self, due: datetime | None = None) -> list[DailyPost]:
        """Claimed daily posts Discord does not have yet, with the day before's solvers; with
        ``due``, only those not waiting after then to be tried again (:meth:`daily_refused`).
        A claim whose puzzle was since removed from the bank is given another first."""
        due_us = None if due is None else to_us(due)
        async with self._database.snapshot() as db:
            rows = await puzzles.unposted(db, self._shards, due_us)
            removed = [row for row in rows if row.puzzle_id not in by_id()]
            if not removed:  # the usual case: one read, no write
                return await _posts(db, rows)
        await self._replace_removed(removed)
        async with self._database.snapshot() as db:
            return await _posts(db, await puzzles.unposted(db, self._shards, due_us))

    async def _replace_removed(self, claims: list[DailyPostRow]) -> None:
        """The claims of ``claims``, whose puzzles were since removed from the bank (it ships
        with the bot), show the puzzle the day would be given now; with no puzzle left to
        choose, each is dropped. Either way the log says so: skipped, a claim would be owed
        for good, and its day never posted."""
        async with self._database.transaction() as db:
            for claim in claims:
                used = await puzzles.daily_puzzle_ids(db, claim.guild_id)
                puzzle = pick_daily(claim.day, used)
                if puzzle is None:
                    if await puzzles.drop_claim(db, claim.guild_id, claim.day, claim.puzzle_id):
                        _log.warning(
                            "Daily puzzle %s of server %s for %s is no longer in the bank, and "
                            "none is left: its post is dropped",
                            claim.puzzle_id,
                            claim.guild_id,
                            claim.day,
                        )
                    continue
                if await puzzles.replace_claimed_puzzle(
                    db, claim.guild_id, claim.day, claim.puzzle_id, puzzle.puzzle_id
                ):
                    _log.warning(
                        "Daily puzzle %s of server %s for %s is no longer in the bank: %s is "
                        "posted instead",
                        claim.puzzle_id,
                        claim.guild_id,
                        claim.day,
                        puzzle.puzzle_id,
                    )

    async def daily_refused(self, guild_id: int, day: str, now: datetime) -> datetime | None:
        """Discord refused the post of ``day``: it is tried again after DAILY_RETRY, the pause
        doubling with each refusal up to DAILY_RETRY_MAX (stored: a restart does not try every
        refused post at once). Returns when, or None if the day is no longer owed."""
        async with self._database.transaction() as db:
            post = await puzzles.post_of(db, guild_id, day)
            if post is None or post.message_id is not None:
                return None
            pause: timedelta = min(DAILY_RETRY * 2 ** min(post.refusals, 16), DAILY_RETRY_MAX)
            await puzzles.refused(db, guild_id, day, to_us(now + pause))
        return now + pause

    async def retry_refused(self, guild_id: int) -> None:
        """Something changed in server ``guild_id`` that may let the bot post again (a
        channel's permissions, a role): a refused daily post is tried at the next check
        instead of after its pause (up to DAILY_RETRY_MAX)."""
        async with self._database.transaction() as db:
            await puzzles.retry_refused(db, guild_id, to_us(self._clock()))

    async def refused_channels(self, guild_id: int) -> list[int]:
        """The channels where server ``guild_id``'s daily post is paused after a refusal."""
        async with self._database.snapshot() as db:
            return await puzzles.refused_channels(db, guild_id, to_us(self._clock()))

    async def daily_posted(self, guild_id: int, day: str, message_id: int) -> None:
        """Discord has ``day``'s post: it is never posted again."""
        async with self._database.transaction() as db:
            await puzzles.posted(db, guild_id, day, message_id)


async def _posts(db: Connection, rows: list[DailyPostRow]) -> list[DailyPost]:
    """The posts of the claims ``rows`` whose puzzles are in the bank, each with the day
    before's solvers."""
    owed = []
    for row in rows:
        puzzle = by_id().get(row.puzzle_id)
        if puzzle is None:  # given meanwhile by a process whose bank has it, and this lacks
            continue
        previous = await puzzles.post_before(db, row.guild_id, row.day)
        solvers: list[int] = []
        if previous is not None:
            solvers = await puzzles.solvers(db, row.guild_id, previous.puzzle_id, previous.day)
        owed.append(
            DailyPost(row.guild_id, row.day, row.channel_id, puzzle, previous, tuple(solvers))
        )
    return owed


def pick_daily(day: str, used: set[str]) -> Puzzle | None:
    """The day's puzzle: one the server's daily post has not used, chosen by the date, medium
    difficulty when there is one left; None when the bank is empty."""
    fresh = [p for p in bank() if p.puzzle_id not in used] or list(bank())
    medium = [p for p in fresh if p.difficulty is not Difficulty.EASY] or fresh
    return random.Random(day).choice(medium) if medium else None


def _day(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d")


def _key(key: SolverKey) -> puzzles.SolverKey:
    return key.solved, key.attempted, key.reached_us, key.user_id
