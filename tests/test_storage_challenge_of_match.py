"""The read of the challenge a match was accepted from uses an index on both backends."""

from __future__ import annotations

from bot.storage import Database, Dialect, challenges


async def test_a_matchs_challenge_is_read_through_an_index(database: str) -> None:
    """``of_match`` searches an index, where it read the whole table of challenges ever made
    (PostgreSQL told not to scan a table where an index would serve)."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            if connection.dialect is Dialect.SQLITE:
                plan = await connection.fetch_all(f"EXPLAIN QUERY PLAN {challenges.OF_MATCH}", (7,))
                lines = "\n".join(str(row[3]) for row in plan)
                assert "USING INDEX challenges_by_match" in lines, lines
            else:
                await connection.execute("SET LOCAL enable_seqscan = off")
                plan = await connection.fetch_all(f"EXPLAIN {challenges.OF_MATCH}", (7,))
                lines = "\n".join(str(row[0]) for row in plan)
                assert "challenges_by_match" in lines, lines
                assert "Seq Scan" not in lines, lines
    finally:
        await db.close()
