"""The puzzle leaderboard's SQL on both backends: who counts, in which order, and its index."""

from __future__ import annotations

from bot.storage import Connection, Database, Dialect, players, puzzles
from tests.conftest import ALICE, BOB, CAROL, GUILD, FakeClock

DAN, ERIN = 14, 15
OTHER_GUILD = GUILD + 1


async def finished(
    db: Connection,
    user_id: int,
    puzzle_id: str,
    status: str,
    at_us: int,
    guild_id: int = GUILD,
) -> None:
    """A first attempt of ``user_id`` at ``puzzle_id``, finished ``status`` at ``at_us``."""
    row = await puzzles.start(
        db, user_id=user_id, guild_id=guild_id, puzzle_id=puzzle_id, daily_day=None, now_us=at_us
    )
    assert await puzzles.advance(
        db,
        row.attempt_id,
        line_before=(),
        line=("a1-a2",),
        status=status,
        now_us=at_us,
        guild_id=guild_id,
    )


async def test_solvers_are_ranked_by_solved_then_rate_then_who_got_there_first(
    database: str, clock: FakeClock
) -> None:
    """alice 2 of 2, bob 2 of 3, carol 2 of 2 but later than alice, dan 0 of 1 (open ones and
    another server's do not count): alice, carol, bob, dan; erin, never named, has no name.
    Each is named as in this server: carol by her name here, alice by her account's name, as
    her name in another server is not shown here."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"), (DAN, "dan")):
                await players.upsert(connection, user, name, clock())
            await players.upsert_member(connection, GUILD, CAROL, "Caro here", clock())
            await players.upsert_member(connection, OTHER_GUILD, ALICE, "Ali elsewhere", clock())
            await finished(connection, ALICE, "p1", puzzles.SOLVED, 10)
            await finished(connection, ALICE, "p2", puzzles.SOLVED, 20)
            await finished(connection, BOB, "p1", puzzles.SOLVED, 5)
            await finished(connection, BOB, "p2", puzzles.FAILED, 6)
            await finished(connection, BOB, "p3", puzzles.SOLVED, 7)
            await finished(connection, CAROL, "p1", puzzles.SOLVED, 11)
            await finished(connection, CAROL, "p2", puzzles.SOLVED, 21)
            await finished(connection, CAROL, "p3", puzzles.SOLVED, 30, guild_id=OTHER_GUILD)
            await puzzles.start(
                connection, user_id=CAROL, guild_id=GUILD, puzzle_id="p4", daily_day=None, now_us=1
            )  # open: neither solved nor attempted yet
            await finished(connection, DAN, "p1", puzzles.FAILED, 3)
            await finished(connection, ERIN, "p1", puzzles.FAILED, 4)
        async with db.snapshot() as connection:
            total, rows = await puzzles.solvers_board(connection, GUILD, 0, 0, 10, ALICE)
            assert total == 5
            assert [(r.place, r.display_name, r.solved, r.attempted) for r in rows] == [
                (1, "alice", 2, 2),
                (2, "Caro here", 2, 2),
                (3, "bob", 2, 3),
                (4, "dan", 0, 1),
                (5, None, 0, 1),
            ]
            # Since 7: bob's first two, dan's and erin's are left out.
            total, rows = await puzzles.solvers_board(connection, GUILD, 7, 0, 10, ALICE)
            assert total == 3
            assert [(r.user_id, r.solved, r.attempted) for r in rows] == [
                (ALICE, 2, 2),
                (CAROL, 2, 2),
                (BOB, 1, 1),
            ]
            # A page of two, seen by dan: places 3 and 4 and dan's own (4) once.
            total, rows = await puzzles.solvers_board(connection, GUILD, 0, 2, 2, DAN)
            assert [r.place for r in rows] == [3, 4]
            # The first page, seen by erin: places 1 and 2 and erin's own, 5th.
            total, rows = await puzzles.solvers_board(connection, GUILD, 0, 0, 2, ERIN)
            assert [(r.place, r.user_id) for r in rows] == [(1, ALICE), (2, CAROL), (5, ERIN)]
    finally:
        await db.close()


async def test_the_solvers_query_reads_an_index_not_the_table(
    database: str, clock: FakeClock
) -> None:
    """With thousands of attempts in many servers, one server's board is read through an index:
    on SQLite from an index alone, for all time in player order (schema 42's index, no sort of
    the server's attempts to count them); on PostgreSQL never by reading the whole table, and
    the last days' through the index on (server, finished, player, status)."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            await connection.execute_many(
                "INSERT INTO puzzle_attempts (user_id, guild_id, puzzle_id, line, status, "
                "started_us, finished_us) VALUES (?, ?, ?, 'a1-a2', ?, ?, ?)",
                [
                    (
                        n % 97,
                        GUILD + n % 40,
                        f"p{n}",
                        status,
                        n,
                        None if status == puzzles.OPEN else n + 1,
                    )
                    for n in range(4000)
                    for status in (
                        puzzles.OPEN
                        if n % 11 == 0
                        else puzzles.SOLVED
                        if n % 3
                        else puzzles.FAILED,
                    )
                ],
            )
            await connection.execute("ANALYZE")
        async with db.snapshot() as connection:
            for since, index in ((0, ""), (3800, "puzzle_attempts_by_guild")):
                params = (GUILD, since, 0, 10, ALICE)
                if connection.dialect is Dialect.SQLITE:
                    plan = await connection.fetch_all(
                        f"EXPLAIN QUERY PLAN {puzzles.SOLVERS_BOARD}", params
                    )
                    lines = "\n".join(str(row[3]) for row in plan)
                    assert "USING COVERING INDEX puzzle_attempts_by_" in lines, lines
                    if not since:
                        assert "COVERING INDEX puzzle_attempts_by_solver" in lines, lines
                        assert "TEMP B-TREE FOR GROUP BY" not in lines, lines
                else:
                    plan = await connection.fetch_all(f"EXPLAIN {puzzles.SOLVERS_BOARD}", params)
                    lines = "\n".join(str(row[0]) for row in plan)
                    assert "Index Scan" in lines, lines
                    assert "Seq Scan on puzzle_attempts" not in lines, lines
                    assert index in lines, lines
    finally:
        await db.close()
