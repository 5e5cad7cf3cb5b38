"""The bot's SQLite file: one connection that writes, one that only reads, clear errors.

Writes go through :meth:`Database.transaction` (or :meth:`Database.single_statement`) on the
write connection, one at a time; waiting for the write lock is bounded, and a write that cannot
have it in time raises :class:`~bot.storage.errors.DatabaseBusy`. Reads go through
:meth:`Database.reading` on a separate read-only connection: under write-ahead logging a reader
sees the last committed state and never waits for a writer, ours or another program's.
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

from bot.storage.errors import (
    DatabaseBusy,
    DatabaseClosed,
    DatabaseDamaged,
    DatabaseTooNew,
    DatabaseUnavailable,
    IdOutOfRange,
    NotADatabase,
    StorageError,
)

_log = logging.getLogger(__name__)

T = TypeVar("T")

READ_AFTER_WRITE = 0.25
"""Seconds a read waits at most for this bot's write in progress (see ``reading``)."""

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
    # Numbers are handed out per piece of work, so a branch may hold 0009 before 0008 lands;
    # they must only be unique and start at 1.
    numbers = [version for version, _, _ in found]
    if (numbers and numbers[0] != 1) or len(set(numbers)) != len(numbers):
        raise RuntimeError(f"migration numbers must start at 1 and be unique: {numbers}")
    return found


def schema_version() -> int:
    """The schema version this code writes (the number of the last migration)."""
    available = migrations()
    return available[-1][0] if available else 0


class Database:
    """An open database file. Build it with :meth:`open`; close it with :meth:`close`."""

    def __init__(
        self,
        path: Path,
        connection: aiosqlite.Connection,
        *,
        lock_wait: timedelta = timedelta(seconds=5),
    ) -> None:
        self.path = path
        self._connection = connection
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._read_lock = asyncio.Lock()
        self._lock_wait = lock_wait.total_seconds()
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        busy_timeout: timedelta = timedelta(seconds=5),
        target_version: int | None = None,
        quick_check: bool = True,
    ) -> Database:
        """Open ``path`` (created if missing), set the pragmas and apply pending migrations.

        ``target_version`` stops migrating at that version (tests of older schemas). With
        ``quick_check`` SQLite's ``PRAGMA quick_check`` must find the file sound. Raises a
        StorageError naming the file if it is not SQLite, damaged, newer than this code, or
        locked for longer than ``busy_timeout``.
        """
        path = Path(path)
        try:
            connection = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as error:
            raise storage_error(path, error) from error
        database = cls(path, connection, lock_wait=busy_timeout)
        try:
            await database._configure(busy_timeout)
            if quick_check:
                await database._quick_check()
            await database._migrate(target_version)
            await database._open_reader(busy_timeout)
        except BaseException:
            await database._close_connections()
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
                raise DatabaseUnavailable(
                    f"The database {self.path} cannot use write-ahead logging "
                    f"(journal mode {row[0] if row else '?'}).",
                    self.path,
                )
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise storage_error(self.path, error) from error

    async def _open_reader(self, busy_timeout: timedelta) -> None:
        """The read-only connection (none for an in-memory database, which it could not see)."""
        if str(self.path) in ("", ":memory:"):
            return
        milliseconds = max(0, int(busy_timeout.total_seconds() * 1000))
        try:
            reader = await aiosqlite.connect(self.path, isolation_level=None)
        except sqlite3.Error as error:
            raise storage_error(self.path, error) from error
        self._reader = reader
        try:
            await reader.execute(f"PRAGMA busy_timeout = {milliseconds}")
            await reader.execute("PRAGMA query_only = ON")
        except sqlite3.Error as error:
            raise storage_error(self.path, error) from error

    async def _quick_check(self) -> None:
        try:
            cursor = await self._connection.execute("PRAGMA quick_check")
            rows = await cursor.fetchall()
        except sqlite3.Error as error:
            raise storage_error(self.path, error) from error
        # One line: SQLite's findings can span lines, and the refusal is one line on stderr.
        answer = "; ".join(" ".join(str(row[0]).split()) for row in rows)
        if answer != "ok":
            raise DatabaseDamaged(
                f"The database {self.path} is damaged (SQLite's quick check says: "
                f"{answer[:300]}): restore a backup (see the README).",
                self.path,
            )

    async def _migrate(self, target_version: int | None) -> None:
        available = migrations()
        latest = schema_version()
        target = latest if target_version is None else target_version
        db = self._connection
        try:
            version = await self._user_version(db)
            if version > latest:
                raise DatabaseTooNew(
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
            raise storage_error(self.path, error) from error

    @staticmethod
    async def _user_version(db: aiosqlite.Connection) -> int:
        cursor = await db.execute("PRAGMA user_version")
        row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def user_version(self) -> int:
        """The schema version stored in the file."""
        async with self.reading() as db:
            return await self._user_version(db)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """A read-only connection holding one consistent snapshot of the last committed state.

        Never waits for a write (ours or another program's): under write-ahead logging readers
        and the writer do not block each other. Reads queue only behind other reads.
        """
        if self._reader is None:  # in memory: the write connection is the only one
            async with self._holding_write_lock():
                try:
                    yield self._connection
                except sqlite3.Error as error:
                    raise storage_error(self.path, error) from error
                except OverflowError as error:
                    raise out_of_range(error) from None
            return
        await self._let_writes_under_way_finish()
        async with self._read_lock:
            self._check_open()
            db = self._reader
            try:
                await db.execute("BEGIN")
                try:
                    yield db
                finally:
                    if db.in_transaction:
                        await db.execute("COMMIT")  # ends the snapshot; nothing was written
            except sqlite3.Error as error:
                raise storage_error(self.path, error) from error
            except OverflowError as error:
                raise out_of_range(error) from None

    async def _let_writes_under_way_finish(self) -> None:
        """Wait (at most READ_AFTER_WRITE) for this bot's write in progress, so a read sees what
        the bot has just done (a board recorded right after it was posted). Never longer: a
        write stuck behind another program's lock does not hold up reads."""
        if not self._write_lock.locked():
            return
        try:
            async with asyncio.timeout(READ_AFTER_WRITE):
                await self._write_lock.acquire()
        except TimeoutError:
            return
        self._write_lock.release()

    @asynccontextmanager
    async def _holding_write_lock(self) -> AsyncIterator[None]:
        """This bot's write lock, waited for at most the busy timeout (then DatabaseBusy)."""
        try:
            async with asyncio.timeout(self._lock_wait):
                await self._write_lock.acquire()
        except TimeoutError:
            raise DatabaseBusy(
                f"The database {self.path} is busy: another write of this bot held it for "
                f"over {self._lock_wait:g} s.",
                self.path,
            ) from None
        try:
            self._check_open()
            yield
        finally:
            self._write_lock.release()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), rolled back on any exception.

        SQLite's busy timeout gives the bounded retry when another process holds the lock;
        past it, DatabaseBusy says the file is locked.
        """
        async with self._holding_write_lock():
            db = self._connection
            try:
                await db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise storage_error(self.path, error) from error
            try:
                yield db
            except BaseException as error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                if isinstance(error, sqlite3.IntegrityError):
                    raise
                if isinstance(error, sqlite3.Error):
                    raise storage_error(self.path, error) from error
                if isinstance(error, OverflowError):
                    raise out_of_range(error) from None
                raise
            try:
                await db.execute("COMMIT")
            except sqlite3.Error as error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise storage_error(self.path, error) from error

    @asynccontextmanager
    async def single_statement(self) -> AsyncIterator[aiosqlite.Connection]:
        """The write connection for exactly ONE write statement, which SQLite runs as its own
        transaction (atomic with its triggers); one trip to the database thread instead of
        three for BEGIN … COMMIT around it."""
        async with self._holding_write_lock():
            try:
                yield self._connection
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as error:
                raise storage_error(self.path, error) from error
            except OverflowError as error:
                raise out_of_range(error) from None

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
            raise DatabaseClosed(f"The database {self.path} is closed.", self.path)

    async def close(self) -> None:
        """Checkpoint the write-ahead log and close the connections. Idempotent."""
        async with self._write_lock, self._read_lock:
            if self._closed:
                return
            self._closed = True
            try:
                await self._connection.execute("PRAGMA optimize")
                await self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                _log.warning("Could not checkpoint %s before closing", self.path, exc_info=True)
            await self._close_connections()

    async def _close_connections(self) -> None:
        if self._reader is not None:
            await self._reader.close()
        await self._connection.close()


def out_of_range(error: OverflowError) -> IdOutOfRange:
    """The storage error for a number SQLite cannot hold (a 30-digit id in a button)."""
    return IdOutOfRange(f"A number too large for SQLite was looked up ({error}).")


def storage_error(path: Path, error: sqlite3.Error) -> StorageError:
    """The storage error naming ``path`` for a low-level SQLite error."""
    text = str(error).lower()
    if "not a database" in text or "file is encrypted" in text:
        return NotADatabase(
            f"The file {path} is not a Brandubh database (not an SQLite file).", path
        )
    if "locked" in text or "busy" in text:
        return DatabaseBusy(
            f"The database {path} is locked by another program; try again in a moment.", path
        )
    if "malformed" in text or "corrupt" in text:
        return DatabaseDamaged(
            f"The database {path} is damaged (SQLite says: {error}): restore a backup "
            "(see the README).",
            path,
        )
    if "unable to open" in text:
        return DatabaseUnavailable(
            f"The database {path} cannot be opened (check the folder and permissions).", path
        )
    return DatabaseUnavailable(f"The database {path} failed: {error}.", path)
