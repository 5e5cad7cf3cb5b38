"""The puzzle service on both backends: daily claims, stale answers, streaks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import bot.services.puzzles as puzzle_service
from bot.services import Services
from bot.services.errors import StaleGameError
from bot.storage import puzzles as stored

GUILD, CHANNEL, ALICE = 10, 20, 30


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_a_day_is_claimed_once_and_posted_once(database: str) -> None:
    """Two checks at the due time claim one post; once marked posted, nothing is owed."""
    clock = Clock()
    services = await Services.open(database, clock=clock)
    try:
        setting = await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        assert setting.next_post_us == int(datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp() * 1e6)
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
        attempt = await services.puzzles.start(ALICE, GUILD)
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
            attempt = await services.puzzles.start(ALICE, GUILD)
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
        drawn = await services.puzzles.start(ALICE, other_guild)  # /puzzle play elsewhere
        assert drawn.puzzle.puzzle_id == first.puzzle_id
        await services.puzzles.set_daily(GUILD, CHANNEL, 10)
        clock.now += timedelta(hours=1)
        await services.puzzles.claim_due()
        [owed] = await services.puzzles.posts_owed()
        assert owed.puzzle.puzzle_id == first.puzzle_id
        await services.puzzles.daily_posted(GUILD, owed.day, 1)
        daily = await services.puzzles.start_daily(ALICE, GUILD, first.puzzle_id, owed.day)
        await services.puzzles.record(daily, tuple(str(m) for m in first.solution), stored.SOLVED)
        clock.now += timedelta(days=1)
        await services.puzzles.claim_due()
        [tomorrow] = await services.puzzles.posts_owed()
        assert tomorrow.previous_solvers == (ALICE,)
    finally:
        await services.close()
