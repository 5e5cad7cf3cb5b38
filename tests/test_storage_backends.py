"""Both backends keep the same promises when several processes share one database.

Each test runs on SQLite and on PostgreSQL (the ``database`` fixture). Two :class:`Services`
opened on the same database stand for two bot processes: they migrate once, racing moves
never both land, and each drives only the servers of its own shards.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.services import Services
from bot.services.errors import NotYourTurn, StaleGameError
from bot.shards import Shards
from bot.storage import Database, Dialect, migrations, schema_version
from bot.storage.postgresql import numbered
from tests.conftest import ALICE, BOB, CHANNEL, GUILD, OTHER_CHANNEL, FakeClock


def test_every_sqlite_migration_has_its_postgresql_twin() -> None:
    """The dialects' migrations pair up by number and name (the same schema version means the
    same tables in both; see bot/storage/database.py for how to add one)."""
    sqlite = [name for _, name, _ in migrations(Dialect.SQLITE)]
    postgresql = [name for _, name, _ in migrations(Dialect.POSTGRESQL)]
    assert sqlite == postgresql
    assert schema_version(Dialect.SQLITE) == schema_version(Dialect.POSTGRESQL)


def test_placeholders_are_numbered_outside_quoted_text() -> None:
    """``?`` becomes ``$1, $2 …`` for PostgreSQL, but not inside a quoted string."""
    sql = "SELECT ? , 'what?' FROM t WHERE a = ? AND b = \"odd?name\" AND c IN (?, ?)"
    assert numbered(sql) == (
        "SELECT $1 , 'what?' FROM t WHERE a = $2 AND b = \"odd?name\" AND c IN ($3, $4)"
    )


async def test_processes_starting_together_migrate_once(database: str) -> None:
    """Two processes opening a new database at the same moment both end at the latest schema."""
    first, second = await asyncio.gather(Database.open(database), Database.open(database))
    try:
        assert await first.stored_version() == await second.stored_version()
        assert await first.stored_version() == schema_version(first.dialect)
    finally:
        await first.close()
        await second.close()


async def _two_processes(database: str, clock: FakeClock) -> tuple[Services, Services]:
    one = await Services.open(database, clock=clock)
    two = await Services.open(database, clock=clock)
    return one, two


async def _start(services: Services, guild: int = GUILD, channel: int = CHANNEL) -> None:
    await services.settings.update(guild, threads=False)
    challenge = await services.challenges.create(guild, channel, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)


async def test_moves_racing_from_two_processes_never_both_land(
    database: str, clock: FakeClock
) -> None:
    """The same player's two moves sent through two processes at once: exactly one lands."""
    one, two = await _two_processes(database, clock)
    try:
        await _start(one)
        for _ in range(5):
            game = await one.games.in_channel(CHANNEL)
            assert game is not None
            first, second = (str(move) for move in game.game.legal_moves()[:2])
            results = await asyncio.gather(
                one.games.play(CHANNEL, game.player_to_move, first),
                two.games.play(CHANNEL, game.player_to_move, second),
                return_exceptions=True,
            )
            landed = [r for r in results if not isinstance(r, BaseException)]
            assert len(landed) == 1, results
            refused = [r for r in results if isinstance(r, BaseException)]
            assert isinstance(refused[0], StaleGameError | NotYourTurn)
        exported = await two.games.export(channel_id=CHANNEL)
        assert len(exported.game.records) == 5
        after = await two.games.in_channel(CHANNEL)
        assert after is not None
        assert after.ply == 5
    finally:
        await one.close()
        await two.close()


async def test_a_resignation_racing_a_move_in_another_process_never_loses_either(
    database: str, clock: FakeClock
) -> None:
    """A move and a resignation from two processes: the set ends by resignation, after the
    move if it landed first, and the move list agrees with the set's stored move count."""
    one, two = await _two_processes(database, clock)
    try:
        await _start(one)
        results = await asyncio.gather(
            one.games.play(CHANNEL, ALICE, "d1-c1"),
            two.games.resign(CHANNEL, BOB),
            return_exceptions=True,
        )
        resigned = results[1]
        assert not isinstance(resigned, BaseException), resigned
        exported = await one.games.export(game_id=resigned.game.game_id)
        moved = not isinstance(results[0], BaseException)
        assert len(exported.game.records) == (1 if moved else 0)
        assert resigned.moves == len(exported.game.records)
        with pytest.raises(NotYourTurn):
            await one.games.play(CHANNEL, ALICE, "d1-c1")  # set 2: Bob attacks now
    finally:
        await one.close()
        await two.close()


async def test_each_process_drives_only_the_servers_of_its_shards(
    database: str, clock: FakeClock
) -> None:
    """Timers of a shard process end only its own servers' games on time."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    opened = await Services.open(database, clock=clock)
    try:
        await _start(opened, guild_a, CHANNEL)
        await _start(opened, guild_b, OTHER_CHANNEL)
    finally:
        await opened.close()
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    shard_1 = await Services.open(database, clock=clock, shards=Shards(2, (1,)))
    try:
        assert [g.guild_id for g in await shard_0.games.active()] == [guild_a]
        assert [g.guild_id for g in await shard_1.games.active()] == [guild_b]
        late = clock.advance(timedelta(days=2))
        ended = await shard_0.games.time_out_due(late)
        assert [end.game.guild_id for end in ended] == [guild_a]
        assert await shard_1.games.in_channel(OTHER_CHANNEL) is not None
        ended = await shard_1.games.time_out_due(late)
        assert [end.game.guild_id for end in ended] == [guild_b]
    finally:
        await shard_0.close()
        await shard_1.close()
