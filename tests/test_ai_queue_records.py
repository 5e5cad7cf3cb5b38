"""pgqueuer's own log and statistics tables, which it keeps for good, stay bounded: the AI
workers delete their old rows (on the throwaway PostgreSQL server)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from asyncpg import Record
from pgqueuer import Queries

from bot.ai_queue import ENTRYPOINT
from bot.storage import computer_jobs
from tests.conftest import postgres_database
from tests.postgres_server import PostgresServer
from tests.scale_processes import Workers

OLD_JOBS = 3
NEW_JOBS = 2


@pytest.fixture
async def database(postgres: PostgresServer | str) -> str:
    return await postgres_database(postgres)


@pytest.fixture
async def connection(database: str) -> AsyncIterator[asyncpg.Connection[Record]]:
    """A connection to ``database``, which holds the job queue's tables."""
    opened = await asyncpg.connect(database)
    try:
        await computer_jobs.install(opened)
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def workers(database: str, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(database, tmp_path, heartbeat=1.0)
    try:
        yield started
    finally:
        started.stop()


async def jobs_logged(connection: asyncpg.Connection[Record]) -> None:
    """Five jobs queued (a log row each), folded into the statistics; then the log rows and
    statistics of the first three dated two days back, and a statistics row eight days back."""
    queries = Queries.from_asyncpg_connection(connection)
    ids = await queries.enqueue([ENTRYPOINT] * OLD_JOBS, [b"{}"] * OLD_JOBS, [0] * OLD_JOBS)
    await connection.execute(
        "UPDATE pgqueuer_log SET created = now() - interval '2 days' WHERE job_id = ANY($1)",
        ids,
    )
    await queries.enqueue([ENTRYPOINT] * NEW_JOBS, [b"{}"] * NEW_JOBS, [0] * NEW_JOBS)
    await connection.execute(queries.qbq.build_aggregate_log_data_to_statistics_query())
    await connection.execute(
        "INSERT INTO pgqueuer_statistics (count, created, entrypoint, priority, status) VALUES "
        "(4, now() - interval '8 days', $1, 0, 'successful'), "
        "(6, now() - interval '2 days', $1, 0, 'successful')",
        ENTRYPOINT,
    )


async def records(connection: asyncpg.Connection[Record]) -> tuple[int, int]:
    """How many rows pgqueuer's log and statistics hold."""
    log: int = await connection.fetchval("SELECT count(*) FROM pgqueuer_log")
    statistics: int = await connection.fetchval("SELECT count(*) FROM pgqueuer_statistics")
    return log, statistics


async def test_the_queues_old_log_and_statistics_rows_are_deleted(
    connection: asyncpg.Connection[Record], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jobs queued two days ago lose their log rows, those queued now keep them; statistics
    of eight days ago go, those of two days ago and now stay; a log row not yet folded into
    the statistics stays, however old. Batches of two take the backlog in one prune."""
    monkeypatch.setattr(computer_jobs, "PRUNE_BATCH", 2)
    await jobs_logged(connection)
    unfolded = await Queries.from_asyncpg_connection(connection).enqueue(ENTRYPOINT, b"{}", 0)
    await connection.execute(
        "UPDATE pgqueuer_log SET created = now() - interval '9 days' WHERE job_id = ANY($1)",
        unfolded,
    )
    log, statistics = await records(connection)
    assert log == OLD_JOBS + NEW_JOBS + 1
    assert await computer_jobs.prune_queue_records(connection) == OLD_JOBS + 1
    assert await records(connection) == (NEW_JOBS + 1, statistics - 1)
    assert await computer_jobs.prune_queue_records(connection) == 0


async def test_a_worker_deletes_the_queues_old_rows_as_it_starts(
    connection: asyncpg.Connection[Record], workers: Workers
) -> None:
    """An AI worker started deletes the old log and statistics rows (then hourly)."""
    await jobs_logged(connection)
    await connection.execute("DELETE FROM pgqueuer")  # their log stays: no job for the worker
    log, statistics = await records(connection)
    workers.start()
    await workers.ready()
    deadline = time.monotonic() + 30
    while await records(connection) != (log - OLD_JOBS, statistics - 1):
        assert time.monotonic() < deadline, (await records(connection), workers.log(0))
        await asyncio.sleep(0.1)


async def test_a_job_that_failed_leaves_the_queue_and_its_log_goes_a_day_after(
    connection: asyncpg.Connection[Record], workers: Workers
) -> None:
    """A job whose search raises (a payload that is no request) leaves the queue's table at
    once, logged as an exception with its traceback; that log row goes a day after, as a
    successful job's does: nothing of a failed job stays for good."""
    queries = Queries.from_asyncpg_connection(connection)
    [failing] = await queries.enqueue(ENTRYPOINT, b'{"level": 3}', 0)
    workers.start()
    await workers.ready()
    deadline = time.monotonic() + 30
    while await connection.fetchval("SELECT count(*) FROM pgqueuer"):
        assert time.monotonic() < deadline, workers.log(0)
        await asyncio.sleep(0.1)
    logged = await connection.fetch(
        "SELECT status, traceback FROM pgqueuer_log WHERE job_id = $1 ORDER BY id", failing
    )
    assert [row["status"] for row in logged][-1] == "exception", logged
    assert json.loads(logged[-1]["traceback"])["exception_type"] == "ValueError", logged
    await connection.execute(queries.qbq.build_aggregate_log_data_to_statistics_query())
    await connection.execute(
        "UPDATE pgqueuer_log SET created = now() - interval '2 days' WHERE job_id = $1", failing
    )
    await computer_jobs.prune_queue_records(connection)
    assert await connection.fetchval("SELECT count(*) FROM pgqueuer_log") == 0
