"""Run a storage benchmark on each backend it is asked for: a temporary SQLite file, and the
tests' throwaway PostgreSQL server (tests/postgres_server.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests import postgres_server

BACKENDS = ("sqlite", "postgresql", "both")
"""The choices of a benchmark's ``--backend`` option."""


async def on_each_backend(backend: str, run: Callable[[str], Awaitable[None]]) -> None:
    """Await ``run`` with the database of each backend ``backend`` names (one of
    :data:`BACKENDS`), each under a heading; a missing PostgreSQL ends the benchmark."""
    if backend in ("sqlite", "both"):
        print("SQLite:")
        with tempfile.TemporaryDirectory() as folder:
            await run(str(Path(folder) / "bench.sqlite3"))
    if backend in ("postgresql", "both"):
        server = postgres_server.start()
        if isinstance(server, str):
            raise SystemExit(f"No PostgreSQL: {server}.")
        try:
            print("PostgreSQL:")
            await run(await postgres_server.create_database(server))
        finally:
            server.stop()
