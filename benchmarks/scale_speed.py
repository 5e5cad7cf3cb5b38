"""Storage at scale: move writes on PostgreSQL next to SQLite, the leaderboard on PostgreSQL.

Run from the project root::

    python -m benchmarks.scale_speed        # starts a throwaway PostgreSQL server of its own

Targets (issue 15): at least 2,000 move writes/s through the services on PostgreSQL; a
leaderboard page of a server with 10,000 players under 10 ms on PostgreSQL. The throwaway
server keeps PostgreSQL's default durability (fsync on, synchronous commit), as a real one
would; it runs on the same 2-core machine as the benchmark, over a Unix socket.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.shard_load import postgres_cpu
from benchmarks.storage_speed import leaderboard_times, populate_guild, random_moves
from bot import event_loop
from bot.services import Services
from bot.storage import Database
from bot.storage.copying import copy_database
from bot.storage.postgresql import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase
from tests import postgres_server
from tests.postgres_server import PostgresServer

GUILD = 1


@dataclass(frozen=True)
class MoveWrites:
    """One run of move writes: the rate, and the CPU each move cost in this process and in the
    database server (None for SQLite, which runs in this process)."""

    per_second: float
    python_ms: float
    server_ms: float | None


async def move_writes(
    database: str,
    games_count: int,
    moves_per_game: int,
    seed: int,
    concurrent: bool,
    server: PostgresServer | None = None,
) -> MoveWrites:
    """Moves per second through ``services.games.play`` over ``games_count`` games; with
    ``concurrent`` every game's next move is sent at once (as many players do). ``server``
    is the PostgreSQL server of ``database``, whose CPU is measured too."""
    rng = random.Random(seed)
    scripts = [random_moves(rng, moves_per_game) for _ in range(games_count)]
    services = await Services.open(database)
    try:
        await services.settings.update(GUILD, threads=False)
        for index in range(games_count):
            challenge = await services.challenges.create(GUILD, 100 + index, 10, 11 + index)
            await services.challenges.accept(challenge.challenge_id, 11 + index)
        players = {index: (10, 11 + index) for index in range(games_count)}
        total = 0
        cpu, server_cpu = time.process_time(), 0.0 if server is None else postgres_cpu(server)
        start = time.perf_counter()
        for ply in range(moves_per_game):
            calls = [
                services.games.play(100 + index, players[index][ply % 2], script[ply])
                for index, script in enumerate(scripts)
                if ply < len(script)
            ]
            if concurrent:
                await asyncio.gather(*calls)
            else:
                for call in calls:
                    await call
            total += len(calls)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        server_cpu = 0.0 if server is None else postgres_cpu(server) - server_cpu
    finally:
        await services.close()
    return MoveWrites(
        total / elapsed,
        1000 * cpu / total,
        None if server is None else 1000 * server_cpu / total,
    )


async def leaderboard_on_postgresql(source: Path, target: str) -> dict[str, float]:
    lite = await Database.open(source)
    pg = await Database.open(target)
    try:
        assert isinstance(lite, SqliteDatabase)
        assert isinstance(pg, PostgresDatabase)
        started = time.perf_counter()
        await copy_database(lite, pg)
        copied = time.perf_counter() - started
        async with pg.transaction() as db:
            await db.execute("ANALYZE")
    finally:
        await lite.close()
        await pg.close()
    figures = await leaderboard_times(target, 30)
    figures["copy_database of that server (seconds)"] = copied
    return figures


def main() -> None:
    """Run the measurements and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="repetitions for each median")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke test)")
    options = parser.parse_args()
    server = postgres_server.start(durable=True)
    if isinstance(server, str):
        sys.exit(f"scale_speed: {server}.")
    players, games_total = (1000, 10_000) if options.quick else (10_000, 100_000)
    try:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            for concurrent in (False, True):
                way = "200 games at once" if concurrent else "one move at a time"
                for label in ("SQLite", "PostgreSQL"):
                    runs = []
                    for run in range(options.runs):
                        measured = None
                        if label == "SQLite":
                            target = str(root / f"moves-{concurrent}-{run}.sqlite3")
                        else:
                            target = asyncio.run(postgres_server.create_database(server))
                            measured = server
                        count = 200 if concurrent else 20
                        writes = move_writes(target, count, 20, run, concurrent, measured)
                        runs.append(event_loop.run(writes))
                    print(
                        f"move writes via services.games.play on {label}, {way}: median "
                        f"{statistics.median(r.per_second for r in runs):,.0f} moves/s "
                        f"(runs: {', '.join(f'{r.per_second:,.0f}' for r in runs)}; "
                        f"target >= 2,000); CPU a move: this process "
                        f"{statistics.median(r.python_ms for r in runs):.2f} ms"
                        + (
                            ""
                            if measured is None
                            else ", the PostgreSQL server "
                            f"{statistics.median(r.server_ms or 0.0 for r in runs):.2f} ms"
                        )
                    )
            print(
                f"(event loop: {event_loop.name()}, as the bot runs; load average after the "
                f"move writes: {os.getloadavg()[0]:.1f})"
            )
            board = root / "leaderboard.sqlite3"
            populate_guild(board, players, games_total, 1)
            target = asyncio.run(postgres_server.create_database(server))
            figures = asyncio.run(leaderboard_on_postgresql(board, target))
            for label, value in figures.items():
                unit = "" if "seconds" in label else " ms"
                print(
                    f"PostgreSQL {label} ({players:,} players, {games_total:,} games): "
                    f"median {value:.2f}{unit}"
                    + (" (target < 10 ms)" if label == "leaderboard page 1" else "")
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
