"""The computer's turns as jobs in PostgreSQL: pgqueuer's queue plus the table of found moves.

With PostgreSQL the computer's searches run in ``python -m bot.ai_worker`` processes on any
machine. A shard enqueues a job (pgqueuer: ``FOR UPDATE SKIP LOCKED`` dequeues, heartbeats, a
job whose worker stops beating is picked again by another); the worker stores the move it found
in ``computer_moves`` under the job's id before the job completes; the shard, told by pgqueuer's
completion watcher (LISTEN/NOTIFY), takes the move. pgqueuer's own tables are installed and
upgraded here (under an advisory lock: processes starting together install once); they are the
library's schema, not the bot's migrations, like ``computer_moves`` which only lives as long as a
search's answer.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, TypeAlias

import asyncpg
from asyncpg import Record
from pgqueuer import Queries
from pgqueuer.domain.settings import DBSettings

from bot.storage.postgresql import lock_key

QUEUE_LOCK = "computer-queue-schema"

FORGOTTEN_AFTER = timedelta(hours=1)
"""A stored move nobody took (its shard stopped meanwhile) is deleted after this long."""

LOG_KEPT_FOR = timedelta(days=1)
"""How long pgqueuer's log of a job's steps (queued, picked, done: a row each) is kept once
folded into its statistics: nothing of mine reads it; an operator's ``pgq`` looks back minutes."""

STATISTICS_KEPT_FOR = timedelta(days=7)
"""How long pgqueuer's statistics (jobs counted by second, entrypoint and status) are kept."""

PRUNE_BATCH = 5000
"""The most rows one statement deletes: a worker's job waits for one batch at most."""

_CREATE_MOVES = """
CREATE TABLE IF NOT EXISTS computer_moves (
    job_id BIGINT PRIMARY KEY,
    move TEXT NOT NULL,
    stored_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    Connection: TypeAlias = asyncpg.Connection[Record] | PoolConnectionProxy[Record]


async def install(connection: asyncpg.Connection[Record]) -> None:
    """Install or upgrade pgqueuer's tables and create ``computer_moves`` (once, under a lock)."""
    queries = Queries.from_asyncpg_connection(connection)
    await connection.execute("SELECT pg_advisory_lock($1)", lock_key(QUEUE_LOCK))
    try:
        if await queries.schema_is_installed():
            await queries.upgrade()
        else:
            await queries.install()
        await connection.execute(_CREATE_MOVES)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", lock_key(QUEUE_LOCK))


async def store_move(connection: Connection, job_id: int, move: str) -> None:
    """Keep the move found for ``job_id`` (a retried job's answer replaces the first one)."""
    await connection.execute(
        "INSERT INTO computer_moves (job_id, move) VALUES ($1, $2) "
        "ON CONFLICT (job_id) DO UPDATE SET move = excluded.move, stored_at = now()",
        job_id,
        move,
    )


async def take_move(connection: Connection, job_id: int) -> str | None:
    """The move found for ``job_id``, deleted as it is taken (None if there is none), and any
    move left over by a shard that stopped waiting long ago."""
    async with connection.transaction():
        move: str | None = await connection.fetchval(
            "DELETE FROM computer_moves WHERE job_id = $1 RETURNING move", job_id
        )
        await connection.execute(
            "DELETE FROM computer_moves WHERE stored_at < now() - $1::interval",
            FORGOTTEN_AFTER,
        )
    return move


async def prune_queue_records(connection: Connection) -> int:
    """Delete, in batches, pgqueuer's log rows folded into its statistics over
    :data:`LOG_KEPT_FOR` ago and its statistics older than :data:`STATISTICS_KEPT_FOR`: pgqueuer
    keeps both for good, a few rows a computer move. How many rows went."""
    names = DBSettings().qualified
    sweeps = (
        (names.queue_table_log, "aggregated AND created < now() - $1::interval", LOG_KEPT_FOR),
        (names.statistics_table, "created < now() - $1::interval", STATISTICS_KEPT_FOR),
    )
    deleted = 0
    for table, old, kept_for in sweeps:
        while True:
            status = await connection.execute(
                f"DELETE FROM {table} WHERE id IN "  # pgqueuer's own table names
                f"(SELECT id FROM {table} WHERE {old} LIMIT $2)",
                kept_for,
                PRUNE_BATCH,
            )
            batch = int(status.split()[-1])
            deleted += batch
            if batch < PRUNE_BATCH:
                break
    return deleted
