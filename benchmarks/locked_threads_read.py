"""How long weighing a server's locked threads takes to read which have games, on SQLite and a
throwaway PostgreSQL: one read per thread (before), against one read for them all.

Run from the repository root::

    .venv/bin/python -m benchmarks.locked_threads_read --threads 200 --sets 10000

On each backend (``--backend``: a temporary SQLite file, and the tests' throwaway PostgreSQL
server, tests/postgres_server.py) it starts one set through the services and copies it into
``--sets`` sets in progress (bench ``give_back_speed``'s copies), then times, the median of
``--runs``: ``--threads`` locked threads without games asked about one by one
(:meth:`GameService.in_channel`, as each role, channel or own-member change did per locked
thread), and all of them at once (:meth:`GameService.guilds_in_play`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from benchmarks.backends import BACKENDS, on_each_backend
from benchmarks.give_back_speed import copy_sets
from bot.services import Services
from tests.conftest import ALICE, BOB, CHANNEL, GUILD, FakeClock

FIRST_THREAD = 9_000_000_000
"""The first of the locked threads' ids: none of them has a game."""


async def _median(runs: int, work: Callable[[], Awaitable[object]]) -> float:
    """The median time of ``runs`` runs of ``work``, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def _run(database: str, args: argparse.Namespace) -> None:
    services = await Services.open(database, clock=FakeClock())
    try:
        challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
        await services.challenges.accept(challenge.challenge_id, BOB)
        await copy_sets(services, args.sets, 100)
        threads = list(range(FIRST_THREAD, FIRST_THREAD + args.threads))
        games = services.games

        async def one_by_one() -> None:
            for thread_id in threads:
                assert await games.in_channel(thread_id) is None

        async def at_once() -> None:
            assert await games.guilds_in_play(threads) == {}

        print(f"  {args.threads} threads one by one: {await _median(args.runs, one_by_one):.1f} ms")
        print(f"  {args.threads} threads at once:    {await _median(args.runs, at_once):.1f} ms")
    finally:
        await services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backend", choices=BACKENDS, default="both")
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(on_each_backend(args.backend, lambda database: _run(database, args)))


if __name__ == "__main__":
    main()
