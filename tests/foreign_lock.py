"""Another program holding the database's write lock: a real second process, as in production."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

_HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("ROLLBACK")
print("released", flush=True)
"""


@asynccontextmanager
async def foreign_write_lock(db_path: Path, seconds: float) -> AsyncIterator[None]:
    """Another process holds ``BEGIN IMMEDIATE`` on ``db_path`` for ``seconds`` from entry.

    The body runs while the lock is held; leaving waits until the other process let it go.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _HOLDER,
        str(db_path),
        str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 10)
        assert line.strip() == b"locked", line
        yield
        await asyncio.wait_for(process.wait(), seconds + 10)
        assert process.returncode == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def busy_retries(caplog: pytest.LogCaptureFixture) -> int:
    """How many times work a Discord event asked for met the busy database and waits to be
    tried again (bot/flow/until_stored.py; ``caplog`` at INFO for bot.flow.until_stored)."""
    return sum("the database is busy, trying again" in r.getMessage() for r in caplog.records)
