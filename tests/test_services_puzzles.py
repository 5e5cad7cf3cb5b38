"""The puzzle service on both backends: daily claims, stale answers, streaks."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest

import bot.services.puzzles as puzzle_service
from bot.services import Services
from bot.services.daily_puzzle import DailyPost, DailyStop
from bot.services.errors import ForeignButton, StaleGameError
from bot.services.puzzle_leaderboard import Period, SolverKey
from bot.storage import puzzles as stored

GUILD, CHANNEL, ALICE = 10, 20, 30


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def first_day_claimed(services: Services, clock: Clock) -> DailyPost:
    """The server's daily puzzle is set for 10:00 and its first day claimed an hour later:
    the post that day owes."""
    await services.puzzles.set_daily(GUILD, CHANNEL, 10)
    clock.now += timedelta(hours=1)
    await services.puzzles.claim_due()
    [owed] = await services.puzzles.posts_owed()
    return owed


async def test_a_day_is_claimed_once_and_posted_once(database: str) -> None:
    """Two checks at the due time claim one post; once marked posted, nothing is owed."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        setting = await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        assert setting is not None
        assert setting.next_post == datetime(2026, 3, 1, 10, tzinfo=UTC)
        clock.now += timedelta(hours=1)
        await services.puzzles.claim_due()
        await services.puzzles.claim_due()
        [owed] = await services.puzzles.posts_owed()
        assert owed.day == "2026-03-01"
        await services.puzzles.daily_posted(GUILD, owed.day, 12345)
        assert await services.puzzles.posts_owed() == []
        clock.now += timedelta(hours=5)
        await services.puzzles.claim_due()
        assert await services.puzzles.posts_owed() == [], "no second post the same day"
        clock.now += timedelta(days=1)
        await services.puzzles.claim_due()
        [tomorrow] = await services.puzzles.posts_owed()
        assert tomorrow.day == "2026-03-02"
        assert tomorrow.puzzle.puzzle_id != owed.puzzle.puzzle_id
    finally:
        await services.close()


async def test_an_answer_to_an_old_position_is_refused(database: str) -> None:
    """Recording a move against a line that moved on raises, and stores nothing."""
    services = await Services.open(database, clock=Clock())
    try:
        attempt = await services.puzzles.start(guild_id=GUILD, user_id=ALICE)
        first = str(attempt.puzzle.solution[0])
        await services.puzzles.record(attempt, (first,), stored.OPEN)
        with pytest.raises(StaleGameError):
            await services.puzzles.record(attempt, (first,), stored.SOLVED)
        again = await services.puzzles.attempt(attempt.attempt_id, ALICE)
        assert again.line == (first,)
    finally:
        await services.close()


async def test_streak_counts_solved_since_the_last_failure(database: str) -> None:
    """Solved, solved, failed, solved: streak 1, best 2."""
    services = await Services.open(database, clock=Clock())
    try:
        for status in (stored.SOLVED, stored.SOLVED, stored.FAILED, stored.SOLVED):
            attempt = await services.puzzles.start(guild_id=GUILD, user_id=ALICE)
            await services.puzzles.record(attempt, (str(attempt.puzzle.solution[0]),), status)
        stats = await services.puzzles.stats(ALICE)
        assert (stats.solved, stats.failed, stats.streak, stats.best_streak) == (3, 1, 1, 2)
    finally:
        await services.close()


async def test_a_daily_solved_after_puzzle_play_elsewhere_counts_in_the_daily_server(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice drew P with /puzzle play in another server and left it open; she solves it from
    this server's daily post: the next day's post here names her (it named nobody)."""
    other_guild = 11
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        first = puzzle_service.bank()[0]
        monkeypatch.setattr(puzzle_service, "bank", lambda: (first,))
        drawn = await services.puzzles.start(
            guild_id=other_guild, user_id=ALICE
        )  # /puzzle play elsewhere
        assert drawn.puzzle.puzzle_id == first.puzzle_id
        owed = await first_day_claimed(services, clock)
        assert owed.puzzle.puzzle_id == first.puzzle_id
        await services.puzzles.daily_posted(GUILD, owed.day, 1)
        daily = await services.puzzles.start_daily(
            guild_id=GUILD, user_id=ALICE, puzzle_id=first.puzzle_id, day=owed.day
        )
        await services.puzzles.record(daily, tuple(str(m) for m in first.solution), stored.SOLVED)
        clock.now += timedelta(days=1)
        await services.puzzles.claim_due()
        [tomorrow] = await services.puzzles.posts_owed()
        assert tomorrow.previous_solvers == (ALICE,)
    finally:
        await services.close()


async def test_a_dropped_daily_post_is_recorded_again_from_the_post_pressed(
    database: str,
) -> None:
    """A day's post whose id was never stored is dropped by the next day's claim: a press
    from the post that shows it records it again (its solvers are named the day after);
    without the post, or naming another puzzle, it is refused."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        lost = await first_day_claimed(services, clock)
        clock.now += timedelta(days=1)
        await services.puzzles.claim_due()
        [today] = await services.puzzles.posts_owed()
        assert today.previous is None, "the unmarked day is dropped"
        other = next(p for p in puzzle_service.bank() if p.puzzle_id != lost.puzzle.puzzle_id)
        day, puzzle_id = lost.day, lost.puzzle.puzzle_id
        with pytest.raises(ForeignButton):
            await services.puzzles.start_daily(
                guild_id=GUILD, user_id=ALICE, puzzle_id=puzzle_id, day=day
            )
        attempt = await services.puzzles.start_daily(
            guild_id=GUILD, user_id=ALICE, puzzle_id=puzzle_id, day=day, shown_in=(CHANNEL, 77)
        )
        with pytest.raises(ForeignButton):
            await services.puzzles.start_daily(
                guild_id=GUILD, user_id=BOB, puzzle_id=other.puzzle_id, day=day, shown_in=(1, 2)
            )
        await services.puzzles.record(
            attempt, tuple(str(m) for m in lost.puzzle.solution), stored.SOLVED
        )
        [today] = await services.puzzles.posts_owed()
        assert today.previous is not None
        assert (today.previous.day, today.previous.message_id) == (day, 77)
        assert today.previous_solvers == (ALICE,)
    finally:
        await services.close()


async def test_a_claimed_daily_post_whose_puzzle_left_the_bank_gets_another(
    database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The day's claimed puzzle was removed from the bank before its post went out (a new
    version of the bot): the claim is given the puzzle the day would get now, with a log
    line, and that one is owed from then on, where the day was owed for good and never
    posted."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        claimed = await first_day_claimed(services, clock)
        gone = claimed.puzzle.puzzle_id
        left = tuple(p for p in puzzle_service.bank() if p.puzzle_id != gone)
        monkeypatch.setattr(puzzle_service, "bank", lambda: left)
        monkeypatch.setattr(puzzle_service, "by_id", lambda: {p.puzzle_id: p for p in left})
        with caplog.at_level(logging.WARNING, logger="bot.services.puzzles"):
            [owed] = await services.puzzles.posts_owed()
            [again] = await services.puzzles.posts_owed()
        assert owed.day == claimed.day
        assert owed.puzzle in left
        assert again == owed
        assert [r.getMessage() for r in caplog.records] == [
            f"Daily puzzle {gone} of server {GUILD} for {owed.day} is no longer in the bank: "
            f"{owed.puzzle.puzzle_id} is posted instead"
        ]
    finally:
        await services.close()


async def test_a_claimed_daily_post_is_dropped_when_no_puzzle_is_left(
    database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With no puzzle left in the bank to give the day, its claim is dropped with a log line,
    not owed for good."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        claimed = await first_day_claimed(services, clock)
        monkeypatch.setattr(puzzle_service, "bank", lambda: ())
        monkeypatch.setattr(puzzle_service, "by_id", lambda: {})
        with caplog.at_level(logging.WARNING, logger="bot.services.puzzles"):
            assert await services.puzzles.posts_owed() == []
            assert await services.puzzles.posts_owed() == []
        assert [r.getMessage() for r in caplog.records] == [
            f"Daily puzzle {claimed.puzzle.puzzle_id} of server {GUILD} for {claimed.day} is no "
            "longer in the bank, and none is left: its post is dropped"
        ]
        async with services.database.snapshot() as db:
            assert await stored.post_of(db, GUILD, claimed.day) is None
    finally:
        await services.close()


async def test_a_day_due_with_no_puzzle_in_the_bank_is_passed_over(
    database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With no puzzle in the bank, a day that comes due is passed over with one log line and
    the timer moves on to the next day, where picking the day's puzzle raised at every check
    (the posts owed never read), a traceback each time."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        monkeypatch.setattr(puzzle_service, "bank", lambda: ())
        monkeypatch.setattr(puzzle_service, "by_id", lambda: {})
        clock.now += timedelta(hours=1)
        with caplog.at_level(logging.WARNING, logger="bot.services.puzzles"):
            await services.puzzles.claim_due()
            await services.puzzles.claim_due()
        assert await services.puzzles.posts_owed() == []
        assert [r.getMessage() for r in caplog.records] == [
            f"No puzzle is left in the bank: the daily puzzle of server {GUILD} for 2026-03-01 "
            "is not posted"
        ]
        setting = await services.puzzles.daily_setting(GUILD)
        assert setting is not None
        assert setting.next_post == datetime(2026, 3, 2, 10, tzinfo=UTC)
    finally:
        await services.close()


async def test_a_refused_daily_post_waits_longer_each_time_until_moved(database: str) -> None:
    """Each refusal of the day's post doubles the stored pause before the next try, up to an
    hour, seen by any process; switching the daily puzzle to a channel (which was just found
    to allow the post) tries it at once. The channel of a paused post is among its server's
    ``refused_channels``, which a restart weighs."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        owed = await first_day_claimed(services, clock)
        pauses = []
        for _ in range(8):
            after = await services.puzzles.daily_refused(GUILD, owed.day, clock.now)
            assert after is not None
            assert await services.puzzles.posts_owed(after - timedelta(seconds=1)) == []
            assert len(await services.puzzles.posts_owed(after)) == 1
            pauses.append(after - clock.now)
            clock.now = after
        assert pauses == [timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32, 60, 60)]
        assert await services.puzzles.refused_channels(GUILD) == []  # its pause is up
        await services.puzzles.daily_refused(GUILD, owed.day, clock.now)
        assert await services.puzzles.refused_channels(GUILD) == [CHANNEL]  # a restart weighs
        assert await services.puzzles.refused_channels(GUILD + 1) == []
        await services.puzzles.set_daily(GUILD, CHANNEL + 1, 10)
        assert await services.puzzles.refused_channels(GUILD) == []
        [moved] = await services.puzzles.posts_owed(clock.now)
        assert moved.channel_id == CHANNEL + 1
    finally:
        await services.close()


# -- the server's puzzle leaderboard ----------------------------------------------------------

BOB, CAROL, DAN = 31, 32, 33


async def finish(
    services: Services, clock: Clock, user_id: int, status: str, guild_id: int = GUILD
) -> None:
    """``user_id`` draws a puzzle in ``guild_id`` and finishes it ``status``, a minute on."""
    attempt = await services.puzzles.start(guild_id=guild_id, user_id=user_id)
    await services.puzzles.record(attempt, (str(attempt.puzzle.solution[0]),), status)
    clock.now += timedelta(minutes=1)


async def test_the_leaderboard_ranks_solved_then_rate_then_who_got_there_first(
    database: str,
) -> None:
    """dan solves 3 of 5; carol 2 of 2; bob 2 of 3 (before alice); alice 2 of 2 after carol.
    Ranked dan, carol, alice, bob: most solved, then the higher rate, then the earlier."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        for user_id, statuses in (
            (CAROL, (stored.SOLVED, stored.SOLVED)),
            (BOB, (stored.SOLVED, stored.SOLVED, stored.FAILED)),
            (ALICE, (stored.SOLVED, stored.SOLVED)),
            (DAN, (stored.FAILED, stored.SOLVED, stored.FAILED, stored.SOLVED, stored.SOLVED)),
        ):
            for status in statuses:
                await finish(services, clock, user_id, status)
        await services.puzzles.start(
            guild_id=GUILD, user_id=CAROL
        )  # still being played: not counted yet
        board = await services.puzzles.leaderboard(GUILD, ALICE)
        assert [(r.rank, r.user_id, r.solved, r.attempted, r.percent) for r in board.rows] == [
            (1, DAN, 3, 5, 60),
            (2, CAROL, 2, 2, 100),
            (3, ALICE, 2, 2, 100),
            (4, BOB, 2, 3, 66),
        ]
        assert (board.total, board.viewer) == (4, None)
    finally:
        await services.close()


async def test_the_last_30_days_count_only_puzzles_finished_in_them(database: str) -> None:
    """alice solved three puzzles 31 days ago and one yesterday, bob two 29 days ago: all time
    alice leads; over the last 30 days bob does, and alice has 1 of 1. Another server's
    puzzles count in neither."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        for _ in range(3):
            await finish(services, clock, ALICE, stored.SOLVED)
        clock.now += timedelta(days=2)
        for _ in range(2):
            await finish(services, clock, BOB, stored.SOLVED)
        for _ in range(4):
            await finish(services, clock, BOB, stored.SOLVED, guild_id=GUILD + 1)
        clock.now += timedelta(days=28)
        await finish(services, clock, ALICE, stored.SOLVED)
        clock.now += timedelta(days=1)
        ever = await services.puzzles.leaderboard(GUILD, ALICE)
        assert [(r.user_id, r.solved) for r in ever.rows] == [(ALICE, 4), (BOB, 2)]
        recent = await services.puzzles.leaderboard(GUILD, ALICE, Period.LAST_30_DAYS)
        assert recent.period is Period.LAST_30_DAYS
        assert [(r.user_id, r.solved, r.attempted) for r in recent.rows] == [
            (BOB, 2, 2),
            (ALICE, 1, 1),
        ]
    finally:
        await services.close()


async def test_the_viewer_outside_the_top_ten_gets_their_own_line(database: str) -> None:
    """Twelve players, the viewer 12th: the top ten and the viewer's line (12th, 0 of 1);
    the 5th player sees no extra line; the second page holds 11 and 12."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        players = list(range(100, 112))
        for place, user_id in enumerate(players):
            for _ in range(11 - place):
                await finish(services, clock, user_id, stored.SOLVED)
        await finish(services, clock, players[-1], stored.FAILED)
        last = await services.puzzles.leaderboard(GUILD, players[-1])
        assert [r.user_id for r in last.rows] == players[:10]
        assert last.total == 12
        assert last.viewer is not None
        assert (last.viewer.rank, last.viewer.solved, last.viewer.attempted) == (12, 0, 1)
        fifth = await services.puzzles.leaderboard(GUILD, players[4])
        assert fifth.viewer is None
        second = await services.puzzles.leaderboard(GUILD, players[4], offset=10)
        assert [r.rank for r in second.rows] == [11, 12]
        assert second.viewer is not None
        assert second.viewer.rank == 5
        beyond = await services.puzzles.leaderboard(GUILD, players[0], offset=40)
        assert beyond.offset == 10, "a page past the end shows the last one"
    finally:
        await services.close()


async def test_a_page_turned_from_its_last_line_neither_repeats_nor_skips_a_solver(
    database: str,
) -> None:
    """Seven players, five a page; the last one solves eight puzzles between two presses and
    leads: Next from page 1's last line shows the one player after it (7th now), not page 1's
    last again as the page from offset 5 would; Previous from there shows the five before it,
    and Previous again, with one solver left before the page, the whole first page (before:
    that one alone, after which Next repeated four)."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        players = list(range(100, 107))
        for place, user_id in enumerate(players):
            for _ in range(7 - place):
                await finish(services, clock, user_id, stored.SOLVED)
        first = await services.puzzles.leaderboard(GUILD, players[0], limit=5)
        assert [r.user_id for r in first.rows] == players[:5]
        for _ in range(8):
            await finish(services, clock, players[-1], stored.SOLVED)
        after = SolverKey.of(first.rows[-1])
        second = await services.puzzles.leaderboard(GUILD, players[0], limit=5, after=after)
        assert [(r.rank, r.user_id) for r in second.rows] == [(7, players[5])]
        assert (second.offset, second.total) == (6, 7)
        before = SolverKey.of(second.rows[0])
        back = await services.puzzles.leaderboard(GUILD, players[0], limit=5, before=before)
        assert [(r.rank, r.user_id) for r in back.rows] == list(
            zip(range(2, 7), players[:5], strict=True)
        )
        assert back.viewer is None
        assert back.offset == 1
        ahead = SolverKey.of(back.rows[0])
        top = await services.puzzles.leaderboard(GUILD, players[0], limit=5, before=ahead)
        leaders = [players[-1], *players[:4]]
        assert [(r.rank, r.user_id) for r in top.rows] == list(enumerate(leaders, start=1))
        assert top.offset == 0
        last = SolverKey.of(second.rows[-1])
        beyond = await services.puzzles.leaderboard(GUILD, players[0], limit=5, after=last)
        assert [r.user_id for r in beyond.rows] == [players[4], players[5]], "the last page"
        assert beyond.viewer is not None
        assert beyond.viewer.rank == 2
    finally:
        await services.close()


async def test_a_daily_puzzle_moved_by_hour_alone_keeps_the_channel_as_stored(
    database: str,
) -> None:
    """One process moves the daily puzzle to another channel; another, which read the setting
    before, moves its hour: the post keeps the new channel, at the new hour. With no channel
    and the daily puzzle off, nothing is switched on."""
    clock = Clock()
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        assert await second.puzzles.set_daily(GUILD, None, 8) is None
        assert await first.puzzles.daily_setting(GUILD) is None
        await first.puzzles.set_daily(GUILD, CHANNEL, 12)
        assert await second.puzzles.daily_setting(GUILD) is not None
        await first.puzzles.set_daily(GUILD, CHANNEL + 1, None)
        moved = await second.puzzles.set_daily(GUILD, None, 8)
        assert moved is not None
        assert (moved.channel_id, moved.hour) == (CHANNEL + 1, 8)
    finally:
        await first.close()
        await second.close()


async def test_presses_of_another_puzzle_at_once_open_one_attempt(database: str) -> None:
    """Three presses of "Another puzzle" at the same moment show one new puzzle, each press
    the same attempt (on PostgreSQL each opened one, drawn from the easiest few)."""
    services = await Services.open(database, clock=Clock())
    try:
        for user_id in range(ALICE, ALICE + 8):
            shown = await asyncio.gather(
                *(services.puzzles.start(guild_id=GUILD, user_id=user_id) for _ in range(3))
            )
            assert len({attempt.attempt_id for attempt in shown}) == 1, shown
            async with services.database.snapshot() as db:
                assert len(await stored.open_attempts(db, user_id)) == 1
    finally:
        await services.close()


async def test_a_daily_puzzle_switched_off_by_a_departure_says_why_until_an_admin_acts(
    database: str,
) -> None:
    """The bot removed from the server switches its daily puzzle off and notes why; switching
    it on again forgets it, and an admin's own off notes nothing."""
    services = await Services.open(database, clock=Clock())
    try:
        assert await services.puzzles.why_daily_off(GUILD) is None
        await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        await services.vanished.guild_gone(GUILD)
        assert await services.puzzles.daily_setting(GUILD) is None
        assert await services.puzzles.why_daily_off(GUILD) is DailyStop.LEFT_SERVER
        await services.vanished.guild_gone(GUILD)  # told again: still the same reason
        assert await services.puzzles.why_daily_off(GUILD) is DailyStop.LEFT_SERVER
        await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        assert await services.puzzles.why_daily_off(GUILD) is None
        await services.vanished.channel_gone(CHANNEL)
        assert await services.puzzles.why_daily_off(GUILD) is DailyStop.CHANNEL_DELETED
        await services.puzzles.stop_daily(GUILD)
        assert await services.puzzles.why_daily_off(GUILD) is None
    finally:
        await services.close()
