"""Both backends keep the same promises when several processes share one database.

Each test runs on SQLite and on PostgreSQL (the ``database`` fixture). Two :class:`Services`
opened on the same database stand for two bot processes: they migrate once, racing moves
never both land, and each drives only the servers of its own shards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from bot.services import ActiveGame, MoveResult, Services
from bot.services.domain import Takeback
from bot.services.errors import NotYourTurn, StaleGameError
from bot.services.settings import KEEP_SECONDS, SettingsService
from bot.shards import Shards
from bot.storage import (
    Connection,
    Database,
    Dialect,
    announcements,
    migrations,
    moves,
    players,
    puzzles,
    schema_version,
    sets,
)
from bot.storage.announcements import GRACE_US, AnnouncementRow
from bot.storage.errors import DatabaseBusy
from bot.storage.postgresql import PostgresDatabase, numbered
from bot.storage.times import to_us
from tests.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    COMPUTER,
    GUILD,
    OTHER_CHANNEL,
    FakeClock,
    postgres_database,
)
from tests.older_schemas import (
    SCHEMA_45_UNDONE,
    SCHEMA_47_UNDONE,
    SCHEMA_49_UNDONE,
    back_to_schema,
    schema_43_undone,
    schema_44_undone,
)
from tests.postgres_server import PostgresServer


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
    await services.settings.change(guild, threads=False)
    challenge = await services.challenges.create(guild, channel, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board is out


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
        exported = await two.records.export(channel_id=CHANNEL, unnamed="a player")
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
        exported = await one.records.export(set_id=resigned.game.set_id, unnamed="a player")
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
        ended = await shard_0.clocks.time_out_due(late)
        assert [end.game.guild_id for end in ended] == [guild_a]
        assert await shard_1.games.in_channel(OTHER_CHANNEL) is not None
        ended = await shard_1.clocks.time_out_due(late)
        assert [end.game.guild_id for end in ended] == [guild_b]
    finally:
        await shard_0.close()
        await shard_1.close()


async def test_schema_10_renames_games_to_sets_keeping_a_set_in_progress(
    database: str, clock: FakeClock
) -> None:
    """A database of schema 9 (the table still called ``games``) with a set in progress is
    migrated; the set, its moves and its owed board survive under the new names, and the
    recreated triggers still advance the set and fill the outbox when play goes on."""
    old = await Database.open(database, target_version=9)
    try:
        async with old.transaction() as db:
            await db.execute(
                "INSERT INTO players VALUES (?, 'Alice', 0), (?, 'Bob', 0)", (ALICE, BOB)
            )
            await db.execute(
                "INSERT INTO matches (guild_id, channel_id, player1_id, player2_id, "
                "player1_side, ruleset, sets_total, time_per_move_us, rated, started_us) "
                "VALUES (?, ?, ?, ?, 'attackers', 'brandubh', 2, 86400000000, 1, 0)",
                (GUILD, CHANNEL, ALICE, BOB),
            )
            await db.execute(
                "INSERT INTO games (match_id, set_number, guild_id, channel_id, ruleset, "
                "attacker_id, defender_id, to_move_id, started_us, deadline_us, reminder_us) "
                "VALUES (1, 1, ?, ?, 'brandubh', ?, ?, ?, 0, 0, 0)",
                (GUILD, CHANNEL, ALICE, BOB, ALICE),
            )
            # Played just now: the trigger arms bob's deadline a day from the move.
            await db.execute(
                "INSERT INTO moves (game_id, ply, notation, captures, player_id, played_us) "
                "VALUES (1, 0, 'd1-c1', '', ?, ?)",
                (ALICE, to_us(clock.now)),
            )
    finally:
        await old.close()
    services = await Services.open(database, clock=clock)
    try:
        assert await services.database.stored_version() == schema_version(services.database.dialect)
        game = await services.games.in_channel(CHANNEL)
        assert game is not None
        assert [str(r.move) for r in game.game.records] == ["d1-c1"]
        assert game.player_to_move == BOB
        await services.games.play(CHANNEL, BOB, "d3-a3")
        after = await services.games.in_channel(CHANNEL)
        assert after is not None
        assert (after.set_id, after.ply, after.player_to_move) == (game.set_id, 2, ALICE)
        async with services.database.snapshot() as db:
            owed = await db.fetch_all("SELECT set_id, ply FROM announcements ORDER BY ply")
        assert [tuple(row) for row in owed] == [(game.set_id, 1), (game.set_id, 2)]
        # Nothing in the catalog is still named after games.
        async with services.database.snapshot() as db:
            if services.database.dialect is Dialect.SQLITE:
                names = await db.fetch_all("SELECT name FROM sqlite_master")
            else:
                names = await db.fetch_all(
                    "SELECT relname FROM pg_class "
                    "WHERE relnamespace = current_schema()::regnamespace "
                    "UNION ALL SELECT conname FROM pg_constraint "
                    "WHERE connamespace = current_schema()::regnamespace "
                    "UNION ALL SELECT tgname FROM pg_trigger WHERE NOT tgisinternal "
                    "UNION ALL SELECT proname FROM pg_proc "
                    "WHERE pronamespace = current_schema()::regnamespace"
                )
        assert [row[0] for row in names if "game" in row[0]] == []
    finally:
        await services.close()


async def test_settings_are_kept_in_memory_and_read_again_in_time(database: str) -> None:
    """Each process keeps the settings it read (every interaction needs them) and those it
    changed; a change made by another process is seen once KEEP_SECONDS have passed."""
    now = [0.0]
    first, second = await Database.open(database), await Database.open(database)
    try:
        one = SettingsService(first)
        two = SettingsService(second, monotonic=lambda: now[0])
        assert (await two.get(GUILD)).threads
        await one.change(GUILD, threads=False)
        assert not (await one.get(GUILD)).threads  # at once where it was changed
        now[0] += KEEP_SECONDS - 1
        assert (await two.get(GUILD)).threads  # what the other process read is kept a while
        now[0] += 1
        assert not (await two.get(GUILD)).threads
        await two.change(GUILD, language="de")
        assert (await two.get(GUILD)).language == "de"
        assert not (await two.get(GUILD)).threads  # the change kept the other setting
    finally:
        await first.close()
        await second.close()


async def test_a_read_or_write_cancelled_while_it_begins_leaves_the_database_usable(
    database: str,
) -> None:
    """A task cancelled while its transaction is beginning (the move timers stopping in the
    middle of a check, say) leaves nothing open: later reads and writes go on as usual."""
    db = await Database.open(database)
    try:
        for opening in (db.snapshot, db.transaction):

            async def use(opening: Callable[[], Any] = opening) -> None:
                async with opening() as connection:
                    await connection.fetch_one("SELECT 1")

            for _ in range(3):
                task = asyncio.create_task(use())
                await asyncio.sleep(0)  # the task is now waiting for its BEGIN
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            async with db.snapshot() as connection:
                assert await connection.fetch_one("SELECT 1") == (1,)
            async with db.transaction() as connection:
                assert await connection.fetch_one("SELECT 2") == (2,)
    finally:
        await db.close()


async def _playing_on_postgresql(
    postgres: PostgresServer | str, clock: FakeClock
) -> tuple[str, ActiveGame]:
    """A new PostgreSQL database with Alice and Bob's set in progress (skips without one)."""
    database = await postgres_database(postgres)
    opened = await Services.open(database, clock=clock)
    try:
        await _start(opened)
        playing = await opened.games.in_channel(CHANNEL)
        assert playing is not None
    finally:
        await opened.close()
    return database, playing


async def _first_move(connection: Connection, set_id: int) -> sets.SetRow | None:
    """Alice's first move in set ``set_id``, stored by the storage layer itself."""
    moved = await moves.add_move(
        connection,
        set_id,
        expected_ply=0,
        notation="d1-d3",
        captures="",
        player_id=ALICE,
        now_us=0,
    )
    return None if moved is None else moved[0]


async def test_moves_and_timers_on_postgresql_stay_cheap_however_long_the_history(
    postgres: PostgresServer | str, clock: FakeClock
) -> None:
    """With thousands of matches and finished sets stored, a move finds its match through its
    key and its set through an index, and updates the set's row in place (no index entry);
    the timers' queries scan only the sets in progress: a move and a timer check cost the same
    as a server's history grows."""
    database, playing = await _playing_on_postgresql(postgres, clock)
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            # Two thousand more matches, each with one finished set: copies of the first.
            for table, key in (("matches", "match_id"), ("sets", "set_id")):
                columns = [
                    str(row[0])
                    for row in await connection.fetch_all(
                        "SELECT column_name FROM information_schema.columns "
                        "WHERE table_name = ? AND column_name NOT IN (?, 'match_id', 'status') "
                        "AND table_schema = current_schema()",
                        (table, key),
                    )
                ]
                names = ", ".join(columns)
                await connection.execute(
                    f"INSERT INTO {table} ({names}, status, match_id) "
                    f"SELECT {names}, 'finished', match_id + n FROM {table}, "
                    "generate_series(1, 2000) n"
                )
            await connection.execute("ANALYZE matches")
            await connection.execute("ANALYZE sets")
        async with db.snapshot() as connection:
            plan = await connection.fetch_all(
                f"EXPLAIN {moves.ADD_MOVE_POSTGRESQL}",
                (playing.set_id, 0, "d1-d3", "", ALICE, 0),
            )
        lines = "\n".join(str(row[0]) for row in plan)
        assert "matches_pkey" in lines, lines
        assert "Seq Scan" not in lines, lines
        async with db.transaction() as connection:
            # What this connection did to sets and has not yet reported to the statistics
            # (PostgreSQL 15 counts per backend until it reports): compared before and after.
            counted = (
                "SELECT pg_stat_get_xact_tuples_updated('sets'::regclass), "
                "pg_stat_get_xact_tuples_hot_updated('sets'::regclass), "
                "pg_stat_get_xact_numscans('sets'::regclass)"
            )
            before = tuple(await connection.fetch_one(counted) or ())
            moved = await _first_move(connection, playing.set_id)
            assert moved is not None
            assert moved.ply == 1
            late = 10**18
            assert [row.set_id for row in await sets.due_deadlines(connection, late)] == [
                playing.set_id
            ]
            half_time = moved.reminder_us  # a reminder is due from here until the deadline
            assert [row.set_id for row in await sets.due_reminders(connection, half_time)] == [
                playing.set_id
            ]
            after = tuple(await connection.fetch_one(counted) or ())
            updated, in_place, scans = (now - then for now, then in zip(after, before, strict=True))
            assert (updated, in_place) == (1, 1), "the set's row is updated in place"
            assert scans == 0, "neither the move nor the timers scan the whole table of sets"
    finally:
        await db.close()


async def test_a_move_waiting_on_a_set_that_ends_meanwhile_writes_nothing(
    postgres: PostgresServer | str, clock: FakeClock
) -> None:
    """On PostgreSQL a move blocked behind another transaction that ends its set (a
    resignation in another process) looks at the set again once that commits: no move, no
    owed board, and the set stays as the other transaction left it."""
    database, playing = await _playing_on_postgresql(postgres, clock)
    db = await Database.open(database)
    try:
        async with db.transaction() as other:
            await other.execute(
                "UPDATE sets SET status = 'finished' WHERE set_id = ?", (playing.set_id,)
            )

            async def move() -> sets.SetRow | None:
                async with db.single_statement() as connection:
                    return await _first_move(connection, playing.set_id)

            waiting = asyncio.create_task(move())
            await asyncio.sleep(0.5)
            assert not waiting.done()  # it waits for the set's lock
        assert await waiting is None
        async with db.snapshot() as connection:
            row = await sets.by_id(connection, playing.set_id)
            assert row is not None
            assert (row.status, row.ply) == (sets.FINISHED, 0)
            assert await moves.notations(connection, playing.set_id) == []
            # (the match's first board, at ply 0, is owed from its start)
            assert await connection.fetch_all("SELECT ply FROM announcements WHERE ply > 0") == []
    finally:
        await db.close()


async def test_work_waits_for_a_free_connection_then_says_the_database_is_busy(
    postgres: PostgresServer | str,
) -> None:
    """With every connection of the pool in use, work waits its turn for a while, then is told
    the database is busy in one sentence; once a connection is free again it goes on."""
    database = await postgres_database(postgres)
    db = await PostgresDatabase.connect(
        database,
        busy_timeout=timedelta(seconds=0.1),
        pool_size=1,
        connection_wait=timedelta(seconds=0.3),
    )
    try:
        async with db.transaction() as held:
            await held.fetch_one("SELECT 1")
            waited = asyncio.get_running_loop().time()
            with pytest.raises(DatabaseBusy, match=r"no connection was free for 0\.3 s"):
                async with db.snapshot() as connection:
                    await connection.fetch_one("SELECT 1")
            assert asyncio.get_running_loop().time() - waited >= 0.3
        async with db.snapshot() as connection:
            assert await connection.fetch_one("SELECT 2") == (2,)
    finally:
        await db.close()


async def test_schema_14_keeps_open_challenges_and_lets_one_be_open_to_anyone(
    database: str, clock: FakeClock
) -> None:
    """A database of schema 13 with an open challenge is migrated: the challenge survives and
    can be accepted, and a new challenge may name no opponent (SQLite rebuilt the table)."""
    old = await Database.open(database, target_version=13)
    try:
        async with old.transaction() as db:
            await db.execute(
                "INSERT INTO players VALUES (?, 'Alice', 0), (?, 'Bob', 0)", (ALICE, BOB)
            )
            await db.execute(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "ruleset, sets_total, challenger_side, time_per_move_us, created_us, "
                "expires_us, message_id) "
                "VALUES (?, ?, ?, ?, 'brandubh', 1, 'defenders', 86400000000, ?, ?, 77)",
                (GUILD, CHANNEL, ALICE, BOB, to_us(clock.now), to_us(clock.now) + 600_000_000),
            )
    finally:
        await old.close()
    services = await Services.open(database, clock=clock)
    try:
        assert await services.database.stored_version() == schema_version(services.database.dialect)
        [kept] = await services.challenges.pending()
        assert (kept.challenger_id, kept.opponent_id, kept.message_id) == (ALICE, BOB, 77)
        game = await services.challenges.accept(kept.challenge_id, BOB)
        assert (game.attacker_id, game.defender_id) == (BOB, ALICE)
        anyone = await services.challenges.create(GUILD, CHANNEL + 1, ALICE, None)
        assert anyone.opponent_id is None
        assert anyone.challenge_id > kept.challenge_id
    finally:
        await services.close()


async def test_schema_20_keeps_each_name_for_the_servers_that_showed_it(
    database: str, clock: FakeClock
) -> None:
    """A database of schema 19 (one name per user) is migrated: each name stays the player's
    name in the servers where they played, were challenged or tried a puzzle, the computer gets
    none there, and another server, or none, shows the account's name until the member is seen
    again."""
    old = await Database.open(database, target_version=19)
    try:
        async with old.transaction() as db:
            await db.execute(
                "INSERT INTO players VALUES (?, 'Ali', 5), (?, 'Bob', 6), (?, 'Carol', 7), "
                "(?, 'Brandubh', 8)",
                (ALICE, BOB, CAROL, COMPUTER),
            )
            await db.execute(
                "INSERT INTO matches (guild_id, channel_id, player1_id, player2_id, "
                "player1_side, ruleset, sets_total, time_per_move_us, computer_id, "
                "computer_level, rated, started_us) "
                "VALUES (?, ?, ?, ?, 'attackers', 'brandubh', 1, 86400000000, ?, 3, 0, 0)",
                (GUILD, CHANNEL, ALICE, COMPUTER, COMPUTER),
            )
            await db.execute(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "ruleset, sets_total, challenger_side, time_per_move_us, created_us, "
                "expires_us) "
                "VALUES (?, ?, ?, ?, 'brandubh', 1, 'defenders', 86400000000, 0, 0)",
                (GUILD + 1, CHANNEL, BOB, ALICE),
            )
            await puzzles.start(
                db, user_id=BOB, guild_id=GUILD + 3, puzzle_id="p1", daily_day=None, now_us=1
            )
    finally:
        await old.close()
    services = await Services.open(database, clock=clock)
    try:
        assert await services.database.stored_version() == schema_version(services.database.dialect)
        async with services.database.snapshot() as db:
            kept = await db.fetch_all(
                "SELECT guild_id, user_id, display_name, seen_us FROM member_names "
                "ORDER BY guild_id, user_id"
            )
        assert [tuple(row) for row in kept] == [
            (GUILD, ALICE, "Ali", 5),
            (GUILD + 1, ALICE, "Ali", 5),
            (GUILD + 1, BOB, "Bob", 6),
            (GUILD + 3, BOB, "Bob", 6),
        ]
        await services.players.remember(CAROL, "carol", guild_id=GUILD, member_name="Caro")
        assert await services.players.names(GUILD + 2, [ALICE, CAROL, COMPUTER]) == {
            ALICE: "Ali",
            CAROL: "carol",
            COMPUTER: "Brandubh",
        }
        assert await services.players.name(guild_id=GUILD, user_id=CAROL) == "Caro"
    finally:
        await services.close()


async def test_boards_paused_after_a_refusal_are_tried_again_when_their_server_changes(
    database: str, clock: FakeClock
) -> None:
    """A board Discord refused waits long (its channel among its server's ``refused_channels``,
    which a restart weighs); ``retry_refused`` for its server brings it to the next check, and
    leaves another server's refused board waiting."""
    guild_a, guild_b = 4 << 22, 5 << 22
    opened = await Services.open(database, clock=clock)
    try:
        await _start(opened, guild_a, CHANNEL)
        await _start(opened, guild_b, OTHER_CHANNEL)
        for channel in (CHANNEL, OTHER_CHANNEL):
            game = await opened.games.in_channel(channel)
            assert game is not None
            await opened.games.play(channel, game.player_to_move, str(game.game.legal_moves()[0]))
        clock.advance(timedelta(minutes=1))
        owed = await opened.announcements.due()
        assert len(owed) == 2
        for row in owed:
            await opened.announcements.failed(replace(row, attempts=12), refused=True)
        clock.advance(timedelta(minutes=1))
        assert await opened.announcements.due() == []
        assert await opened.announcements.refused_channels(guild_a) == [CHANNEL]
        await opened.announcements.retry_refused(guild_a)
        assert [row.channel_id for row in await opened.announcements.due()] == [CHANNEL]
        assert await opened.announcements.refused_channels(guild_a) == []
        assert await opened.announcements.refused_channels(guild_b) == [OTHER_CHANNEL]
    finally:
        await opened.close()


async def test_a_new_days_claim_drops_the_days_never_posted_and_a_drawn_puzzle_turns_daily(
    database: str, clock: FakeClock
) -> None:
    """Claiming a day drops earlier claims Discord never took (a posted one stays); an open
    attempt begun with /puzzle becomes the day's daily attempt."""
    db = await Database.open(database)
    try:
        setting = puzzles.DailyRow(GUILD, CHANNEL, 12, 0)
        async with db.transaction() as connection:
            await puzzles.set_daily(connection, setting)
            for day, puzzle_id in (
                ("2026-11-01", "p1"),
                ("2026-11-02", "p2"),
                ("2026-11-03", "p3"),
            ):
                await puzzles.claim_day(
                    connection, setting, day=day, puzzle_id=puzzle_id, now_us=1, next_post_us=0
                )
                if day == "2026-11-01":
                    await puzzles.posted(connection, GUILD, day, 99)
            await players.ensure(connection, ALICE, clock())
            row = await puzzles.start(
                connection, user_id=ALICE, guild_id=GUILD, puzzle_id="p3", daily_day=None, now_us=1
            )
            await puzzles.make_daily(connection, row.attempt_id, GUILD, "2026-11-03")
        async with db.snapshot() as connection:
            assert [(r.day, r.message_id) for r in await puzzles.unposted(connection)] == [
                ("2026-11-03", None)
            ]
            before = await puzzles.post_before(connection, GUILD, "2026-11-03")
            assert before is not None
            assert before.day == "2026-11-01"
            again = await puzzles.attempt(connection, row.attempt_id)
            assert again is not None
            assert again.daily_day == "2026-11-03"
    finally:
        await db.close()


async def test_the_places_of_games_name_the_thread_and_its_channel(
    database: str, clock: FakeClock
) -> None:
    """Where games are played: a channel game's channel, and a thread game's thread with the
    channel the bot started it in; a set of another server has no place here."""
    opened = await Services.open(database, clock=clock)
    try:
        await _start(opened, GUILD, CHANNEL)
        await opened.settings.change(GUILD, threads=True)
        challenge = await opened.challenges.create(GUILD, OTHER_CHANNEL, CAROL, BOB)
        await opened.challenges.set_message(challenge.challenge_id, 5_000)
        thread = await opened.challenges.accept(challenge.challenge_id, BOB, thread_id=77)
        assert sorted(await opened.records.places_in_progress(GUILD)) == sorted(
            [(CHANNEL, None), (77, OTHER_CHANNEL)]
        )
        assert await opened.records.place_of(thread.set_id, GUILD) == (77, OTHER_CHANNEL)
        assert await opened.records.place_of(thread.set_id, GUILD + 1) is None
        assert await opened.records.place_of(10**12, GUILD) is None
    finally:
        await opened.close()


async def test_schema_26_tells_a_walkover_from_a_next_set_that_began(
    database: str, clock: FakeClock
) -> None:
    """Sets ended before schema 26 are read as they were: a match's next set lost at once by
    bob, who had left (a walkover), is marked not played; one lost at move 0 at his reminder,
    after it began, is not."""
    services = await Services.open(database, clock=clock)
    try:
        ids = []
        for channel in (CHANNEL, OTHER_CHANNEL):
            challenge = await services.challenges.create(GUILD, channel, ALICE, BOB)
            first = await services.challenges.accept(challenge.challenge_id, BOB)
            await services.games.play(channel, ALICE, "d1-b1")
            following = (await services.games.resign(channel, BOB)).next_game
            assert following is not None
            if channel == OTHER_CHANNEL:
                clock.advance(timedelta(hours=13))  # set 2 began; its reminder finds bob gone
            await services.games.forfeit(following.set_id, BOB)
            ids.append(following.set_id)
            assert first.set_id < following.set_id
        await back_to_schema(
            services.database,
            25,
            # schema 44's first (its moves trigger reads sets.undone, schema 30's), then 43's
            *SCHEMA_49_UNDONE,
            *SCHEMA_47_UNDONE,
            *SCHEMA_45_UNDONE,
            *schema_44_undone(services.database.dialect),
            *schema_43_undone(services.database.dialect),
            "ALTER TABLE sets DROP COLUMN walkover",
            "ALTER TABLE sets DROP COLUMN aborted_by",
            "ALTER TABLE analysis_claims DROP COLUMN owner",  # schema 27's
            "DROP TABLE holds",  # schema 28's
            "DROP TABLE given_back",  # schema 29's
            "ALTER TABLE sets DROP COLUMN undone",  # schema 30's
            "DROP INDEX sets_in_progress",  # schema 31's
            "DROP TABLE daily_stops",  # schema 32's
            "ALTER TABLE announcements DROP COLUMN late_cause",  # schema 33's
            "DROP TABLE takeback_answers_owed",
            "DROP TABLE player_holds_given",  # schema 34's
            "CREATE INDEX rating_history_by_player ON rating_history "  # dropped by schema 35
            "(guild_id, user_id, history_id)",
            "DROP TABLE player_holds",  # schema 36's
            "DROP TABLE match_lines_owed",  # schema 37's
            "DROP INDEX challenges_by_match",  # schema 40's
            "DROP INDEX IF EXISTS puzzle_attempts_by_solver",  # schema 42's (SQLite only)
        )
    finally:
        await services.close()
    services = await Services.open(database, clock=clock)
    try:
        async with services.database.snapshot() as db:
            rows = [await sets.by_id(db, set_id) for set_id in ids]
        assert [(row.left_server, row.ply, row.walkover) for row in rows if row] == [
            (True, 0, True),
            (True, 0, False),
        ]
    finally:
        await services.close()


async def test_schema_30_counts_the_moves_taken_back_before_it(
    database: str, clock: FakeClock
) -> None:
    """Moves taken back before schema 30 are counted on their set by its migration: a set
    with two taken back and one with none read back as they stood."""
    services = await Services.open(database, clock=clock)
    try:
        ids = []
        for channel in (CHANNEL, OTHER_CHANNEL):
            active = await services.matches.start_computer_match(GUILD, channel, ALICE, COMPUTER)
            await services.games.play(channel, ALICE, "d1-c1")
            await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
            if channel == CHANNEL:
                await services.takebacks.ask(channel, ALICE)  # her move and the reply
            ids.append(active.set_id)
        await back_to_schema(
            services.database,
            29,
            # schema 44's first (its moves trigger reads sets.undone, schema 30's), then 43's
            *SCHEMA_49_UNDONE,
            *SCHEMA_47_UNDONE,
            *SCHEMA_45_UNDONE,
            *schema_44_undone(services.database.dialect),
            *schema_43_undone(services.database.dialect),
            "ALTER TABLE sets DROP COLUMN undone",
            "DROP INDEX sets_in_progress",  # schema 31's
            "DROP TABLE daily_stops",  # schema 32's
            "ALTER TABLE announcements DROP COLUMN late_cause",  # schema 33's
            "DROP TABLE takeback_answers_owed",
            "DROP TABLE player_holds_given",  # schema 34's
            "CREATE INDEX rating_history_by_player ON rating_history "  # dropped by schema 35
            "(guild_id, user_id, history_id)",
            "DROP TABLE player_holds",  # schema 36's
            "DROP TABLE match_lines_owed",  # schema 37's
            "DROP INDEX challenges_by_match",  # schema 40's
            "DROP INDEX IF EXISTS puzzle_attempts_by_solver",  # schema 42's (SQLite only)
        )
    finally:
        await services.close()
    services = await Services.open(database, clock=clock)
    try:
        async with services.database.snapshot() as db:
            rows = [await sets.by_id(db, set_id) for set_id in ids]
        assert [(row.ply, row.undone) for row in rows if row] == [(0, 2), (2, 0)]
    finally:
        await services.close()


async def test_which_of_many_threads_have_games_is_one_answer(
    database: str, clock: FakeClock
) -> None:
    """Of a server's locked threads (more than one statement asks about), those with a game in
    progress are told apart, with their server; a finished game's thread is not among them."""
    opened = await Services.open(database, clock=clock)
    try:
        await opened.settings.change(GUILD, threads=True)
        challenge = await opened.challenges.create(GUILD, OTHER_CHANNEL, CAROL, BOB)
        await opened.challenges.set_message(challenge.challenge_id, 5_000)
        await opened.challenges.accept(challenge.challenge_id, BOB, thread_id=77)
        ended = await opened.challenges.create(GUILD, OTHER_CHANNEL, ALICE, BOB, sets_total=1)
        await opened.challenges.set_message(ended.challenge_id, 5_001)
        await opened.challenges.accept(ended.challenge_id, BOB, thread_id=78)
        await opened.games.resign(78, ALICE)
        threads = [*range(1_000, 1_000 + sets.CHANNELS_READ), 78, 77]
        assert await opened.games.guilds_in_play(threads) == {77: GUILD}
        assert await opened.games.guilds_in_play([]) == {}
    finally:
        await opened.close()


async def test_a_turn_begins_at_the_last_move_or_the_takeback_not_the_deadline(
    database: str, clock: FakeClock
) -> None:
    """When the player to move's turn began: the set's start before any move, then the last
    move — not its deadline less the time per move, which time given back makes later — and
    after a takeback, the takeback."""
    opened = await Services.open(database, clock=clock)
    try:
        active = await opened.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
        assert await opened.games.turn_began(active.set_id) == clock.now
        clock.advance(timedelta(hours=1))
        await opened.games.play(CHANNEL, ALICE, "d1-c1")
        await opened.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        moved = clock.now
        clock.advance(timedelta(hours=2))
        await opened.clocks.give_back_outage(clock.now - timedelta(hours=1))
        given = await opened.games.in_channel(CHANNEL)
        assert given is not None
        assert given.deadline - given.time_per_move == moved + timedelta(hours=1)
        assert await opened.games.turn_began(active.set_id) == moved
        clock.advance(timedelta(hours=1))
        await opened.takebacks.ask(CHANNEL, ALICE)
        assert await opened.games.turn_began(active.set_id) == clock.now
        assert await opened.games.turn_began(10**12) is None
    finally:
        await opened.close()


async def test_a_match_line_owed_is_due_until_shown_and_a_rematch_supersedes_it(
    database: str, clock: FakeClock
) -> None:
    """The line of a match Discord would not edit at its end is owed at once, paused after a
    failed try, and owed no more once shown; a rematch against the computer that took the
    same line over since makes it read as superseded (in the list, and read again alone)."""
    services = await Services.open(database, clock=clock)
    try:
        thread, line = OTHER_CHANNEL + 1, 777
        first = await services.matches.start_computer_match(
            GUILD,
            thread,
            ALICE,
            COMPUTER,
            sets_total=1,
            parent_channel_id=CHANNEL,
            line_message_id=line,
        )
        await services.games.resign(thread, ALICE)
        announcements = services.announcements
        await announcements.line_owed(first.set_id)
        await announcements.line_owed(first.set_id)  # owed once
        [owed] = await announcements.lines_due()
        assert (owed.set_id, owed.guild_id, owed.superseded) == (first.set_id, GUILD, False)
        assert not await announcements.line_superseded(owed)
        await announcements.line_failed(owed)
        assert await announcements.lines_due() == []  # paused
        clock.advance(timedelta(seconds=5))
        [owed] = await announcements.lines_due()
        await announcements.line_shown(owed)
        assert await announcements.lines_due() == []
        await announcements.line_owed(first.set_id)
        await services.matches.start_computer_match(
            GUILD,
            thread,
            ALICE,
            COMPUTER,
            sets_total=1,
            parent_channel_id=CHANNEL,
            line_message_id=line,
        )
        [owed] = await announcements.lines_due()
        assert owed.superseded
        assert await announcements.line_superseded(owed)  # read again before an edit
    finally:
        await services.close()


async def test_every_board_owed_has_its_own_nonce_on_a_clock_standing_still(
    database: str, clock: FakeClock
) -> None:
    """Boards owed anew at a ply at the very instant of the one before (a takeback back to it,
    a move back to it, the set's end on it, an abort before any move) each get a nonce of
    their own, at most 25 characters, the one the outbox reads with the row and the one the
    move or takeback returns, read as it owed the board (PostgreSQL's move statement returns
    it, SQLite reads it after the move); the first board keeps the nonce it had before schema
    43."""
    services = await Services.open(database, clock=clock)
    try:
        nonces: list[str] = []

        async def owed_now(
            set_id: int, ply: int, made: MoveResult | Takeback | ActiveGame | None = None
        ) -> None:
            nonce = await services.announcements.nonce(set_id, ply)
            if made is not None:  # the move's or takeback's own, read as it owed the board
                game = made.game if isinstance(made, MoveResult) else made
                assert isinstance(game, ActiveGame), made
                assert game.owed is not None, made
                assert game.owed.nonce == nonce
            async with services.database.snapshot() as db:  # as the outbox reads it when due
                due = await announcements.due(db, to_us(clock.now) + GRACE_US, 100)
            [row] = [r for r in due if (r.set_id, r.ply) == (set_id, ply)]
            assert row.nonce == nonce  # the outbox posts it under the flow's nonce
            nonces.append(nonce)

        active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
        set_id = active.set_id
        await owed_now(set_id, 0)
        assert nonces[0] == f"{set_id}.0.{to_us(clock.now) % 10**9}"
        for _ in range(2):
            moved = await services.games.play(CHANNEL, ALICE, "d1-c1")
            await owed_now(set_id, 1, moved)
            replied = await services.games.play_computer_move(set_id, "c4-c2", expected_ply=1)
            await owed_now(set_id, 2, replied)
            taken = await services.takebacks.ask(CHANNEL, ALICE)  # her move and the reply
            await owed_now(set_id, 0, taken)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await services.games.play_computer_move(set_id, "c4-c2", expected_ply=1)
        await services.games.resign(CHANNEL, ALICE)
        await owed_now(set_id, 2)
        aborted = await services.matches.start_computer_match(GUILD, OTHER_CHANNEL, ALICE, COMPUTER)
        await services.games.abort(OTHER_CHANNEL)
        await owed_now(aborted.set_id, 0)
        assert len(set(nonces)) == len(nonces) == 9, nonces
        assert max(len(nonce) for nonce in nonces) <= 25
    finally:
        await services.close()


async def test_schema_43_keeps_the_nonce_of_a_board_owed_before_it(
    database: str, clock: FakeClock
) -> None:
    """A board owed before schema 43 keeps its nonce across the upgrade (a post of it under way
    while the bot was upgraded is returned, not made twice); one owed anew at that ply after it,
    at the same instant, gets its own."""
    services = await Services.open(database, clock=clock)
    try:
        active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        before = await services.announcements.nonce(active.set_id, 2)
        dialect = services.database.dialect
        await back_to_schema(
            services.database,
            42,
            *SCHEMA_49_UNDONE,
            *SCHEMA_47_UNDONE,
            *SCHEMA_45_UNDONE,
            *schema_44_undone(dialect),
            *schema_43_undone(dialect),
        )
    finally:
        await services.close()
    services = await Services.open(database, clock=clock)
    try:
        assert await services.announcements.nonce(active.set_id, 2) == before
        await services.takebacks.ask(CHANNEL, ALICE)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        assert await services.announcements.nonce(active.set_id, 2) != before
    finally:
        await services.close()


async def test_a_board_owed_anew_at_the_instant_of_the_one_posted_stays_owed(
    database: str, clock: FakeClock
) -> None:
    """The outbox read the first board, and a takeback back to ply 0 owed another there at the
    same instant (a clock standing still) while it posted it: the first one's post, failure or
    rate limit leaves the new board owed as it was (before, marked out with the first)."""
    services = await Services.open(database, clock=clock)
    try:
        active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)

        async def owed_at_0() -> list[AnnouncementRow]:
            async with services.database.snapshot() as db:  # as the outbox reads it when due
                due = await announcements.due(db, to_us(clock.now) + GRACE_US, 100)
            return [row for row in due if (row.set_id, row.ply) == (active.set_id, 0)]

        [first] = await owed_at_0()
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        await services.takebacks.ask(CHANNEL, ALICE)  # back to ply 0, at the same instant
        [anew] = await owed_at_0()
        assert anew != first
        await services.announcements.failed(first, refused=True)
        await services.announcements.held_back(first, clock.now + timedelta(hours=1))
        await services.announcements.posted(first, 123)
        assert await owed_at_0() == [anew]
    finally:
        await services.close()


async def test_schema_44_reads_a_takebacks_board_owed_before_it_as_it_was(
    database: str, clock: FakeClock
) -> None:
    """A board a takeback owed before schema 44 is still read as the takeback's, with the move
    taken back counted, and the board owed before it at the next ply counts none."""
    services = await Services.open(database, clock=clock)
    try:
        active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        clock.advance(timedelta(seconds=1))
        await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        clock.advance(timedelta(seconds=1))
        await services.takebacks.ask(CHANNEL, ALICE)  # back to ply 0
        await back_to_schema(
            services.database,
            43,
            *SCHEMA_49_UNDONE,
            *SCHEMA_47_UNDONE,
            *SCHEMA_45_UNDONE,
            *schema_44_undone(services.database.dialect),
        )
    finally:
        await services.close()
    services = await Services.open(database, clock=clock)
    try:
        async with services.database.snapshot() as db:
            due = await announcements.due(db, to_us(clock.now) + GRACE_US, 100)
        owed = {row.ply: (row.taken_back, row.undone) for row in due}
        assert owed == {0: (True, 2), 1: (False, 0), 2: (False, 0)}
    finally:
        await services.close()
