"""The database file: migrations, pragmas, and clear errors for files the bot cannot use."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from bot.services import Services
from bot.services.errors import ChannelBusy
from bot.storage import Database, migrations, schema_version
from bot.storage.errors import ConstraintViolated, StorageError
from bot.storage.times import to_us
from tests.conftest import ALICE, BOB, CHANNEL, GUILD, FakeClock


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as raw:
        rows = raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


async def test_empty_file_is_migrated_to_the_latest_schema(db_path: Path) -> None:
    """A new file gets every table and the latest schema version."""
    database = await Database.open(db_path)
    version = await database.stored_version()
    await database.close()
    assert version == schema_version() == migrations()[-1][0]
    assert {"players", "sets", "moves", "matches", "challenges", "ratings"} <= _tables(db_path)


async def test_zero_byte_file_is_treated_as_empty(db_path: Path) -> None:
    """An existing but empty file is a new database, not an error."""
    db_path.touch()  # noqa: ASYNC240 - creating the test's empty file before the bot opens it
    database = await Database.open(db_path)
    assert await database.stored_version() == schema_version()
    await database.close()


@pytest.mark.parametrize("version", [number for number, _, _ in migrations()[:-1]])
async def test_every_earlier_schema_is_migrated_keeping_its_games(
    db_path: Path, clock: FakeClock, version: int
) -> None:
    """A file made by an older bot (schema N) is migrated and its game in progress survives."""
    old = await Database.open(db_path, target_version=version)
    assert await old.stored_version() == version
    await old.close()
    # Play on the old schema through SQL the old version had (players, matches, games, moves;
    # `games` became `sets` in schema 10).
    with sqlite3.connect(db_path) as raw:
        raw.execute(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, 'Alice', 0), "
            "(?, 'Bob', 0)",
            (ALICE, BOB),
        )
        raw.execute(
            "INSERT INTO matches (guild_id, channel_id, player1_id, player2_id, player1_side, "
            "ruleset, sets_total, time_per_move_us, rated, started_us) "
            "VALUES (?, ?, ?, ?, 'attackers', 'brandubh', 2, 86400000000, 1, 0)",
            (GUILD, CHANNEL, ALICE, BOB),
        )
        # From schema 3 on, storing a move advances its game (a trigger); before, the game row
        # was written already advanced.
        advanced = version < 3
        table = "sets" if version >= 10 else "games"
        raw.execute(
            f"INSERT INTO {table} (match_id, set_number, guild_id, channel_id, ruleset, "
            "attacker_id, defender_id, ply, to_move_id, started_us, deadline_us, reminder_us) "
            "VALUES (1, 1, ?, ?, 'brandubh', ?, ?, ?, ?, 0, 4102444800000000, 4102444800000000)",
            (GUILD, CHANNEL, ALICE, BOB, int(advanced), BOB if advanced else ALICE),
        )
        # Played just now: from schema 3 on the trigger arms bob's deadline a day from it.
        raw.execute("INSERT INTO moves VALUES (1, 0, 'd1-c1', '', ?, ?)", (ALICE, to_us(clock.now)))
    services = await Services.open(db_path, clock=clock)
    try:
        assert await services.database.stored_version() == schema_version()
        game = await services.games.in_channel(CHANNEL)
        assert game is not None
        assert [str(r.move) for r in game.game.records] == ["d1-c1"]
        assert game.player_to_move == BOB
        await services.games.play(CHANNEL, BOB, "d3-a3")
    finally:
        await services.close()


async def test_a_file_that_is_not_sqlite_is_refused_naming_it(tmp_path: Path) -> None:
    """A text file in place of the database stops start-up with a sentence naming the file."""
    path = tmp_path / "notes.txt"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StorageError) as caught:
        await Services.open(path)
    assert str(path) in str(caught.value)
    assert "not" in str(caught.value)
    assert "SQLite" in str(caught.value)


async def test_a_newer_schema_is_refused_naming_the_file(db_path: Path) -> None:
    """A file written by a newer bot is refused rather than misread."""
    with sqlite3.connect(db_path) as raw:
        raw.execute(f"PRAGMA user_version = {schema_version() + 1}")
    with pytest.raises(StorageError) as caught:
        await Services.open(db_path)
    assert str(db_path) in str(caught.value)
    assert "newer" in str(caught.value)


async def test_a_locked_database_is_retried_then_refused(db_path: Path) -> None:
    """While another program holds the write lock, a write waits its timeout then says so."""
    services = await Services.open(db_path, busy_timeout=timedelta(milliseconds=200))
    blocker = sqlite3.connect(db_path, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        with pytest.raises(StorageError) as caught:
            await services.players.remember(ALICE, "Alice")
        assert "locked" in str(caught.value)
        assert str(db_path) in str(caught.value)
        blocker.execute("ROLLBACK")
        await services.players.remember(ALICE, "Alice")
        assert await services.players.name(guild_id=None, user_id=ALICE) == "Alice"
    finally:
        blocker.close()
        await services.close()


async def test_the_file_uses_write_ahead_logging(db_path: Path) -> None:
    """The database is in WAL mode (readers never block the bot's writes)."""
    database = await Database.open(db_path)
    await database.close()
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_the_database_refuses_a_second_game_in_a_channel(services: Services) -> None:
    """Even bypassing the services, the database will not hold two games in progress in one
    channel, and the services refuse it as a busy channel."""
    await services.settings.change(GUILD, threads=False)
    await services.challenges.accept(
        (await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)).challenge_id, BOB
    )
    with pytest.raises(ConstraintViolated):
        async with services.database.transaction() as db:
            await db.execute(
                "INSERT INTO sets (match_id, set_number, guild_id, channel_id, ruleset, "
                "attacker_id, defender_id, to_move_id, started_us, deadline_us, reminder_us) "
                "VALUES (1, 2, ?, ?, 'brandubh', ?, ?, ?, 0, 0, 0)",
                (GUILD, CHANNEL, BOB, ALICE, BOB),
            )
    with pytest.raises(ChannelBusy):
        await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)


async def test_foreign_keys_are_enforced(services: Services) -> None:
    """A move for a game that does not exist is refused by the database."""
    with pytest.raises(ConstraintViolated):
        async with services.database.transaction() as db:
            await db.execute("INSERT INTO moves VALUES (12345, 0, 'd1-c1', '', 1, 0)")


async def test_closing_twice_is_harmless(db_path: Path) -> None:
    """Shutting down twice does not raise; using a closed database says it is closed."""
    services = await Services.open(db_path)
    await services.close()
    await services.close()
    with pytest.raises(StorageError, match="closed"):
        await services.players.remember(ALICE, "Alice")
