"""The bot's database, whichever backend holds it, and the numbered migrations of each dialect.

``BRANDUBH_DB`` names it: a file path is an SQLite file (:mod:`bot.storage.sqlite`, the
embedded default), a ``postgresql://`` (or ``postgres://``) URL a PostgreSQL database shared by
any number of bot processes (:mod:`bot.storage.postgresql`). The services see only
:class:`Database` and the :class:`~bot.storage.connection.Connection` it hands out:

- :meth:`Database.snapshot`: one consistent, read-only view of the last committed state;
- :meth:`Database.transaction`: one write transaction, rolled back on any exception;
- :meth:`Database.single_statement`: exactly one write statement, atomic on its own.

Migrations: ``bot/migrations/NNNN_name.sql`` for SQLite and
``bot/migrations/postgresql/NNNN_name.sql`` for PostgreSQL, numbered from 1 without gaps. The
same number means the same schema in both dialects (the copy tool relies on it), so a new
migration is written twice, once per folder, with the same number and name.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from importlib import resources
from pathlib import Path
from typing import TypeVar

from bot.storage.connection import Connection, Dialect

T = TypeVar("T")

MIGRATIONS_PACKAGE = "bot"
MIGRATIONS_FOLDERS = {
    Dialect.SQLITE: ("migrations",),
    Dialect.POSTGRESQL: ("migrations", "postgresql"),
}

POSTGRESQL_SCHEMES = ("postgresql://", "postgres://")


def is_postgresql(target: str | Path) -> bool:
    """Whether ``BRANDUBH_DB``'s value names a PostgreSQL database (a libpq URL)."""
    return str(target).startswith(POSTGRESQL_SCHEMES)


def migrations(dialect: Dialect = Dialect.SQLITE) -> list[tuple[int, str, str]]:
    """The numbered migration scripts of ``dialect`` shipped with the bot: (version, name, SQL)."""
    folder = resources.files(MIGRATIONS_PACKAGE)
    for part in MIGRATIONS_FOLDERS[dialect]:
        folder = folder.joinpath(part)
    found: list[tuple[int, str, str]] = []
    for entry in folder.iterdir():
        name = entry.name
        if not name.endswith(".sql"):
            continue
        number = name.split("_", 1)[0]
        if not number.isdigit():
            continue
        found.append((int(number), name, entry.read_text(encoding="utf-8")))
    found.sort()
    # Numbers are handed out per piece of work, so a branch may hold 0009 before 0008 lands;
    # they must only be unique and start at 1.
    numbers = [version for version, _, _ in found]
    if (numbers and numbers[0] != 1) or len(set(numbers)) != len(numbers):
        raise RuntimeError(f"migration numbers must start at 1 and be unique: {numbers}")
    return found


def schema_version(dialect: Dialect = Dialect.SQLITE) -> int:
    """The schema version this code writes (the number of the dialect's last migration: a
    branch holding 0039 before 0037 lands migrates to 39, not to the count of its files)."""
    available = migrations(dialect)
    return available[-1][0] if available else 0


class Database(abc.ABC):
    """An open database of either backend. Build it with :meth:`open`; close it with
    :meth:`close`."""

    dialect: Dialect
    where: str
    """The database as the operator named it (a path, or a URL without its password)."""

    @classmethod
    async def open(
        cls,
        target: str | Path,
        *,
        busy_timeout: timedelta = timedelta(seconds=5),
        target_version: int | None = None,
        quick_check: bool = True,
    ) -> Database:
        """Open the database ``target`` names and apply its pending migrations.

        A ``postgresql://`` URL opens a connection pool to PostgreSQL; anything else is an
        SQLite file (created if missing). ``target_version`` stops migrating at that version
        (tests of older schemas); ``quick_check`` checks an SQLite file for damage first.
        Raises a :class:`~bot.storage.errors.StorageError` naming the database when it cannot
        be used. Waiting for a lock (or a connection) lasts at most ``busy_timeout``.
        """
        if is_postgresql(target):
            from bot.storage.postgresql import PostgresDatabase

            return await PostgresDatabase.connect(
                str(target), busy_timeout=busy_timeout, target_version=target_version
            )
        from bot.storage.sqlite import SqliteDatabase

        return await SqliteDatabase.connect(
            Path(target),
            busy_timeout=busy_timeout,
            target_version=target_version,
            quick_check=quick_check,
        )

    @abc.abstractmethod
    def snapshot(self) -> AbstractAsyncContextManager[Connection]:
        """A read-only connection holding one consistent snapshot of the last committed state;
        it never waits for another process's write."""

    def single_read(self) -> AbstractAsyncContextManager[Connection]:
        """A read-only connection for exactly ONE read statement, which is its own consistent
        snapshot. A backend where a snapshot costs more than its statement (PostgreSQL:
        BEGIN and COMMIT are two more round trips) makes it cheaper than :meth:`snapshot`."""
        return self.snapshot()

    @abc.abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """One write transaction, committed at the end and rolled back on any exception."""

    @abc.abstractmethod
    def single_statement(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for exactly ONE write statement, atomic on its own (with its
        triggers); cheaper than a transaction around it. Reads may follow it and see it."""

    @abc.abstractmethod
    async def stored_version(self) -> int:
        """The schema version the database is at."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Close every connection. Idempotent."""

    async def run(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """Run ``work`` inside one transaction and return its result."""
        async with self.transaction() as db:
            return await work(db)
