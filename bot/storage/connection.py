"""What the storage modules talk to: one connection inside a transaction or a snapshot.

Both backends (SQLite through aiosqlite, PostgreSQL through asyncpg) hand the storage modules a
:class:`Connection`. Its SQL uses ``?`` placeholders (the PostgreSQL connection numbers them
``$1, $2 …``) and the subset both dialects share: ``INSERT … RETURNING``, ``ON CONFLICT … DO
UPDATE``, partial indexes, ``CAST``. Where the dialects differ a storage module asks
:attr:`Connection.dialect`. A constraint the database refuses is raised as
:class:`~bot.storage.errors.ConstraintViolated` whichever backend refused it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

Row = Sequence[Any]
"""One result row: its columns by position."""

Params = Sequence[Any]
"""The values for a statement's ``?`` placeholders, in order."""


class Dialect(enum.Enum):
    """Which database a connection talks to."""

    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


class Connection(Protocol):
    """A connection inside a transaction (or a read-only snapshot) of either backend."""

    @property
    def dialect(self) -> Dialect:
        """Which database this is (for the few statements written per dialect)."""
        ...

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; return how many rows it inserted, changed or deleted."""
        ...

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""
        ...

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query (or of a statement with ``RETURNING``)."""
        ...

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query, or None."""
        ...

    async def lock(self, name: str) -> None:
        """Hold the lock ``name`` until the transaction ends, so read-then-write work under it
        (a rating update, a rebuild) is never interleaved with the same work elsewhere.

        SQLite runs one write transaction at a time, so there it costs nothing; PostgreSQL
        takes a transaction-scoped advisory lock that every process sharing the database sees.
        """
        ...
