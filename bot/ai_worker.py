"""``python -m bot.ai_worker``: processes that think for the computer opponent, on any machine.

With PostgreSQL the shards do not search themselves: each computer turn is a job in the
database's queue (pgqueuer, see ``bot.ai_queue``). Run workers on as many machines as needed,
each pointed at the same database::

    python -m bot.ai_worker --database postgresql://brandubh@db/brandubh --processes 4

``--database`` defaults to ``BRANDUBH_DB`` (read from ``.env`` too), ``--processes`` (one search
at a time each, at most 256) to ``BRANDUBH_AI_WORKERS``, else one per core. ``--heartbeat
SECONDS`` (default 10): a busy worker beats at half this; a job whose worker was silent this long
(it died, its machine went away) is picked up again by another worker. Stop with SIGTERM or
Ctrl+C: searches under way are finished first. Exit codes: 0 stopped; 2 refused, a setting or the
database's answer needs a person; 4 the database cannot be reached (yet) or dropped the
connection, worth starting again later. Either is one line on stderr saying why.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from multiprocessing.process import BaseProcess

import asyncpg
from dotenv import load_dotenv
from pgqueuer import AsyncpgDriver, Job, Queries, QueueManager
from pgqueuer.domain import types

from bot import event_loop
from bot.ai_pool import MAX_WORKERS, one_per_core
from bot.ai_queue import ENTRYPOINT, MoveRequest
from bot.storage import computer_jobs, is_postgresql
from bot.storage.errors import DatabaseBusy, DatabaseUnreachable
from bot.storage.postgresql import display_url, postgres_error
from engine.search import think

_log = logging.getLogger("bot.ai_worker")

EXIT_REFUSED = 2
EXIT_UNREACHABLE = 4
HEARTBEAT = timedelta(seconds=10)
RESTART_PAUSE = 1.0
"""Seconds before a worker process that died is started again."""
PRUNE_EVERY = timedelta(hours=1)
"""How often a worker deletes pgqueuer's old log and statistics rows (at its start, then hourly:
with several workers, the others find little left)."""


class Refused(Exception):
    """The worker cannot start (one line says why)."""

    code = EXIT_REFUSED


class Unreachable(Refused):
    """The database does not answer, or not yet (down, starting up, out of connections)."""

    code = EXIT_UNREACHABLE


class OneAtATime(QueueManager):
    """A queue manager that takes a job only when it has none: a search uses a whole core, so
    a process taking a second job would only slow both down (and keep it from idle workers)."""

    def entrypoints_below_capacity_limits(self) -> set[types.QueueEntrypoint]:
        if self.job_context:
            return set()
        return super().entrypoints_below_capacity_limits()


async def serve(url: str, heartbeat: timedelta) -> None:
    """Take computer-move jobs one at a time until SIGTERM/SIGINT."""
    listener = await asyncpg.connect(url)
    results = await asyncpg.connect(url)
    try:
        await computer_jobs.install(listener)
        manager = OneAtATime(Queries(AsyncpgDriver(listener)))

        # A job that raises leaves the queue, logged as an exception with its traceback (the
        # log row goes a day after: computer_jobs.prune_queue_records); "hold" would keep it
        # in the queue as failed for good, for a requeue nobody does: its shard asks anew.
        @manager.entrypoint(ENTRYPOINT, on_failure="delete")
        async def computer_move(job: Job) -> None:
            request = MoveRequest.decode(job.payload)
            started = time.perf_counter()
            # In a thread: the event loop keeps the job's heartbeat going meanwhile.
            move = await asyncio.to_thread(
                think,
                request.ruleset,
                request.position,
                request.side,
                list(request.moves),
                request.level,
                request.time_limit,
                request.seed,
                request.nodes,
            )
            await computer_jobs.store_move(results, int(job.id), move)
            _log.info(
                "Job %s: %s at level %d after %d moves (%.2f s)",
                job.id,
                move,
                request.level,
                len(request.moves),
                time.perf_counter() - started,
            )

        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, manager.shutdown.set)
        pruning = asyncio.create_task(prune_hourly(url), name="prune-queue-records")
        # The queue manager's id is the one pgqueuer's table shows beside the jobs it holds.
        _log.info(
            "Worker %d taking jobs from %s (queue manager %s)",
            os.getpid(),
            display_url(url),
            manager.queue_manager_id,
        )
        try:
            await manager.run(
                dequeue_timeout=heartbeat / 2,
                batch_size=1,
                heartbeat_timeout=heartbeat,
            )
        finally:
            pruning.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pruning
    finally:
        await results.close()
        await listener.close()


async def prune_hourly(url: str) -> None:
    """Delete pgqueuer's old log and statistics rows now and every :data:`PRUNE_EVERY`
    (:func:`computer_jobs.prune_queue_records`), on a connection of its own: the jobs' own is
    busy storing moves. A failure is logged and tried again at the next hour."""
    while True:
        try:
            connection = await asyncpg.connect(url)
            try:
                deleted = await computer_jobs.prune_queue_records(connection)
            finally:
                await connection.close()
            _log.info("Deleted %d old rows of the queue's log and statistics", deleted)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
            _log.warning("Could not delete the queue's old log and statistics rows: %r", error)
        await asyncio.sleep(PRUNE_EVERY.total_seconds())


def _serve_process(url: str, seconds: float, log_level: int) -> None:
    """A worker process's body (``spawn``ed: nothing of the parent's state comes along)."""
    _configure_logging(log_level)
    with contextlib.suppress(KeyboardInterrupt):
        event_loop.run(serve(url, timedelta(seconds=seconds)))


def _configure_logging(level: int) -> None:
    logging.basicConfig(
        stream=sys.stdout,
        level=level,
        format="%(asctime)s %(levelname)-8s %(processName)s %(name)s: %(message)s",
    )


def supervise(url: str, processes: int, heartbeat: timedelta, log_level: int) -> None:
    """Run ``processes`` worker processes, starting again any that dies, until SIGTERM/SIGINT."""
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def start(index: int) -> BaseProcess:
        process = context.Process(
            target=_serve_process,
            args=(url, heartbeat.total_seconds(), log_level),
            name=f"ai-worker-{index}",
            daemon=True,
        )
        process.start()
        return process

    workers = [start(index) for index in range(processes)]
    while not stopping:
        time.sleep(0.2)
        for index, process in enumerate(workers):
            if not process.is_alive() and not stopping:
                _log.error(
                    "Worker process %s stopped (exit code %s); starting it again",
                    process.name,
                    process.exitcode,
                )
                time.sleep(RESTART_PAUSE)
                workers[index] = start(index)
    for process in workers:
        process.terminate()  # SIGTERM: each finishes the search it is in, then stops
    for process in workers:
        process.join()


def _positive_int(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise Refused(f"{name} must be a whole number of processes, not {raw!r}.") from None
    if not 1 <= value <= MAX_WORKERS:
        raise Refused(f"{name} must be at least 1 and at most {MAX_WORKERS}, not {value}.")
    return value


def settings(argv: Sequence[str] | None = None) -> tuple[str, int, timedelta]:
    """The database URL, the number of processes and the heartbeat, checked. Raises Refused."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.ai_worker",
        description="Think for the computer opponent of bot shards sharing a PostgreSQL database.",
    )
    parser.add_argument("--database", help="postgresql:// URL (default: BRANDUBH_DB)")
    parser.add_argument("--processes", help="searches at once (default: BRANDUBH_AI_WORKERS)")
    parser.add_argument("--heartbeat", help="seconds before a silent worker's job is retried")
    args = parser.parse_args(argv)
    url = (args.database or os.environ.get("BRANDUBH_DB", "")).strip()
    if not url:
        raise Refused("name the database: --database postgresql://… or BRANDUBH_DB.")
    if not is_postgresql(url):
        raise Refused(
            "computer-opponent workers need the bots' PostgreSQL database (postgresql://…); "
            "with an SQLite file the bot thinks in its own processes."
        )
    if args.processes is not None:
        processes = _positive_int("--processes", args.processes)
    elif os.environ.get("BRANDUBH_AI_WORKERS", "").strip() not in ("", "0"):
        processes = _positive_int("BRANDUBH_AI_WORKERS", os.environ["BRANDUBH_AI_WORKERS"])
    else:
        processes = one_per_core()
    heartbeat = HEARTBEAT
    if args.heartbeat is not None:
        try:
            seconds = float(args.heartbeat)
        except ValueError:
            raise Refused(
                f"--heartbeat must be a number of seconds, not {args.heartbeat!r}."
            ) from None
        if not 0.5 <= seconds <= 3600:
            raise Refused(f"--heartbeat must be between 0.5 and 3600 seconds, not {seconds:g}.")
        heartbeat = timedelta(seconds=seconds)
    return url, processes, heartbeat


async def check_database(url: str) -> None:
    """Connect once and install the queue's tables. Raises Unreachable, or Refused, naming the
    database: the bot's own storage layer tells them apart (``postgres_error``), so the worker
    and the bot agree on what is worth starting again."""
    try:
        connection = await asyncpg.connect(url, timeout=10)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise _refusal(url, "cannot connect to", error) from None
    try:
        await computer_jobs.install(connection)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        lost = connection.is_closed()
        raise _refusal(url, "cannot set up the job queue in", error, lost=lost) from None
    finally:
        await connection.close()


def _refusal(url: str, doing: str, error: BaseException, *, lost: bool = False) -> Refused:
    """Unreachable for a database down, starting up, out of connections, or a connection lost
    (asyncpg's InterfaceError only when ``lost``: otherwise it is the program's); else Refused."""
    where = display_url(url)
    if isinstance(postgres_error(where, error, lost=lost), DatabaseUnreachable | DatabaseBusy):
        if isinstance(error, OSError | TimeoutError):
            return Unreachable(f"cannot reach {where}: {error}")
        return Unreachable(f"{doing} {where}: {error}")
    return Refused(f"{doing} {where}: {error}")


def main(argv: Sequence[str] | None = None) -> int:
    """Check the settings and the database, then serve; return the exit code."""
    load_dotenv(".env")
    try:
        url, processes, heartbeat = settings(argv)
        event_loop.run(check_database(url))
    except Refused as refusal:
        print(f"brandubh-ai-worker: {refusal}", file=sys.stderr)
        return refusal.code
    level = logging.getLevelName(os.environ.get("BRANDUBH_LOG_LEVEL", "INFO").upper())
    level = level if isinstance(level, int) else logging.INFO
    _configure_logging(level)
    if processes == 1:
        with contextlib.suppress(KeyboardInterrupt):
            event_loop.run(serve(url, heartbeat))
    else:
        supervise(url, processes, heartbeat, level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
