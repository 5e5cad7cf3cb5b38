"""A busy server's reads: /stats and its head to head between two players who met a thousand
times, and the puzzle leaderboard over thousands of attempts, on SQLite.

Run from the project root::

    python -m benchmarks.busy_server

The server has 100 rated players and 100,000 finished sets (50,000 matches): each player has
2,000 sets, a thousand of them against one opponent. The puzzle leaderboard counts 5,000
finished attempts by 500 players. Figures are medians of 20 calls through the services (the
machine is shared). No target: the tests check what the reads return; these say how long.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.storage_speed import GUILD, populate_guild
from bot.services import Services
from bot.services.puzzle_leaderboard import Period
from bot.storage import players, puzzles

PLAYER = 1007
OPPONENT = 1008
"""Two players of ``populate_guild``'s server who play each other in every match they play."""


async def median_ms(call: Callable[[], Awaitable[Any]], runs: int) -> float:
    """The median milliseconds of ``runs`` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def standings_times(path: Path, runs: int) -> dict[str, float]:
    """/stats' reads of ``PLAYER`` with ``OPPONENT`` asking."""
    services = await Services.open(path)
    try:
        standings = services.standings
        head = await standings.head_to_head(GUILD, PLAYER, OPPONENT)
        assert head.games + head.draws >= 900, head  # the pair met about a thousand times
        return {
            "player stats (2,000 sets)": await median_ms(
                lambda: standings.player_stats(GUILD, PLAYER), runs
            ),
            "head to head (1,000 sets, 500 matches together)": await median_ms(
                lambda: standings.head_to_head(GUILD, PLAYER, OPPONENT), runs
            ),
        }
    finally:
        await services.close()


async def puzzle_times(path: Path, attempts: int, solvers: int, runs: int) -> dict[str, float]:
    """The puzzle leaderboard's first and last pages over ``attempts`` finished attempts by
    ``solvers`` players (stored through the storage layer), a viewer on neither."""
    rng = random.Random(1)
    services = await Services.open(path)
    try:
        now = datetime.now(UTC)
        async with services.database.transaction() as db:
            for index in range(solvers):
                await players.upsert(db, 5000 + index, f"Solver {index}", now)
            for number in range(attempts):
                row = await puzzles.start(
                    db,
                    user_id=5000 + rng.randrange(solvers),
                    guild_id=GUILD,
                    puzzle_id=f"bench-{number}",
                    daily_day=None,
                    now_us=number,
                )
                await puzzles.advance(
                    db,
                    row.attempt_id,
                    line_before=(),
                    line=("d1-d3",),
                    status=rng.choice(("solved", "failed")),
                    now_us=attempts + number,
                    guild_id=GUILD,
                )
        board = services.puzzles
        viewer = 5000 + solvers // 2
        last = (solvers - 1) // 10 * 10
        return {
            f"puzzle leaderboard page 1 ({attempts:,} attempts)": await median_ms(
                lambda: board.leaderboard(GUILD, viewer, Period.ALL_TIME, 0, 10), runs
            ),
            f"puzzle leaderboard last page ({attempts:,} attempts)": await median_ms(
                lambda: board.leaderboard(GUILD, viewer, Period.ALL_TIME, last, 10), runs
            ),
        }
    finally:
        await services.close()


def main() -> None:
    """Fill the server and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="calls for each median")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "busy.sqlite3"
        populate_guild(path, 100, 100_000, 1)
        figures = asyncio.run(standings_times(path, options.runs))
        figures |= asyncio.run(puzzle_times(path, 5000, 500, options.runs))
    for label, value in figures.items():
        print(f"{label}: median {value:.2f} ms")


if __name__ == "__main__":
    main()
