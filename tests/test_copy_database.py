"""Moving up: `python -m bot.copy_database` copies an SQLite file into PostgreSQL, and play goes on.

The source holds players' names in the server, finished matches with ratings, a game in
progress with its move timer, an open challenge and a takeback in the audit table. After the
copy the same services on PostgreSQL show the same standings (under the same names), the
game in progress continues at the same ply, its timer still ends it on time, and new matches
get new ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
from datetime import timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.services import Services
from bot.storage import Database, Dialect, schema_version
from bot.storage.errors import DatabaseBusy
from bot.storage.sqlite import SqliteDatabase
from tests.conftest import ALICE, BOB, CAROL, GUILD, FakeClock, postgres_database
from tests.older_schemas import step_back
from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parent.parent
PLAYING = 3000
WAITING = 3001


async def _history(services: Services) -> None:
    """Names in the server, two finished rated matches, a game in progress, an open
    challenge, a takeback."""
    await services.settings.change(GUILD, threads=False, time_per_move=timedelta(hours=1))
    for name, user in (("Alice", ALICE), ("Bob", BOB), ("Carol", CAROL)):
        await services.players.remember(user, name, guild_id=GUILD, member_name=f"{name} here")
    for channel, (winner, loser) in ((2000, (ALICE, BOB)), (2001, (ALICE, CAROL))):
        challenge = await services.challenges.create(GUILD, channel, winner, loser, sets_total=1)
        await services.challenges.accept(challenge.challenge_id, loser)
        await services.games.play(channel, winner, "d1-c1")
        await services.games.play(channel, loser, "d3-a3")  # moved: the set is rated
        await services.games.resign(channel, loser)
    challenge = await services.challenges.create(GUILD, PLAYING, BOB, CAROL)
    await services.challenges.accept(challenge.challenge_id, CAROL)
    for user, move in ((BOB, "d1-c1"), (CAROL, "d3-a3"), (BOB, "c1-c3")):
        await services.games.play(PLAYING, user, move)
    await services.takebacks.ask(PLAYING, BOB)
    await services.challenges.create(GUILD, WAITING, CAROL, ALICE)


async def _source_with_history(db_path: Path, clock: FakeClock) -> None:
    """The SQLite file ``db_path`` holding :func:`_history`, closed."""
    services = await Services.open(db_path, clock=clock)
    try:
        await _history(services)
    finally:
        await services.close()


async def _run_copy(source: Path, target: str) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.copy_database",
        str(source),
        target,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_copied_database_plays_on(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str
) -> None:
    """Matches, ratings, timers and open challenges arrive whole, and the games go on."""
    target = await postgres_database(postgres)
    before = await Services.open(db_path, clock=clock)
    try:
        await _history(before)
        board = await before.standings.leaderboard(GUILD)
        stats = await before.standings.player_stats(GUILD, ALICE)
        playing = await before.games.in_channel(PLAYING)
    finally:
        await before.close()
    assert playing is not None

    code, out, err = await _run_copy(db_path, target)
    assert (code, err) == (0, "")
    assert "moves" in out
    assert "Copied and verified" in out

    after = await Services.open(target, clock=clock)
    try:
        async with after.database.snapshot() as db:
            unvacuumed = await db.fetch_all(
                "SELECT relname FROM pg_stat_user_tables "
                "WHERE last_vacuum IS NULL OR last_analyze IS NULL"
            )
        assert [row[0] for row in unvacuumed] == [], "the copy is vacuumed and analysed"
        assert board.total == 3
        assert board.rows[0].display_name == "Alice here"
        assert await after.standings.leaderboard(GUILD) == board
        assert await after.standings.player_stats(GUILD, ALICE) == stats
        game = await after.games.in_channel(PLAYING)
        assert game is not None
        assert (game.set_id, game.ply, game.player_to_move) == (playing.set_id, 3, CAROL)
        assert game.deadline == playing.deadline
        assert [c.channel_id for c in await after.challenges.pending()] == [WAITING]
        await after.games.play(PLAYING, CAROL, "c4-c5")  # the takeback request lapses
        assert [t.takeback_id for t in await after.takebacks.lapse_stale()] != []
        # New rows get new ids after the copied ones.
        fresh = await after.challenges.create(GUILD, 3002, ALICE, BOB)
        accepted = await after.challenges.accept(fresh.challenge_id, BOB)
        assert accepted.set_id > game.set_id
        # The copied move timer still ends the game on time.
        ended = await after.clocks.time_out_due(clock.advance(timedelta(hours=2)))
        assert PLAYING in {end.game.channel_id for end in ended}
    finally:
        await after.close()


async def test_a_target_that_is_not_empty_is_refused(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str
) -> None:
    """Copying twice into the same database is refused with one line; nothing is doubled."""
    target = await postgres_database(postgres)
    await _source_with_history(db_path, clock)
    assert (await _run_copy(db_path, target))[0] == 0
    code, _, err = await _run_copy(db_path, target)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "empty database" in err
    after = await Services.open(target, clock=clock)
    try:
        page = await after.standings.leaderboard(GUILD)
        assert page.total == 3
    finally:
        await after.close()


@pytest.mark.parametrize("arguments", [("a.sqlite3", "b.sqlite3")])
async def test_copying_needs_a_postgresql_target(
    tmp_path: Path, arguments: tuple[str, str]
) -> None:
    """A target that is not a postgresql:// URL is refused in one line."""
    code, _, err = await _run_copy(tmp_path / arguments[0], str(tmp_path / arguments[1]))
    assert code == 2
    assert "postgresql://" in err


async def test_an_older_sqlite_file_is_upgraded_and_copied(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str
) -> None:
    """A file an older release left at schema 30 is brought to this schema and copied whole:
    the game in progress goes on in PostgreSQL at the same ply and deadline."""
    target = await postgres_database(postgres)
    before = await Services.open(db_path, clock=clock)
    try:
        await _history(before)
        board = await before.standings.leaderboard(GUILD)
        playing = await before.games.in_channel(PLAYING)
    finally:
        await before.close()
    assert playing is not None
    await step_back(str(db_path), 30)
    code, out, err = await _run_copy(db_path, target)
    assert (code, err) == (0, ""), err
    assert "Copied and verified" in out
    after = await Services.open(target, clock=clock)
    try:
        assert await after.database.stored_version() == schema_version(Dialect.POSTGRESQL)
        assert await after.standings.leaderboard(GUILD) == board
        game = await after.games.in_channel(PLAYING)
        assert game is not None
        assert (game.set_id, game.ply, game.deadline) == (playing.set_id, 3, playing.deadline)
        await after.games.play(PLAYING, CAROL, "c4-c5")
    finally:
        await after.close()


async def _target_tables(target: str) -> list[tuple[str, int | None]]:
    """The target's tables, and its schema version if it has one (read without migrating)."""
    connection = await asyncpg.connect(target)
    try:
        names = await connection.fetch(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY 1"
        )
        version = None
        if any(row[0] == "schema_version" for row in names):
            version = await connection.fetchval("SELECT max(version) FROM schema_version")
        return [(str(row[0]), version) for row in names]
    finally:
        await connection.close()


def _file_state(path: Path) -> tuple[int, list[str]]:
    """An SQLite file's schema version and every statement that would rebuild it."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        version = int(raw.execute("PRAGMA user_version").fetchone()[0])
        return version, list(raw.iterdump())


async def test_a_source_file_that_does_not_exist_is_refused(
    tmp_path: Path, postgres: PostgresServer | str
) -> None:
    """A mistyped source is refused in one line naming it: no empty file is made in its
    place, nothing is copied and the target is left as it was (before: an empty database was
    made there and "copied", exit code 0)."""
    target = await postgres_database(postgres)
    missing = tmp_path / "brandubh.sqlite3"
    code, out, err = await _run_copy(missing, target)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert str(missing) in err
    assert "does not exist" in err
    assert await asyncio.to_thread(os.listdir, tmp_path) == []
    assert await _target_tables(target) == []


@pytest.mark.parametrize("newer", ["source", "target"])
async def test_a_database_newer_than_this_bot_is_refused_changing_nothing(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str, newer: str
) -> None:
    """An operator who rolled the bot back: a source or target of a newer schema is refused in
    one line with exit code 2, and neither database is changed, the other (here an older
    file) not brought to this schema either (before: the source was migrated first)."""
    target = await postgres_database(postgres)
    await _source_with_history(db_path, clock)
    if newer == "source":
        with contextlib.closing(sqlite3.connect(db_path)) as raw:
            raw.execute(f"PRAGMA user_version = {schema_version() + 1}")
    else:
        await step_back(str(db_path), 38)
        await _make_newer(target)
    source_before = _file_state(db_path)
    target_before = await _target_tables(target)
    code, out, err = await _run_copy(db_path, target)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "newer than this bot's" in err
    assert _file_state(db_path) == source_before
    assert await _target_tables(target) == target_before


async def test_the_check_of_a_new_target_writes_nothing_there(
    postgres: PostgresServer | str,
) -> None:
    """The copy's first look at a new target (is it newer than this bot?) only reads it: the
    target stays without a table until the copy goes ahead (before: an empty schema_version
    table was made there, left behind when the source was then refused)."""
    target = await postgres_database(postgres)
    checked = await Database.open(target, target_version=0)
    await checked.close()
    assert await _target_tables(target) == []


async def _make_newer(target: str) -> None:
    """Bring the PostgreSQL ``target`` to this schema, then mark it one version newer."""
    opened = await Database.open(target)
    await opened.close()
    connection = await asyncpg.connect(target)
    try:
        await connection.execute(f"UPDATE schema_version SET version = {schema_version() + 1}")
    finally:
        await connection.close()


def _file_bytes_and_time(path: Path) -> tuple[bytes, int, list[str]]:
    """A file's bytes, its modification time and the names in its folder."""
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(os.listdir(path.parent))


@pytest.mark.parametrize("journal", ["delete", "wal"])
async def test_the_check_of_the_source_writes_nothing_there(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str, journal: str
) -> None:
    """A copy refused after its first look at the source (here: the target is newer) leaves the
    source file's bytes, time and folder as they were, whether it was restored from a backup
    (rollback journal) or left by the bot (write-ahead log) (before: the look switched a
    backup's file to write-ahead logging, rewriting its header; the log case already held)."""
    target = await postgres_database(postgres)
    await _source_with_history(db_path, clock)
    with contextlib.closing(sqlite3.connect(db_path)) as raw:
        raw.execute(f"PRAGMA journal_mode = {journal}")
    os.utime(db_path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    await _make_newer(target)
    before = _file_bytes_and_time(db_path)
    code, out, err = await _run_copy(db_path, target)
    assert (code, out) == (2, ""), err
    assert "newer than this bot's" in err
    assert _file_bytes_and_time(db_path) == before


async def test_the_check_of_the_source_waits_for_a_program_writing_it(
    db_path: Path, clock: FakeClock
) -> None:
    """A file restored from a backup (rollback journal) that another program holds a write
    lock on (the admin's sqlite3 shell, a bot not stopped yet): the check of the source takes
    SQLite's locks, so it is refused as busy, never read while that program may be rewriting
    its pages (before: it was read as immutable, past the lock, and its version taken from
    whatever the file held just then). Nothing is made beside the file either way."""
    await _source_with_history(db_path, clock)
    with contextlib.closing(sqlite3.connect(db_path)) as raw:
        raw.execute("PRAGMA journal_mode = delete")
    folder = sorted(os.listdir(db_path.parent))
    with contextlib.closing(sqlite3.connect(db_path, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")  # a writer's lock, before its journal is made
        with pytest.raises(DatabaseBusy, match="locked by another program"):
            await SqliteDatabase.check(db_path, busy_timeout=timedelta(milliseconds=100))
        assert sorted(os.listdir(db_path.parent)) == folder
        writer.execute("ROLLBACK")
    assert await SqliteDatabase.check(db_path) == schema_version(Dialect.SQLITE)
    assert sorted(os.listdir(db_path.parent)) == folder
