"""What noting a posted board costs (``BoardService.board_posted``): round trips to PostgreSQL and
time, next to SQLite.

Run from the repository root::

    .venv/bin/python -m benchmarks.board_posted            # --runs: boards per median

After each move's board is out, the bot notes it in one transaction: the outbox need not post
it, and it takes the buttons if its set still stands at that position (a board out after the
next move is an old picture). This plays ``--runs`` moves in a set between two members and
notes each move's board (the common case: it takes the buttons), then notes each of them again
once the next move has landed (a late board: it does not), counting the statements sent to a
throwaway PostgreSQL (tests/postgres_server.py, a Unix socket; ``BEGIN`` and ``COMMIT`` are one
round trip each) and timing the calls (medians).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from benchmarks.storage_speed import random_moves
from bot.services import ActiveGame, Services
from bot.storage.postgresql import PostgresConnection, PostgresDatabase
from tests import postgres_server
from tests.conftest import ALICE, BOB, CHANNEL, GUILD

STATEMENTS = ("execute", "execute_many", "fetch_all", "fetch_one")
"""The methods of :class:`PostgresConnection` that send one statement each."""


@contextmanager
def counted(tally: Counter[str]) -> Iterator[None]:
    """Count every statement sent to PostgreSQL meanwhile, and ``BEGIN``/``COMMIT`` of each
    transaction (``tally["round trips"]``)."""
    saved: dict[str, Any] = {name: getattr(PostgresConnection, name) for name in STATEMENTS}
    transaction = PostgresDatabase.transaction

    def counting(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(self: PostgresConnection, *args: Any, **kwargs: Any) -> Any:
            tally["round trips"] += 1
            return await method(self, *args, **kwargs)

        return call

    @asynccontextmanager
    async def counted_transaction(self: PostgresDatabase) -> AsyncIterator[PostgresConnection]:
        tally["round trips"] += 2  # BEGIN and COMMIT
        async with transaction(self) as db:
            yield db

    patches: list[tuple[type, str, Any, Any]] = [
        (PostgresConnection, name, counting(method), method) for name, method in saved.items()
    ]
    patches.append((PostgresDatabase, "transaction", counted_transaction, transaction))
    for owner, name, patched, _ in patches:
        setattr(owner, name, patched)
    try:
        yield
    finally:
        for owner, name, _, original in patches:
            setattr(owner, name, original)


async def measure(target: str | Path, runs: int) -> dict[str, tuple[float, float]]:
    """For each way a board is noted: the median milliseconds and round trips per call."""
    services = await Services.open(target)
    times: dict[str, list[float]] = {"live": [], "late": []}
    trips: dict[str, list[int]] = {"live": [], "late": []}
    try:
        challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
        await services.challenges.accept(challenge.challenge_id, BOB)
        script = random_moves(random.Random(1), runs + 1)
        played: list[ActiveGame] = []
        for ply, move in enumerate(script):
            mover = (ALICE, BOB)[ply % 2]
            moved = await services.games.play(CHANNEL, mover, move)
            played.append(moved.game)
            noted = [("live", moved.game)] + ([("late", played[-2])] if len(played) > 1 else [])
            for way, active in noted:
                tally: Counter[str] = Counter()
                with counted(tally):
                    start = time.perf_counter()
                    await services.boards.board_posted(active, 1000 + ply, shows=active)
                    times[way].append((time.perf_counter() - start) * 1000)
                trips[way].append(tally["round trips"])
    finally:
        await services.close()
    return {way: (statistics.median(times[way]), statistics.median(trips[way])) for way in times}


def _print(label: str, figures: dict[str, tuple[float, float]], postgresql: bool) -> None:
    for way, (ms, trips) in figures.items():
        what = "its board takes the buttons" if way == "live" else "a late board"
        print(
            f"  {label}, {what}: median {ms:.2f} ms"
            + (f", {trips:.0f} round trips" if postgresql else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=40, help="boards noted for each median")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        _print("SQLite", asyncio.run(measure(Path(folder) / "boards.sqlite3", options.runs)), False)
    server = postgres_server.start()
    if isinstance(server, str):
        raise SystemExit(f"No PostgreSQL: {server}.")
    try:
        target = asyncio.run(postgres_server.create_database(server))
        _print("PostgreSQL", asyncio.run(measure(target, options.runs)), True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
