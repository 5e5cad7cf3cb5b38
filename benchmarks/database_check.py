"""What the start-up check and a backup cost on a large database. Prints the figures.

    python -m benchmarks.database_check [--megabytes 100]

Builds a database of about ``--megabytes`` MB through the production migrations (real rows in
the players and moves tables), then measures, each on a fresh connection: SQLite's
``PRAGMA quick_check`` (run by every start), a whole ``Database.open`` (pragmas, quick check,
migrations, read connection), and one online backup with SQLite's backup API.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bot.storage import Database
from bot.storage.backups import take_backup

ROW_BYTES = 250


async def build(path: Path, megabytes: int) -> None:
    """A migrated database of about ``megabytes`` MB."""
    database = await Database.open(path)
    await database.close()
    rows = megabytes * 1024 * 1024 // ROW_BYTES
    with sqlite3.connect(path) as raw:
        raw.executemany(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?)",
            (
                (user_id, f"player {user_id:>12} " + "x" * (ROW_BYTES - 40), 0)
                for user_id in range(rows)
            ),
        )
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def timed_quick_check(path: Path) -> float:
    """Seconds for ``PRAGMA quick_check`` on a fresh connection."""
    started = time.perf_counter()
    with sqlite3.connect(path) as raw:
        verdict = raw.execute("PRAGMA quick_check").fetchone()[0]
    assert verdict == "ok", verdict
    return time.perf_counter() - started


async def timed_open(path: Path) -> float:
    """Seconds for the bot's whole ``Database.open`` (closing not counted)."""
    started = time.perf_counter()
    database = await Database.open(path)
    elapsed = time.perf_counter() - started
    await database.close()
    return elapsed


async def main(megabytes: int) -> None:
    """Build, measure, print."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.sqlite3"
        await build(path, megabytes)
        size = path.stat().st_size / 1024 / 1024
        checks = sorted(timed_quick_check(path) for _ in range(3))
        opens = sorted([await timed_open(path) for _ in range(3)])
        started = time.perf_counter()
        backup = take_backup(path, datetime.now(UTC))
        backed_up = time.perf_counter() - started
        print(f"database: {size:.0f} MB")
        print(f"PRAGMA quick_check: median {checks[1]:.2f} s (of 3; min {checks[0]:.2f} s)")
        print(f"Database.open with the check: median {opens[1]:.2f} s (of 3)")
        print(f"online backup ({backup.stat().st_size / 1024 / 1024:.0f} MB): {backed_up:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=100)
    asyncio.run(main(parser.parse_args().megabytes))
