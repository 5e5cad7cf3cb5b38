"""The puzzle leaderboard of a server whose members finished many puzzles, on each backend.

Run from the project root::

    python -m benchmarks.puzzle_board [--attempts 100000] [--solvers 5000] [--backend both]
    python -m benchmarks.puzzle_board --drop-index puzzle_attempts_by_solver  # without it

Every page of /puzzle leaderboard counts all of the server's finished attempts (all time) or
those of the last 30 days, ranks every solver and returns ten of them and the asker's line; a
page turned by Next also counts the solvers up to the key its button carries (the line shown
before it), measured apart. The
server's attempts finish over the last 90 days; another server holds as many; the tables are
then analysed (and vacuumed on PostgreSQL), as they would be a while later. Figures are
medians of ``--runs`` calls through the services (the machine is shared), then each backend's
plan of the query. No target: the tests check what the page holds; this says how long.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.backends import BACKENDS, on_each_backend
from bot.services import Services
from bot.services.puzzle_leaderboard import Period, SolverKey
from bot.storage import Dialect, puzzles
from bot.storage.times import to_us

GUILD = 7000
OTHER_GUILD = 7001
FIRST_SOLVER = 500_000


async def fill(services: Services, attempts: int, solvers: int, now: datetime) -> None:
    """``attempts`` finished attempts by ``solvers`` players in each of two servers, finished
    over the 90 days before ``now``, about two thirds solved."""
    rng = random.Random(1)
    span_us = to_us(now) - to_us(now - timedelta(days=90))
    async with services.database.transaction() as db:
        await db.execute_many(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, 0)",
            [(FIRST_SOLVER + n, f"Solver {n}") for n in range(solvers)],
        )
        rows = []
        for guild_id in (GUILD, OTHER_GUILD):
            for number in range(attempts):
                finished_us = to_us(now) - rng.randrange(span_us)
                rows.append(
                    (
                        FIRST_SOLVER + rng.randrange(solvers),
                        guild_id,
                        f"bench-{guild_id}-{number}",
                        "solved" if rng.random() < 0.66 else "failed",
                        finished_us - 60_000_000,
                        finished_us,
                    )
                )
        await db.execute_many(
            "INSERT INTO puzzle_attempts (user_id, guild_id, puzzle_id, status, started_us, "
            "finished_us) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, puzzle_id) DO NOTHING",
            rows,
        )
    await settle(services)


async def settle(services: Services) -> None:
    """What autovacuum would do a while after: the planner's statistics (and on PostgreSQL the
    visibility map, without which an index-only scan still visits the rows)."""
    async with services.database.single_statement() as db:
        await db.execute("VACUUM (ANALYZE)" if db.dialect is Dialect.POSTGRESQL else "ANALYZE")


async def median_ms(
    services: Services, period: Period, offset: int, runs: int, *, by_key: bool = False
) -> float:
    """The median milliseconds of ``runs`` reads of the page at ``offset``: asked by its
    offset (the command), or ``by_key`` as Next turns to it (from the line before it)."""
    viewer = FIRST_SOLVER + 1
    after = None
    if by_key and offset:
        before = await services.puzzles.leaderboard(GUILD, viewer, period, offset - 10, 10)
        after = SolverKey.of(before.rows[-1])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await services.puzzles.leaderboard(GUILD, viewer, period, offset, 10, after=after)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(
    database: str, attempts: int, solvers: int, runs: int, drop_index: str | None
) -> None:
    """Fill ``database``, then print the pages' figures and the query's plan."""
    now = datetime.now(UTC)
    services = await Services.open(database, clock=lambda: now)
    try:
        await fill(services, attempts, solvers, now)
        if drop_index is not None:
            async with services.database.transaction() as db:
                await db.execute(f"DROP INDEX {drop_index}")
            await settle(services)
            print(f"  (without {drop_index})")
        for period in Period:
            board = await services.puzzles.leaderboard(GUILD, FIRST_SOLVER, period, 0, 10)
            last = (board.total - 1) // 10 * 10
            figures = [
                f"{label} {await median_ms(services, period, offset, runs):.1f} ms"
                for label, offset in (
                    ("page 1", 0),
                    ("middle", last // 2 // 10 * 10),
                    ("last", last),
                )
            ]
            print(f"  {period.value}: {board.total} solvers; " + ", ".join(figures))
            turned = [
                f"{label} {await median_ms(services, period, offset, runs, by_key=True):.1f} ms"
                for label, offset in (("middle", last // 2 // 10 * 10), ("last", last))
            ]
            print(f"  {period.value}, turned by Next: " + ", ".join(turned))
        async with services.database.snapshot() as db:
            for period in Period:
                since = period.since(now)
                params = (GUILD, 0 if since is None else to_us(since), 0, 10, FIRST_SOLVER)
                if db.dialect is Dialect.SQLITE:
                    plan = await db.fetch_all(f"EXPLAIN QUERY PLAN {puzzles.SOLVERS_BOARD}", params)
                    lines = [str(row[3]) for row in plan]
                else:
                    plan = await db.fetch_all(f"EXPLAIN {puzzles.SOLVERS_BOARD}", params)
                    lines = [str(row[0]) for row in plan]
                print(f"  plan ({period.value}):")
                for line in lines:
                    print(f"    {line}")
    finally:
        await services.close()


def main() -> None:
    """Parse the options, fill each backend and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attempts", type=int, default=100_000, help="finished, each server")
    parser.add_argument("--solvers", type=int, default=5_000, help="players who finished them")
    parser.add_argument("--runs", type=int, default=9, help="calls for each median")
    parser.add_argument("--backend", choices=BACKENDS, default="both")
    parser.add_argument("--drop-index", help="an index to drop before measuring (to compare)")
    options = parser.parse_args()
    print(f"{options.attempts:,} attempts by {options.solvers:,} solvers in the server")

    async def run(database: str) -> None:
        await measure(database, options.attempts, options.solvers, options.runs, options.drop_index)

    asyncio.run(on_each_backend(options.backend, run))


if __name__ == "__main__":
    main()
