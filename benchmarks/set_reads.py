"""What a set read costs for its count of moves taken back, on SQLite and PostgreSQL.

Run from the repository root::

    .venv/bin/python -m benchmarks.set_reads            # --quick: a tenth of the sizes

Every read of a set (:data:`bot.storage.sets.SET_COLUMNS`) returns how many of its moves were
taken back (:attr:`bot.storage.sets.SetRow.undone`). Before schema 30 that was a subquery
counting the set's rows of ``undone_moves``, paid by every read, also by the reads that never
use it (a player's history, the rating pools' replay, ``/games``); since then it is a column of
the set, kept by the takeback's own transaction. This times the same storage reads both ways
on one server: 10,000 players, 100,000 finished sets (``storage_speed``'s leaderboard server),
1,000 of them in progress instead, a tenth of all sets with one to three moves taken back; the
SQLite file is copied into a throwaway PostgreSQL (tests/postgres_server.py, a Unix socket).
Medians of ``--runs`` calls, reads alternating between the two ways.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from benchmarks.storage_speed import GUILD, populate_guild
from bot.storage import Database, history, sets
from bot.storage.connection import Connection
from bot.storage.copying import copy_database
from bot.storage.postgresql import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase
from tests import postgres_server

COUNTED = "(SELECT count(*) FROM undone_moves u WHERE u.set_id = g.set_id)"
"""The count every set read made before schema 30."""

ACTIVE = 1000
"""Sets in progress (the newest ones, each in a channel of its own)."""


def _select(undone: str) -> str:
    """:data:`bot.storage.sets.SET_SELECT` with ``undone`` as its last column."""
    current = sets.SET_COLUMNS.rsplit(",", 1)[0]
    return f"SELECT {current}, {undone} FROM sets g JOIN matches m USING (match_id)"


def _use(select: str) -> None:
    """The storage reads of sets read with ``select`` from now on (their queries are built at
    each call from the module's :data:`~bot.storage.sets.SET_SELECT`)."""
    sets.SET_SELECT = select
    history.SET_SELECT = select  # type: ignore[attr-defined]  # imported there, not exported


def populate(path: Path, players: int, total: int, seed: int) -> tuple[int, int]:
    """The leaderboard server, some sets in progress and some moves taken back; returns a set
    in progress and the channel it is played in."""
    populate_guild(path, players, total, seed)
    rng = random.Random(seed)
    with sqlite3.connect(path) as raw:
        raw.execute(
            "UPDATE sets SET status = 'active', channel_id = 1000000 + set_id, "
            "winner_side = NULL, winner_id = NULL, reason = NULL, finished_us = NULL, "
            "deadline_us = 9000000000000000, reminder_us = 9000000000000000 WHERE set_id > ?",
            (total - ACTIVE,),
        )
        takebacks, undone = [], []
        takeback_id = 0
        for set_id in rng.sample(range(1, total + 1), total // 10):
            for ply in range(1, rng.randint(1, 3) + 1):
                takeback_id += 1
                takebacks.append((takeback_id, set_id, ply + 1))
                undone.append((set_id, ply, takeback_id))
        raw.executemany(
            "INSERT INTO takebacks (takeback_id, set_id, ply, asked_by, answered_by, status, "
            "asked_us, expires_us, answered_us) VALUES (?, ?, ?, 1000, 1001, 'accepted', 0, 0, 0)",
            takebacks,
        )
        raw.executemany(
            "INSERT INTO undone_moves (set_id, ply, notation, captures, player_id, played_us, "
            "takeback_id, undone_us) VALUES (?, ?, 'd1-c1', '', 1000, 0, ?, 0)",
            undone,
        )
        raw.execute("ANALYZE")
        row = raw.execute("SELECT set_id, channel_id FROM sets WHERE set_id = ?", (total,))
        set_id, channel_id = row.fetchone()
    return int(set_id), int(channel_id)


def _reads(set_id: int, channel_id: int) -> dict[str, Callable[[Connection], Awaitable[object]]]:
    """The reads timed, by what they serve."""
    return {
        "a set by id (a button, a board)": lambda db: sets.by_id(db, set_id),
        "the set in a channel (/move's read)": lambda db: sets.active_in_channel(db, channel_id),
        "/games page 1 (10 of 1,000 in progress)": lambda db: sets.in_progress(
            db, GUILD, None, 0, 10
        ),
        "every set in progress (start-up)": lambda db: sets.active(db),
        "a player's 10 latest sets (/stats)": lambda db: history.recent_finished(
            db, GUILD, 1500, 10
        ),
        "every rated set (the rating pools' replay)": lambda db: history.rated_sets(db),
    }


async def _time(database: Database, read: Callable[[Connection], Awaitable[object]]) -> float:
    async with database.snapshot() as db:
        start = time.perf_counter()
        await read(db)
        return (time.perf_counter() - start) * 1000


async def measure(target: str | Path, set_id: int, channel_id: int, runs: int) -> None:
    """Print the median of each read, with the count and with the column."""
    ways = {"count": COUNTED, "column": "g.undone"}
    database = await Database.open(target)
    saved = sets.SET_SELECT
    try:
        for label, read in _reads(set_id, channel_id).items():
            times: dict[str, list[float]] = {way: [] for way in ways}
            rounds = runs if "every rated" not in label else max(5, runs // 5)
            for _ in range(rounds):
                for way, undone in ways.items():
                    _use(_select(undone))
                    times[way].append(await _time(database, read))
            counted, column = (statistics.median(times[way]) for way in ways)
            print(
                f"  {label}: {counted:.2f} ms counted, {column:.2f} ms from the column "
                f"({counted - column:+.2f} ms)"
            )
    finally:
        _use(saved)
        await database.close()


async def _copy(source: Path, target: str) -> None:
    lite = await Database.open(source)
    pg = await Database.open(target)
    try:
        assert isinstance(lite, SqliteDatabase)
        assert isinstance(pg, PostgresDatabase)
        await copy_database(lite, pg)
    finally:
        await lite.close()
        await pg.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=50, help="calls for each median")
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    options = parser.parse_args()
    players, total = (1000, 10_000) if options.quick else (10_000, 100_000)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sets.sqlite3"
        set_id, channel_id = populate(path, players, total, 1)
        print(f"SQLite ({players:,} players, {total:,} sets, a tenth with moves taken back):")
        asyncio.run(measure(path, set_id, channel_id, options.runs))
        server = postgres_server.start()
        if isinstance(server, str):
            raise SystemExit(f"No PostgreSQL: {server}.")
        try:
            target = asyncio.run(postgres_server.create_database(server))
            asyncio.run(_copy(path, target))
            print("PostgreSQL (the same sets, copied, vacuumed and analysed):")
            asyncio.run(measure(target, set_id, channel_id, options.runs))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
