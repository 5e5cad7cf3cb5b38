"""What the database keeps after days of play, with and without the hourly sweep of rows
nobody reads again (bot/services/pruning.py).

Run from the repository root::

    .venv/bin/python -m benchmarks.growth --days 60 --matches 2

On each backend (``--backend``) it plays ``--days`` days through the services with a fake
clock (tests/days_of_play.py: ``--matches`` matches a day of two sets of six moves, every board
noted delivered, a challenge declined and one withdrawn), once never sweeping and once sweeping
after each day, and prints the rows of each table at the end of both runs.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from benchmarks.backends import BACKENDS, on_each_backend
from bot.services import Services
from tests.conftest import FakeClock
from tests.days_of_play import TABLES, count_rows, play_day


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--matches", type=int, default=2, help="matches a day")
    parser.add_argument("--backend", choices=BACKENDS, default="sqlite")
    args = parser.parse_args()

    async def run(database: str) -> None:
        clock = FakeClock()
        services = await Services.open(database, clock=clock)
        try:
            for _ in range(args.days):
                await play_day(services, clock, matches=args.matches)
            kept = await count_rows(services)
            started = time.perf_counter()
            deleted, more_left = 0, True
            while more_left:  # the timers' checks, one after the other
                sweep = await services.pruning.prune()
                deleted, more_left = deleted + sweep.deleted, sweep.more_left
            took = time.perf_counter() - started
            swept = await count_rows(services)
        finally:
            await services.close()
        print(f"  {args.days} days, {args.matches} matches a day; the sweep deleted {deleted:,}")
        print(f"  rows in {took * 1000:.0f} ms")
        print(f"  {'table':<24}{'before':>10}{'swept':>10}")
        for table in TABLES:
            print(f"  {table:<24}{kept[table]:>10,}{swept[table]:>10,}")

    await on_each_backend(args.backend, run)


if __name__ == "__main__":
    asyncio.run(main())
