"""The one long-lived SQLite connection: pragmas, migrations, transactions, clear errors.

Every statement goes through :meth:`Database.reading` or :meth:`Database.transaction`, which
take one lock: a single connection shares one transaction state, so a read must never run in
the middle of another coroutine's write.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from importlib import resources
from pathlib import Path
from typing import TypeVar

import aiosqlite

_log = logging.getLogger(__name__)

T = TypeVar("T")

MIGRATIONS_PACKAGE = "bot"
MIGRATIONS_FOLDER = "migrations"


def migrations() -> list[tuple[int, str, str]]:
    """The numbered migration scripts shipped with the bot: (version, file name, SQL)."""
    folder = resources.files(MIGRATIONS_PACKAGE).joinpath(MIGRATIONS_FOLDER)
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
    for index, (version, name, _) in enumerate(found, start=1):
        if version != index:
            raise RuntimeError(f"migration {name} is out of sequence (expected number {index})")
    return found


def schema_version() -> int:
    """The schema version this code writes (the number of the last migration)."""
    return len(migrations())


class Database:
    """An open database file. Build it with :meth:`open`; close it with :meth:`close`."""

    def __init__(self, path: Path, connection: aiosqlite.Connection) -> None:
        self.path = path
        self._connection = connection
        self._lock = asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        busy_timeout: timedelta = timedelta(seconds=5),
        target_version: int | None = None,
    ) -> Database:
        """Open ``path`` (created if missing), set the pragmas and apply pending migrations.

        ``target_version`` stops migrating at that version (tests of older schemas). Raises
        DatabaseError naming the file if it is not SQLite, corrupt, newer than this code, or
        locked for longer than ``busy_timeout``.
        """
        path = Path(path)
        try:
            connection = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as error:
            raise _database_error(path, error) from error
        database = cls(path, connection)
        try:
            await database._configure(busy_timeout)
            await database._migrate(target_version)
        except BaseException:
            await connection.close()
            raise
        return database

    async def _configure(self, busy_timeout: timedelta) -> None:
        milliseconds = max(0, int(busy_timeout.total_seconds() * 1000))
        db = self._connection
        try:
            await db.execute(f"PRAGMA busy_timeout = {milliseconds}")
            cursor = await db.execute("PRAGMA journal_mode = WAL")
            row = await cursor.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                raise _error(
                    f"The database {self.path} cannot use write-ahead logging "
                    f"(journal mode {row[0] if row else '?'}).",
                    self.path,
                )
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise _database_error(self.path, error) from error

    async def _migrate(self, target_version: int | None) -> None:
        available = migrations()
        latest = len(available)
        target = latest if target_version is None else target_version
        db = self._connection
        try:
            version = await self._user_version()
            if version > latest:
                raise _error(
                    f"The database {self.path} has schema version {version}, newer than this "
                    f"bot's {latest}: upgrade the bot or use another file.",
                    self.path,
                )
            pending = [m for m in available if version < m[0] <= target]
            if not pending:
                return
            script = "\n".join(sql for _, _, sql in pending)
            try:
                await db.executescript(
                    f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {pending[-1][0]};\nCOMMIT;"
                )
            except BaseException:
                if self._connection.in_transaction:
                    await db.execute("ROLLBACK")
                raise
            _log.info(
                "Migrated %s from schema version %d to %d", self.path, version, pending[-1][0]
            )
        except sqlite3.Error as error:
            raise _database_error(self.path, error) from error

    async def _user_version(self) -> int:
        cursor = await self._connection.execute("PRAGMA user_version")
        row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def user_version(self) -> int:
        """The schema version stored in the file."""
        async with self.reading():
            return await self._user_version()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, for reads only, while no write is half-done."""
        async with self._lock:
            self._check_open()
            try:
                yield self._connection
            except sqlite3.Error as error:
                raise _database_error(self.path, error) from error

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), rolled back on any exception.

        SQLite's busy timeout gives the bounded retry when another process holds the lock;
        past it, DatabaseError says the file is locked.
        """
        async with self._lock:
            self._check_open()
            db = self._connection
            try:
                await db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise _database_error(self.path, error) from error
            try:
                yield db
            except BaseException as error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                if isinstance(error, sqlite3.IntegrityError):
                    raise
                if isinstance(error, sqlite3.Error):
                    raise _database_error(self.path, error) from error
                raise
            try:
                await db.execute("COMMIT")
            except sqlite3.Error as error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise _database_error(self.path, error) from error

    @asynccontextmanager
    async def single_statement(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection for exactly ONE write statement, which SQLite runs as its own
        transaction (atomic with its triggers); one trip to the database thread instead of
        three for BEGIN … COMMIT around it."""
        async with self._lock:
            self._check_open()
            try:
                yield self._connection
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as error:
                raise _database_error(self.path, error) from error

    async def run(self, work: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """Run ``work`` inside one transaction and return its result."""
        async with self.transaction() as db:
            return await work(db)

    async def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` answer: ``"ok"`` for a healthy file."""
        async with self.reading() as db:
            cursor = await db.execute("PRAGMA integrity_check")
            rows = await cursor.fetchall()
        return "\n".join(str(row[0]) for row in rows)

    def _check_open(self) -> None:
        if self._closed:
            raise _error(f"The database {self.path} is closed.", self.path)

    async def close(self) -> None:
        """Checkpoint the write-ahead log and close the connection. Idempotent."""
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                await self._connection.execute("PRAGMA optimize")
                await self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                _log.warning("Could not checkpoint %s before closing", self.path, exc_info=True)
            await self._connection.close()


def _error(message: str, path: Path) -> Exception:
    """The services' DatabaseError (a GameError naming the file).

    Imported here, not at the top: ``bot.services`` imports this package, so a top-level import
    would make ``import bot.storage`` circular.
    """
    from bot.services.errors import DatabaseError

    return DatabaseError(message, path)


def _database_error(path: Path, error: sqlite3.Error) -> Exception:
    """A DatabaseError naming ``path`` for a low-level SQLite error."""
    text = str(error).lower()
    if "not a database" in text or "file is encrypted" in text:
        message = f"The file {path} is not a Brandubh database (not an SQLite file)."
    elif "locked" in text or "busy" in text:
        message = f"The database {path} is locked by another program; try again in a moment."
    elif "malformed" in text or "corrupt" in text:
        message = f"The database {path} is damaged (SQLite says: {error})."
    elif "unable to open" in text:
        message = f"The database {path} cannot be opened (check the folder and permissions)."
    else:
        message = f"The database {path} failed: {error}."
    return _error(message, path)
