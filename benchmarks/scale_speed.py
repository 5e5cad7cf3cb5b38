"""Storage at scale: move writes on PostgreSQL next to SQLite, the leaderboard on PostgreSQL.

Run from the project root::

    python -m benchmarks.scale_speed        # starts a throwaway PostgreSQL server of its own

Targets (issue 15): at least 2,000 move writes/s through the services on PostgreSQL; a
leaderboard page of a server with 10,000 players under 10 ms on PostgreSQL. Move writes are
measured in one process (one move at a time, then 200 games at once) and in two processes
writing at once, as two shard processes would. The throwaway
server keeps PostgreSQL's default durability (fsync on, synchronous commit), as a real one
would; it runs on the same 2-core machine as the benchmark, over a Unix socket.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
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
    """One run of move writes: the rate, and the CPU each move cost in the writing processes
    and in the database server (None for SQLite, which runs in the writing process)."""

    per_second: float
    python_ms: float
    server_ms: float | None


@dataclass(frozen=True)
class Timed:
    """What one writing process did in its timed part (monotonic clock, shared by processes)."""

    moves: int
    started: float
    ended: float
    cpu: float
    server_cpu: float
    """The PostgreSQL server's CPU seconds meanwhile (0 unless its server was given)."""


async def play_moves(
    database: str,
    games_count: int,
    moves_per_game: int,
    seed: int,
    concurrent: bool,
    *,
    first_channel: int = 100,
    server: PostgresServer | None = None,
    together: Callable[[], object] | None = None,
) -> Timed:
    """Play ``moves_per_game`` moves in each of ``games_count`` games (channels from
    ``first_channel``) through ``services.games.play``; with ``concurrent`` every game's next
    move is sent at once (as many players do). The games are set up first, then the moves are
    timed, with the CPU of ``server`` (the PostgreSQL server of ``database``, if given).
    ``together`` (if any) is called in a thread before and after the timed part, for
    processes to start together and to stay connected until all are done."""
    rng = random.Random(seed)
    scripts = [random_moves(rng, moves_per_game) for _ in range(games_count)]
    services = await Services.open(database)
    try:
        await services.settings.change(GUILD, threads=False)
        for index in range(games_count):
            channel = first_channel + index
            challenge = await services.challenges.create(GUILD, channel, 10, 11 + index)
            await services.challenges.accept(challenge.challenge_id, 11 + index)
        if together is not None:
            await asyncio.get_running_loop().run_in_executor(None, together)
        players = {index: (10, 11 + index) for index in range(games_count)}
        total = 0
        # The server's CPU counts its connections while they are open: before the close.
        server_cpu = 0.0 if server is None else postgres_cpu(server)
        cpu = time.process_time()
        started = time.monotonic()
        for ply in range(moves_per_game):
            calls = [
                services.games.play(first_channel + index, players[index][ply % 2], script[ply])
                for index, script in enumerate(scripts)
                if ply < len(script)
            ]
            if concurrent:
                await asyncio.gather(*calls)
            else:
                for call in calls:
                    await call
            total += len(calls)
        ended = time.monotonic()
        cpu = time.process_time() - cpu
        server_cpu = 0.0 if server is None else postgres_cpu(server) - server_cpu
        if together is not None:
            await asyncio.get_running_loop().run_in_executor(None, together)
    finally:
        await services.close()
    return Timed(total, started, ended, cpu, server_cpu)


async def move_writes(
    database: str,
    games_count: int,
    moves_per_game: int,
    seed: int,
    concurrent: bool,
    server: PostgresServer | None = None,
) -> MoveWrites:
    """Moves per second through ``services.games.play`` over ``games_count`` games in this
    process (see :func:`play_moves`). ``server`` is the PostgreSQL server of ``database``,
    whose CPU is measured too."""
    timed = await play_moves(database, games_count, moves_per_game, seed, concurrent, server=server)
    return MoveWrites(
        timed.moves / (timed.ended - timed.started),
        1000 * timed.cpu / timed.moves,
        None if server is None else 1000 * timed.server_cpu / timed.moves,
    )


def _writer(
    database: str,
    games_count: int,
    seed: int,
    first_channel: int,
    start: Barrier,
    out: Queue[Timed],
) -> None:
    """One writing process of :func:`parallel_move_writes`."""
    moves = play_moves(
        database, games_count, 20, seed, True, first_channel=first_channel, together=start.wait
    )
    out.put(event_loop.run(moves))


def parallel_move_writes(
    database: str, processes: int, games_count: int, seed: int, server: PostgresServer
) -> MoveWrites:
    """Moves per second of ``processes`` writing processes at once (as shard processes do),
    each with ``games_count`` games moving at once; the server's CPU is measured over the
    timed part only."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(processes + 1)
    out: Queue[Timed] = context.Queue()
    writers = [
        context.Process(
            target=_writer,
            args=(database, games_count, seed + number, 100 + 10_000 * number, start, out),
        )
        for number in range(processes)
    ]
    for writer in writers:
        writer.start()
    start.wait()  # every game of every process is set up: the moves begin now
    server_cpu = postgres_cpu(server)
    start.wait()  # every process has made its moves, and is still connected
    server_cpu = postgres_cpu(server) - server_cpu
    runs = [out.get() for _ in writers]
    for writer in writers:
        writer.join()
        if writer.exitcode != 0:
            sys.exit(f"scale_speed: a writing process failed (exit code {writer.exitcode}).")
    moves = sum(run.moves for run in runs)
    elapsed = max(run.ended for run in runs) - min(run.started for run in runs)
    return MoveWrites(
        moves / elapsed,
        1000 * sum(run.cpu for run in runs) / moves,
        1000 * server_cpu / moves,
    )


async def leaderboard_on_postgresql(source: Path, target: str) -> dict[str, float]:
    lite = await Database.open(source)
    pg = await Database.open(target)
    try:
        assert isinstance(lite, SqliteDatabase)
        assert isinstance(pg, PostgresDatabase)
        started = time.perf_counter()
        await copy_database(lite, pg)
        copied = time.perf_counter() - started  # with its VACUUM (ANALYZE)
    finally:
        await lite.close()
        await pg.close()
    figures = await leaderboard_times(target, 30)
    figures["copy_database of that server (seconds)"] = copied
    return figures


def _report(what: str, runs: list[MoveWrites], writers: str) -> None:
    """Print the medians of ``runs``."""
    server = [r.server_ms for r in runs if r.server_ms is not None]
    print(
        f"move writes via services.games.play on {what}: median "
        f"{statistics.median(r.per_second for r in runs):,.0f} moves/s "
        f"(runs: {', '.join(f'{r.per_second:,.0f}' for r in runs)}; "
        f"target >= 2,000); CPU a move: {writers} "
        f"{statistics.median(r.python_ms for r in runs):.2f} ms"
        + (f", the PostgreSQL server {statistics.median(server):.2f} ms" if server else "")
    )


def main() -> None:
    """Run the measurements and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="repetitions for each median")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke test)")
    parser.add_argument(
        "--moves-only", action="store_true", help="measure the move writes only (no leaderboard)"
    )
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
                    _report(f"{label}, {way}", runs, "this process")
            runs = []
            for run in range(options.runs):
                target = asyncio.run(postgres_server.create_database(server))
                runs.append(parallel_move_writes(target, 2, 200, run, server))
            _report(
                "PostgreSQL, two processes (as two shards) with 200 games each at once",
                runs,
                "the two processes",
            )
            print(
                f"(event loop: {event_loop.name()}, as the bot runs; load average after the "
                f"move writes: {os.getloadavg()[0]:.1f})"
            )
            if options.moves_only:
                return
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
