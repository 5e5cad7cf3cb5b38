"""The SQLite backend: one file, one connection that writes, one that only reads, clear errors.

Writes go through :meth:`SqliteDatabase.transaction` (or ``single_statement``) on the write
connection, one at a time; waiting for the write lock is bounded, and a write that cannot have
it in time raises :class:`~bot.storage.errors.DatabaseBusy`. Reads go through
:meth:`SqliteDatabase.snapshot` on a separate read-only connection: under write-ahead logging a
reader sees the last committed state and never waits for a writer, ours or another program's.
Migrations are tracked with ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiosqlite

from bot.storage.connection import Dialect, Params, Row
from bot.storage.database import Database, migrations, schema_version
from bot.storage.errors import (
    ConstraintViolated,
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

READ_AFTER_WRITE = 0.25
"""Seconds a read waits at most for this bot's write in progress (see ``snapshot``)."""


async def _begin(db: aiosqlite.Connection, sql: str) -> None:
    """Run ``sql`` (a BEGIN) on ``db``, carried through when the caller is cancelled meanwhile.

    The database's thread runs a statement once it is queued, cancelled caller or not: a BEGIN
    left behind would hold the connection in a transaction that nothing ends, and every later
    BEGIN on it would fail ("cannot start a transaction within a transaction"; a write one
    would keep the file locked too). So a cancelled caller waits for its BEGIN, rolls back the
    empty transaction, and only then is cancelled.
    """
    begun = asyncio.ensure_future(db.execute(sql))
    try:
        await asyncio.shield(begun)
    except asyncio.CancelledError:
        with contextlib.suppress(sqlite3.Error):
            await begun
        if db.in_transaction:
            await db.execute("ROLLBACK")
        raise


async def _journal_mode_wal(db: aiosqlite.Connection, busy_timeout: timedelta) -> Any:
    """Switch ``db``'s file to write-ahead logging; the row SQLite answers (the mode now).

    The switch needs the file to itself for a moment, and SQLite does not wait for that with
    the busy handler: while another connection opens the same new file (two processes starting
    together) it answers "database is locked" at once. So the switch is tried again until
    ``busy_timeout`` has passed, as any other locked statement would wait.
    """
    give_up = time.monotonic() + busy_timeout.total_seconds()
    while True:
        try:
            cursor = await db.execute("PRAGMA journal_mode = WAL")
            return await cursor.fetchone()
        except sqlite3.OperationalError as error:
            if "locked" not in str(error).lower() or time.monotonic() >= give_up:
                raise
        await asyncio.sleep(0.01)


class SqliteConnection:
    """An aiosqlite connection seen through the storage layer's :class:`Connection`."""

    dialect = Dialect.SQLITE

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; the rows it changed."""
        try:
            cursor = await self.raw.execute(sql, params)
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(f"SQLite refused a write: {error}.") from error
        return cursor.rowcount

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement per parameter row."""
        try:
            await self.raw.executemany(sql, rows)
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(f"SQLite refused a write: {error}.") from error

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row, in one trip to the database thread."""
        try:
            return list(await self.raw.execute_fetchall(sql, params))
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(f"SQLite refused a write: {error}.") from error

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row or None, in one trip to the database thread."""
        return next(iter(await self.fetch_all(sql, params)), None)

    async def lock(self, name: str) -> None:
        """Nothing to do: SQLite runs one write transaction at a time."""


class SqliteDatabase(Database):
    """An open SQLite file. Build it with :meth:`Database.open`; close it with :meth:`close`."""

    dialect = Dialect.SQLITE

    def __init__(
        self,
        path: Path,
        connection: aiosqlite.Connection,
        *,
        lock_wait: timedelta = timedelta(seconds=5),
    ) -> None:
        self.path = path
        self.where = str(path)
        self._connection = connection
        self._writer = SqliteConnection(connection)
        self._reader: SqliteConnection | None = None
        self._write_lock = asyncio.Lock()
        self._read_lock = asyncio.Lock()
        self._lock_wait = lock_wait.total_seconds()
        self._closed = False

    @classmethod
    async def connect(
        cls,
        path: Path,
        *,
        busy_timeout: timedelta = timedelta(seconds=5),
        target_version: int | None = None,
        quick_check: bool = True,
    ) -> SqliteDatabase:
        """Open ``path`` (created if missing), set the pragmas and apply pending migrations.

        ``target_version`` stops migrating at that version (tests of older schemas). With
        ``quick_check`` SQLite's ``PRAGMA quick_check`` must find the file sound. Raises a
        StorageError naming the file if it is not SQLite, damaged, newer than this code, or
        locked for longer than ``busy_timeout``.
        """
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

    @classmethod
    async def check(cls, path: Path, *, busy_timeout: timedelta = timedelta(seconds=5)) -> int:
        """Check ``path`` without writing to it (no pragma, journal switch or migration: its
        bytes, time and folder stay as they were); its schema version. Raises the StorageError
        :meth:`connect` would for a file that is missing, not SQLite, damaged or newer than
        this code."""
        milliseconds = max(0, int(busy_timeout.total_seconds() * 1000))
        uri = await asyncio.to_thread(_read_only_uri, path)
        try:
            connection = await aiosqlite.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error as error:
            raise storage_error(path, error) from error
        database = cls(path, connection, lock_wait=busy_timeout)
        try:
            await connection.execute(f"PRAGMA busy_timeout = {milliseconds}")
            await database._quick_check()
            version = await cls._user_version(connection)
        except sqlite3.Error as error:
            raise storage_error(path, error) from error
        finally:
            await database._close_connections()
        await database._refuse_newer(version, schema_version(Dialect.SQLITE))
        return version

    async def _configure(self, busy_timeout: timedelta) -> None:
        milliseconds = max(0, int(busy_timeout.total_seconds() * 1000))
        db = self._connection
        try:
            await db.execute(f"PRAGMA busy_timeout = {milliseconds}")
            row = await _journal_mode_wal(db, busy_timeout)
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
        self._reader = SqliteConnection(reader)
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
        available = migrations(Dialect.SQLITE)
        latest = schema_version(Dialect.SQLITE)
        target = latest if target_version is None else target_version
        db = self._connection
        try:
            if await self._user_version(db) >= target:
                await self._refuse_newer(await self._user_version(db), latest)
                return
            # BEGIN IMMEDIATE takes the file's write lock before the version is read again, so
            # two processes starting together migrate once: the second finds it done.
            await db.execute("BEGIN IMMEDIATE")
            try:
                version = await self._user_version(db)
                await self._refuse_newer(version, latest)
                pending = [m for m in available if version < m[0] <= target]
                for _, _, script in pending:
                    for statement in statements(script):
                        await db.execute(statement)
                if pending:
                    await db.execute(f"PRAGMA user_version = {pending[-1][0]}")
                await db.execute("COMMIT")
            except BaseException:
                if self._connection.in_transaction:
                    await db.execute("ROLLBACK")
                raise
            if pending:
                _log.info(
                    "Migrated %s from schema version %d to %d", self.path, version, pending[-1][0]
                )
        except sqlite3.Error as error:
            raise storage_error(self.path, error) from error

    async def _refuse_newer(self, version: int, latest: int) -> None:
        if version > latest:
            raise DatabaseTooNew(
                f"The database {self.path} has schema version {version}, newer than this "
                f"bot's {latest}: upgrade the bot or use another file.",
                self.path,
            )

    @staticmethod
    async def _user_version(db: aiosqlite.Connection) -> int:
        cursor = await db.execute("PRAGMA user_version")
        row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def stored_version(self) -> int:
        """The schema version stored in the file (``PRAGMA user_version``)."""
        async with self.snapshot() as db:
            row = await db.fetch_one("PRAGMA user_version")
        return int(row[0]) if row else 0

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[SqliteConnection]:
        """A read-only connection holding one consistent snapshot of the last committed state.

        Never waits for another program's write: under write-ahead logging readers and the
        writer do not block each other. It waits at most READ_AFTER_WRITE for this bot's own
        write in progress, so a read sees what the bot has just done. Reads queue only behind
        other reads. (An in-memory database has no second connection: there a snapshot shares
        the write connection and its lock.)
        """
        if self._reader is None:
            async with self._holding_write_lock():
                try:
                    yield self._writer
                except sqlite3.Error as error:
                    raise storage_error(self.path, error) from error
                except OverflowError as error:
                    raise out_of_range(error) from None
            return
        await self._let_writes_under_way_finish()
        async with self._read_lock:
            self._check_open()
            reader = self._reader
            db = reader.raw
            try:
                await _begin(db, "BEGIN")
                try:
                    yield reader
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
    async def transaction(self) -> AsyncIterator[SqliteConnection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), rolled back on any exception.

        SQLite's busy timeout gives the bounded retry when another process holds the lock;
        past it, DatabaseBusy says the file is locked.
        """
        async with self._holding_write_lock():
            db = self._connection
            try:
                await _begin(db, "BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise storage_error(self.path, error) from error
            try:
                yield self._writer
            except BaseException as error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
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
    async def single_statement(self) -> AsyncIterator[SqliteConnection]:
        """The write connection for exactly ONE write statement, which SQLite runs as its own
        transaction (atomic with its triggers); one trip to the database thread instead of
        three for BEGIN … COMMIT around it."""
        async with self._holding_write_lock():
            try:
                yield self._writer
            except sqlite3.Error as error:
                raise storage_error(self.path, error) from error
            except OverflowError as error:
                raise out_of_range(error) from None

    async def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` answer: ``"ok"`` for a healthy file."""
        async with self.snapshot() as db:
            rows = await db.fetch_all("PRAGMA integrity_check")
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
            await self._reader.raw.close()
        await self._connection.close()


def _read_only_uri(path: Path) -> str:
    """The URI that opens ``path`` without writing anything to it or beside it.

    Read-only takes SQLite's locks, so a program writing the file meanwhile is waited for (or
    the check refused as busy), never read half-written; it makes no file beside one in
    rollback-journal mode (a file restored from a backup). Only a write-ahead-logged file with
    no log beside it (the bot stopped) is read as immutable, without locks: read-only would
    leave -wal and -shm files there, and a program opening it meanwhile writes to the log it
    makes (to the file itself only at a checkpoint, after a thousand pages).
    """
    logs = (Path(f"{path}{suffix}") for suffix in ("-wal", "-journal"))
    if any(log.exists() for log in logs) or not _write_ahead_logged(path):
        return f"{path.resolve().as_uri()}?mode=ro"
    return f"{path.resolve().as_uri()}?immutable=1"


def _write_ahead_logged(path: Path) -> bool:
    """Whether ``path``'s header says it is in write-ahead-log mode (its read and write
    versions, bytes 18 and 19, are 2: SQLite's file format)."""
    try:
        with path.open("rb") as file:
            header = file.read(20)
    except OSError:  # missing or unreadable: SQLite's own open says so
        return False
    return header[18:20] == b"\x02\x02"


def statements(script: str) -> list[str]:
    """The statements of a migration script, one by one (a trigger's body stays whole)."""
    found: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                found.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(
        part.strip().startswith("--") or not part.strip() for part in buffer.splitlines()
    ):
        found.append(buffer.strip())
    return found


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
