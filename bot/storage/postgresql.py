"""The PostgreSQL backend (asyncpg): one database shared by any number of bot processes.

``BRANDUBH_DB=postgresql://user:password@host:5432/brandubh`` (any libpq URL; a Unix socket is
``postgresql:///brandubh?host=/run/postgresql``). Each process keeps a small pool of
connections. Reads run in ``REPEATABLE READ READ ONLY`` transactions (one consistent snapshot,
never waiting for a writer); writes in ``READ COMMITTED`` transactions whose statements are
guarded by the row they change (a move lands only at its ply: its statement locks the set
only while it is in progress at that ply), with advisory locks where work reads before it
writes (ratings). Migrations in ``bot/migrations/postgresql/`` are applied at start-up in one
transaction under an advisory lock, so processes starting together migrate once; the version
is kept in ``schema_version``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from functools import lru_cache
from typing import Any

import asyncpg
import yarl
from asyncpg import Record
from asyncpg.pool import PoolConnectionProxy

from bot.storage.connection import Dialect, Params, Row
from bot.storage.database import Database, migrations, schema_version
from bot.storage.errors import (
    ConstraintViolated,
    DatabaseBusy,
    DatabaseClosed,
    DatabaseTooNew,
    DatabaseUnavailable,
    DatabaseUnreachable,
    IdOutOfRange,
    StorageError,
    WriteConflict,
)

_log = logging.getLogger(__name__)

POOL_SIZE = 10
"""Connections each process keeps at most (PostgreSQL's default limit is 100 in all)."""

CONNECTION_WAIT = timedelta(seconds=30)
"""How long work waits for a free connection of the pool before DatabaseBusy.

Longer than the busy timeout of a lock: waiting for a connection is a queue, not a conflict.
Under a burst (hundreds of games moving at once) every connection is busy for a while, and a
player's move waiting its turn (its interaction is deferred meanwhile) is better than a move
refused as "could not be saved just now"."""

MIGRATION_LOCK = "brandubh:migrations"
"""The advisory lock held while migrating: two processes starting together migrate once."""


@lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered ``$1, $2 …`` (outside quoted text)."""
    out: list[str] = []
    number = 0
    quote = ""
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return "".join(out)


def lock_key(name: str) -> int:
    """The 64-bit advisory lock key for ``name`` (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), signed=True)


def _rows_changed(status: str) -> int:
    """The row count at the end of a command status such as ``UPDATE 3`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresConnection:
    """An asyncpg connection seen through the storage layer's :class:`Connection`."""

    dialect = Dialect.POSTGRESQL

    def __init__(self, raw: PoolConnectionProxy[Record]) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; the rows it changed."""
        try:
            status = await self.raw.execute(numbered(sql), *params)
        except asyncpg.PostgresError as error:
            raise _refusal(error) from error
        return _rows_changed(status)

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement per parameter row (one round trip)."""
        batch = [tuple(row) for row in rows]
        if not batch:
            return
        try:
            await self.raw.executemany(numbered(sql), batch)
        except asyncpg.PostgresError as error:
            raise _refusal(error) from error

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query."""
        try:
            records: list[Any] = await self.raw.fetch(numbered(sql), *params)
        except asyncpg.PostgresError as error:
            raise _refusal(error) from error
        return records

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query, or None."""
        try:
            record: Any = await self.raw.fetchrow(numbered(sql), *params)
        except asyncpg.PostgresError as error:
            raise _refusal(error) from error
        return record  # type: ignore[no-any-return]

    async def lock(self, name: str) -> None:
        """A transaction-scoped advisory lock, seen by every process on the database."""
        await self.raw.execute("SELECT pg_advisory_xact_lock($1)", lock_key(name))


def _refusal(error: asyncpg.PostgresError) -> StorageError | asyncpg.PostgresError:
    """The storage error for a refused statement, or the error itself (mapped later)."""
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return ConstraintViolated(f"PostgreSQL refused a write: {error}.")
    if isinstance(error, asyncpg.TransactionRollbackError):
        return WriteConflict(f"PostgreSQL ended a racing transaction: {error}.")
    return error


def display_url(url: str) -> str:
    """``url`` without its password (for messages and logs)."""
    try:
        parsed = yarl.URL(url)
    except ValueError:
        return "the PostgreSQL database"
    if parsed.password is not None:
        parsed = parsed.with_password("***")
    return str(parsed)


class PostgresDatabase(Database):
    """A PostgreSQL database through a pool of asyncpg connections."""

    dialect = Dialect.POSTGRESQL

    def __init__(
        self,
        url: str,
        pool: asyncpg.Pool[Record],
        *,
        lock_wait: timedelta,
        connection_wait: timedelta = CONNECTION_WAIT,
    ) -> None:
        self.url = url
        self.where = display_url(url)
        self._pool = pool
        self._connection_wait = max(lock_wait, connection_wait).total_seconds()
        self._closed = False

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        busy_timeout: timedelta = timedelta(seconds=5),
        target_version: int | None = None,
        pool_size: int = POOL_SIZE,
        connection_wait: timedelta = CONNECTION_WAIT,
    ) -> PostgresDatabase:
        """Connect to ``url`` and apply pending migrations. Raises a StorageError naming the
        database (password hidden) when it cannot be reached, refuses us, or is newer."""
        where = display_url(url)
        milliseconds = max(1, int(busy_timeout.total_seconds() * 1000))
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=pool_size,
                timeout=max(1.0, busy_timeout.total_seconds()),
                statement_cache_size=512,
                reset=_keep_session,
                server_settings={
                    "application_name": "brandubh-bot",
                    "lock_timeout": str(milliseconds),
                    "jit": "off",  # every query here is small: compiling would only cost time
                },
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as error:
            raise postgres_error(where, error) from error
        database = cls(url, pool, lock_wait=busy_timeout, connection_wait=connection_wait)
        try:
            await database._migrate(target_version)
        except BaseException:
            await pool.close()
            raise
        return database

    async def _migrate(self, target_version: int | None) -> None:
        available = migrations(Dialect.POSTGRESQL)
        latest = schema_version(Dialect.POSTGRESQL)
        target = latest if target_version is None else target_version
        # Read first, writing nothing: with nothing to migrate (the copy's check of a target,
        # target_version 0) a new database stays empty, without even a schema_version table.
        async with self._connection() as conn:
            found = 0
            if await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
                found = await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_version")
        if found >= target:
            self._refuse_newer(found, latest)
            return
        async with self._connection() as conn, conn.transaction():
            # Processes starting together queue here; the first migrates, the rest find it done.
            await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(MIGRATION_LOCK))
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            version = await conn.fetchval("SELECT max(version) FROM schema_version")
            if version is None:
                await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                version = 0
            self._refuse_newer(version, latest)
            pending = [m for m in available if version < m[0] <= target]
            for _, _, sql in pending:
                await conn.execute(sql)
            if pending:
                await conn.execute("UPDATE schema_version SET version = $1", pending[-1][0])
                _log.info(
                    "Migrated %s from schema version %d to %d",
                    self.where,
                    version,
                    pending[-1][0],
                )

    def _refuse_newer(self, version: int, latest: int) -> None:
        """Raise DatabaseTooNew if ``version`` is newer than this bot's ``latest``."""
        if version > latest:
            raise DatabaseTooNew(
                f"The database {self.where} has schema version {version}, newer than this "
                f"bot's {latest}: upgrade the bot or use another database.",
                self.where,
            )

    async def stored_version(self) -> int:
        """The schema version recorded in ``schema_version``."""
        async with self.snapshot() as db:
            row = await db.fetch_one("SELECT max(version) FROM schema_version")
        return int(row[0]) if row and row[0] is not None else 0

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[PoolConnectionProxy[Record]]:
        """A pooled connection, waited for at most the busy timeout; errors mapped."""
        if self._closed:
            raise DatabaseClosed(f"The database {self.where} is closed.", self.where)
        try:
            # asyncio.timeout rather than acquire(timeout=…), whose wait_for makes a task of
            # every acquisition: a tenth of the Python CPU of a move.
            async with asyncio.timeout(self._connection_wait):
                conn = await self._pool.acquire()
        except TimeoutError:
            raise DatabaseBusy(
                f"The database {self.where} is busy: no connection was free for "
                f"{self._connection_wait:g} s.",
                self.where,
            ) from None
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise postgres_error(self.where, error) from error
        try:
            yield conn
        except StorageError:
            raise
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise postgres_error(self.where, error, lost=conn.is_closed()) from error
        finally:
            await self._pool.release(conn)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[PostgresConnection]:
        """A ``REPEATABLE READ READ ONLY`` transaction: one consistent view, never waiting."""
        async with (
            self._connection() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PostgresConnection(conn)

    def single_read(self) -> AbstractAsyncContextManager[PostgresConnection]:
        """A connection for exactly one read statement: PostgreSQL runs a statement outside a
        transaction on one snapshot of its own, so no BEGIN … COMMIT is needed around it —
        the bare connection of :meth:`single_statement`."""
        return self.single_statement()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresConnection]:
        """One ``READ COMMITTED`` write transaction, rolled back on any exception."""
        async with self._connection() as conn, conn.transaction():
            yield PostgresConnection(conn)

    @asynccontextmanager
    async def single_statement(self) -> AsyncIterator[PostgresConnection]:
        """A connection for exactly one statement, committed on its own (with its triggers)."""
        async with self._connection() as conn:
            yield PostgresConnection(conn)

    async def close(self) -> None:
        """Close the pool (waiting for connections in use to be given back). Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._pool.close()


async def _keep_session(connection: asyncpg.Connection[Record]) -> None:
    """Give a connection back to the pool as it is, without asyncpg's default reset query.

    asyncpg already rolls back a transaction left open. The default reset
    (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``) would cost one more
    round trip for each use of a connection, and there is nothing for it to undo: the bot's
    connections take only transaction-scoped advisory locks, open no cursors outside a
    transaction, never LISTEN and never change a setting of their session.
    """


_LOST_STATES = ("08", "57P01", "57P02", "57P03")
"""SQLSTATEs of a connection lost or not had yet: connection exceptions (class 08), the server
shutting down or crashed (57P01, 57P02), starting up (57P03)."""


def postgres_error(where: str, error: BaseException, *, lost: bool = False) -> StorageError:
    """The storage error naming ``where`` for a low-level PostgreSQL or connection error.

    ``lost`` says the connection the error came from is closed: only then is asyncpg's
    InterfaceError ("connection is closed") the server's doing. Its other InterfaceErrors
    (a pool closed, a transaction or cursor misused) are the program's, which starting again
    would not mend: DatabaseUnavailable, not DatabaseUnreachable."""
    if isinstance(error, StorageError):
        return error
    if isinstance(error, asyncpg.PostgresError):
        refused = _refusal(error)
        if isinstance(refused, StorageError):
            return refused
    if isinstance(error, asyncpg.DataError) and "out of" in str(error):
        return IdOutOfRange(f"A number too large for PostgreSQL was looked up ({error}).")
    if isinstance(
        error,
        asyncpg.LockNotAvailableError
        | asyncpg.QueryCanceledError
        | asyncpg.TooManyConnectionsError,
    ):
        return DatabaseBusy(
            f"The database {where} is busy ({error}); try again in a moment.", where
        )
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return DatabaseUnavailable(
            f"The database {where} does not exist: create it first (see the README).", where
        )
    if isinstance(
        error,
        asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError,
    ):
        return DatabaseUnavailable(f"The database {where} refused the login ({error}).", where)
    if isinstance(error, asyncpg.CannotConnectNowError):  # 57P03: the server is starting up
        return DatabaseUnreachable(f"The database {where} cannot be used yet ({error}).", where)
    state = str(getattr(error, "sqlstate", None) or "")
    if (
        isinstance(error, OSError | TimeoutError)
        or (isinstance(error, asyncpg.PostgresError) and state.startswith(_LOST_STATES))
        or (isinstance(error, asyncpg.InterfaceError) and lost)
    ):
        return DatabaseUnreachable(
            f"The database {where} cannot be reached ({error or type(error).__name__}).", where
        )
    return DatabaseUnavailable(f"The database {where} failed: {error}.", where)
