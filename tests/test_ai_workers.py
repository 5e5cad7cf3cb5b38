"""The computer opponent on PostgreSQL: ``python -m bot.ai_worker`` processes take its turns as
jobs from the database's queue (real PostgreSQL, real worker processes)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.ai_pool import AIPool, PoolClosed
from bot.ai_queue import MoveRequest, QueuedComputer
from bot.ai_worker import Refused, Unreachable, check_database, settings
from bot.config import Settings
from bot.storage.computer_jobs import QUEUE_LOCK
from bot.storage.postgresql import lock_key
from engine import Game
from engine.book import book_move
from engine.search import LEVELS
from tests.bot_harness import Harness
from tests.bot_processes import clean_env
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin
from tests.postgres_server import PostgresServer
from tests.scale_processes import Workers

pytest_plugins = ["tests.discord_standin.fixtures"]

HEARTBEAT = 1.0
"""Seconds of silence after which a worker's job goes to another (short, for the tests)."""


@pytest.fixture
async def database(postgres: PostgresServer | str) -> str:
    return await postgres_database(postgres)


@pytest.fixture
def workers(database: str, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(database, tmp_path, heartbeat=HEARTBEAT)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
async def computer(database: str) -> AsyncIterator[QueuedComputer]:
    queued = QueuedComputer(database, answer_within=timedelta(seconds=60))
    await queued.start()
    try:
        yield queued
    finally:
        await queued.close()


def opening(moves: int, seed: int) -> Game:
    """A game a few legal moves in (different for each seed)."""
    game = Game()
    for index in range(moves):
        legal = sorted(str(move) for move in game.legal_moves())
        game.play(legal[(seed * 7 + index * 13) % len(legal)])
    return game


def test_a_request_queued_without_a_bound_in_positions_is_read() -> None:
    """A job queued by a shard from before BRANDUBH_AI_NODES (no "nodes" in its payload) is
    read as searched by time; one with the bound carries it, and a seed from the game."""
    game = opening(3, 1)
    timed = MoveRequest.of(game, 2, timedelta(seconds=0.3), None)
    payload = json.loads(timed.encode())
    del payload["nodes"]
    assert MoveRequest.decode(json.dumps(payload).encode()) == timed
    bounded = MoveRequest.of(game, 2, timedelta(seconds=0.3), None, 500)
    assert (bounded.nodes, bounded.time_limit) == (500, None)
    assert bounded.seed is not None
    assert MoveRequest.decode(bounded.encode()) == bounded


def test_a_payload_that_is_no_request_is_refused_as_such() -> None:
    """A job's payload that is not a request (a field missing, not JSON, not an object, moves
    or a level of the wrong kind) raises ValueError, as decode says, never KeyError or
    TypeError."""
    good = json.loads(MoveRequest.of(opening(2, 3), 2, timedelta(seconds=0.3), None).encode())
    missing = {key: value for key, value in good.items() if key != "level"}
    payloads = [
        json.dumps(missing).encode(),
        json.dumps({**good, "moves": "d1-b1"}).encode(),
        json.dumps({**good, "moves": 3}).encode(),
        json.dumps({**good, "level": None}).encode(),
        json.dumps({**good, "level": "five"}).encode(),
        json.dumps([good]).encode(),
        b"null",
        b"{not json",
        b"\xff",
    ]
    for payload in payloads:
        with pytest.raises(ValueError, match=r"^a computer move job's payload "):
            MoveRequest.decode(payload)
    assert MoveRequest.decode(json.dumps(good).encode()).level == 2


async def test_two_workers_share_the_jobs(workers: Workers, computer: QueuedComputer) -> None:
    """Eight games ask at once: both worker processes answer, every move legal."""
    workers.start()
    workers.start()
    await workers.ready()
    computer.time_per_move = timedelta(seconds=0.4)
    games = [opening(index % 4, index) for index in range(8)]
    moves = await asyncio.wait_for(
        asyncio.gather(*(computer.choose_move(game, 5, seed=i) for i, game in enumerate(games))),
        60,
    )
    for game, move in zip(games, moves, strict=True):
        assert move in {str(m) for m in game.legal_moves()}
    await workers.logged(len(games))
    assert workers.jobs(0) >= 1, workers.log(0)
    assert workers.jobs(1) >= 1, workers.log(1)
    assert workers.jobs(0) + workers.jobs(1) == len(games)


async def picked(database: str) -> int:
    """How many jobs a worker holds right now."""
    connection = await asyncpg.connect(database)
    try:
        count: int = await connection.fetchval(
            "SELECT count(*) FROM pgqueuer WHERE status = 'picked'"
        )
        return count
    finally:
        await connection.close()


async def test_a_killed_workers_job_completes_on_another(
    workers: Workers, computer: QueuedComputer, database: str
) -> None:
    """The only worker is SIGKILLed mid-search; the job completes on a worker started later."""
    first = workers.start()
    computer.time_per_move = timedelta(seconds=4)
    game = opening(4, 1)
    assert book_move(game.board) is None  # a search to kill, not a book move
    asking = asyncio.ensure_future(computer.choose_move(game, 5, seed=3))
    deadline = time.monotonic() + 30
    while await picked(database) == 0:
        assert time.monotonic() < deadline, workers.log(0)
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # searching
    first.send_signal(signal.SIGKILL)
    first.wait()
    started = time.monotonic()
    workers.start()
    move = await asyncio.wait_for(asyncio.shield(asking), 60)
    assert move in {str(m) for m in game.legal_moves()}
    await workers.logged(1)
    assert workers.jobs(0) == 0
    assert workers.jobs(1) == 1, workers.log(1)
    # Picked up again once the dead worker's heartbeat was late, then searched in full.
    assert time.monotonic() - started < HEARTBEAT * 3 + 4 + 10


async def test_a_closing_shard_cancels_the_jobs_it_waits_for(
    workers: Workers, database: str
) -> None:
    """A shard that stops while its computer turn is queued cancels the job: no worker
    searches for a move nobody would take (the next process to drive the game asks again)."""
    closing = QueuedComputer(database, answer_within=timedelta(seconds=60))
    await closing.start()
    asking = asyncio.ensure_future(closing.choose_move(opening(2, 1), 1, seed=3))
    connection = await asyncpg.connect(database)
    try:
        deadline = time.monotonic() + 30
        while await connection.fetchval("SELECT count(*) FROM pgqueuer") == 0:
            assert time.monotonic() < deadline, "the job was never queued"
            await asyncio.sleep(0.05)
        await closing.close()
        with pytest.raises(PoolClosed):
            await asking
        assert await connection.fetchval("SELECT count(*) FROM pgqueuer") == 0
        logged = await connection.fetch("SELECT status FROM pgqueuer_log WHERE status = 'canceled'")
        assert len(logged) == 1
        workers.start()  # a worker started now finds nothing to search
        await asyncio.sleep(HEARTBEAT * 2)
        assert workers.jobs(0) == 0, workers.log(0)
    finally:
        await connection.close()


async def test_levels_answer_within_their_times(workers: Workers, computer: QueuedComputer) -> None:
    """Each level's move, queued and answered by a worker, comes back within its own time
    (plus 1.5 s for the queue and the database on a busy, shared test machine)."""
    workers.start()
    await workers.ready()
    game = opening(2, 2)
    for level, config in LEVELS.items():
        started = time.perf_counter()
        move = await computer.choose_move(game, level, seed=level)
        took = time.perf_counter() - started
        assert move in {str(m) for m in game.legal_moves()}
        assert took < config.default_time + 1.5, (level, took)


class PostgresHarness(Harness):
    """The bot on PostgreSQL: its computer turns go to the worker processes."""

    def __init__(self, standin: DiscordStandin, tmp_path: Path, database: str) -> None:
        super().__init__(standin, tmp_path / "unused.sqlite3", ai_seconds=0.2)
        self.database = database

    def settings(self) -> Settings:
        return dataclasses.replace(super().settings(), database_url=self.database)


async def test_computer_games_on_postgresql_are_played_by_workers(
    discord_standin: DiscordStandin, tmp_path: Path, database: str, workers: Workers
) -> None:
    """Two players each against the computer; the workers think, the bot posts the boards."""
    workers.start()
    workers.start()
    await workers.ready()
    table = PostgresHarness(discord_standin, tmp_path, database)
    await table.start()
    try:
        await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 2})
        await table.wait_board(lambda m: f"<@{table.alice.id}>, your move" in m.content)
        side = table.guild.channel("side")
        await table.standin.slash(
            table.guild,
            side,
            table.bob,
            "challenge",
            {"opponent": table.me, "level": 2, "side": "defenders"},
        )
        # bob defends: the computer (attackers) opens in his channel.
        board = await table.wait_board(
            lambda m: f"<@{table.bob.id}>, your move" in m.content, channel=side, timeout=30
        )
        assert "(attackers) played" in board.content
        reply = await table.move(table.alice, "d6-f6")
        assert not reply.ephemeral, reply.content
        answered = await table.wait_board(
            # The computer's answer: the first board says "played" too ("…the game is played
            # in this channel"), so the answer is told by the side that played.
            lambda m: (
                f"<@{table.alice.id}>, your move" in m.content and "(defenders) played" in m.content
            ),
            timeout=30,
        )
        assert "(level 2)" in answered.content
    finally:
        await table.stop()
    await workers.logged(2)  # bob's opening and alice's answer, each searched by a worker


async def test_a_result_for_a_game_that_moved_on_is_dropped(
    discord_standin: DiscordStandin,
    tmp_path: Path,
    database: str,
    workers: Workers,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The computer's move arrives after an admin aborted the game: dropped, nothing posted."""
    caplog.set_level(logging.INFO, logger="bot.flow.computer_turns")
    table = PostgresHarness(discord_standin, tmp_path, database)
    await table.start()
    try:
        await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
        await table.wait_board(lambda m: f"<@{table.alice.id}>, your move" in m.content)
        reply = await table.move(table.alice, "d6-f6")  # no worker yet: the job waits
        assert not reply.ephemeral, reply.content
        aborted = await table.abort(table.admin)
        assert not aborted.ephemeral, aborted.content
        ended = len(table.public_messages())
        workers.start()
        deadline = time.monotonic() + 30
        while "move dropped" not in caplog.text:
            assert time.monotonic() < deadline, workers.log(0)
            await asyncio.sleep(0.1)
        await workers.logged(1)
        assert workers.jobs(0) == 1
        after = table.public_messages()[ended:]
        assert not any(") played" in m.content for m in after), [m.content for m in after]
        assert table.bot is not None
        assert await table.bot.services.games.in_channel(table.channel.id) is None
    finally:
        await table.stop()


def test_one_process_per_core_stops_at_256(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine of 512 cores, with no count set, the bot's pool and a worker start 256
    processes, the most a setting may ask for (README: one per core, at most 256)."""
    monkeypatch.setattr("os.cpu_count", lambda: 512)
    monkeypatch.delenv("BRANDUBH_AI_WORKERS", raising=False)
    assert AIPool().workers == 256
    assert settings(["--database", "postgresql://x@/db"])[1] == 256


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        ([], 2, "name the database"),
        (["--database", "/srv/brandubh.sqlite3"], 2, "need the bots' PostgreSQL database"),
        (["--database", "postgresql://x@/db", "--processes", "two"], 2, "whole number"),
        (["--database", "postgresql://x@/db", "--processes", "0"], 2, "at least 1"),
        (["--database", "postgresql://x@/db", "--processes", "1000000"], 2, "at most 256"),
        (["--database", "postgresql://x@/db", "--heartbeat", "0.1"], 2, "between 0.5 and 3600"),
        (["--database", "postgresql://x@/db?host=/nonexistent"], 4, "cannot reach"),
    ],
)
def test_worker_settings_are_checked_at_start(
    args: list[str], code: int, says: str, tmp_path: Path
) -> None:
    """A worker that cannot start says why in one line and exits with code 2 (a person must
    act), or 4 when the database does not answer (a service manager may try again)."""
    done = subprocess.run(
        [sys.executable, "-m", "bot.ai_worker", *args],
        cwd=tmp_path,
        env=clean_env("BRANDUBH_"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("brandubh-ai-worker: ")
    assert says in lines[0]


async def test_a_database_that_refuses_the_worker_needs_a_person(
    database: str, tmp_path: Path
) -> None:
    """A database that answers but refuses the worker (no such database) is exit code 2."""
    missing = database.replace("/brandubh_", "/missing_", 1)
    assert missing != database
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bot.ai_worker", "--database", missing],
        cwd=tmp_path,
        env=clean_env("BRANDUBH_"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("brandubh-ai-worker: cannot connect to "), done.stderr


async def test_a_connection_lost_while_setting_up_the_queue_is_worth_starting_again(
    database: str,
) -> None:
    """The worker's connection ended by the server while it sets up the job queue (here: killed
    while it waits for the queue's lock) is exit code 4, as the bot's own storage counts a
    closed connection; before, a traceback (asyncpg's InterfaceError: connection is closed)."""
    holder = await asyncpg.connect(database)
    try:
        await holder.execute("SELECT pg_advisory_lock($1)", lock_key(QUEUE_LOCK))
        checking = asyncio.create_task(check_database(database))
        waiting = None
        deadline = time.monotonic() + 30
        while waiting is None:
            assert time.monotonic() < deadline
            assert not checking.done()
            await asyncio.sleep(0.05)
            waiting = await holder.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE wait_event = 'advisory' "
                "AND datname = current_database() AND pid <> pg_backend_pid()"
            )
        assert await holder.fetchval("SELECT pg_terminate_backend($1)", waiting)
        with pytest.raises(Refused) as refused:
            await checking
        assert isinstance(refused.value, Unreachable), refused.value
        assert refused.value.code == 4
        assert "cannot set up the job queue in" in str(refused.value)
    finally:
        await holder.close()
