"""/games reads a page of a server's games in progress in the order of an index, on both
backends: no sort of all of them at each read."""

from __future__ import annotations

from bot.storage import Database, Dialect, sets

GUILDS = 20
MATCHES = 150
"""Matches per server: the first set of each finished, the second in progress."""


async def test_a_games_page_is_read_in_order_from_the_index(database: str) -> None:
    """With thousands of sets in many servers, a /games page (ordered by match, a match's second
    set keeping its place) is read from the sets_in_progress index in its order, with no sort
    (before: the index was in the order of the sets, so every read sorted them)."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            await connection.execute_many(
                "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, 0)",
                [(1000 + n, f"p{n}") for n in range(41)],
            )
            matches = [
                (match_id, 1 + match_id % GUILDS, 5000 + match_id, 1000 + match_id % 40)
                for match_id in range(1, GUILDS * MATCHES + 1)
            ]
            await connection.execute_many(
                "INSERT INTO matches (match_id, guild_id, channel_id, player1_id, player2_id, "
                "player1_side, ruleset, sets_total, time_per_move_us, rated, started_us) "
                "VALUES (?, ?, ?, ?, 1040, 'attackers', 'brandubh', 2, 86400000000, 1, 0)",
                matches,
            )
            for set_number, status in ((1, "finished"), (2, "active")):
                await connection.execute_many(
                    "INSERT INTO sets (match_id, set_number, guild_id, channel_id, ruleset, "
                    "attacker_id, defender_id, to_move_id, started_us, deadline_us, "
                    f"reminder_us, status) VALUES (?, {set_number}, ?, ?, 'brandubh', ?, 1040, "
                    f"?, 0, 0, 0, '{status}')",
                    [(m, g, c, p, p) for m, g, c, p in matches],
                )
            await connection.execute("ANALYZE")
        async with db.snapshot() as connection:
            query, params = sets.in_progress_page(3, None, 40, 10)
            if connection.dialect is Dialect.SQLITE:
                plan = await connection.fetch_all(f"EXPLAIN QUERY PLAN {query}", params)
                lines = "\n".join(str(row[3]) for row in plan)
                assert "USING INDEX sets_in_progress" in lines, lines
                assert "TEMP B-TREE" not in lines, lines
            else:
                plan = await connection.fetch_all(f"EXPLAIN {query}", params)
                lines = "\n".join(str(row[0]) for row in plan)
                assert "sets_in_progress" in lines, lines
                assert "Sort" not in lines, lines
            total, page = await sets.in_progress(connection, 3, None, 40, 10)
        assert total == MATCHES
        assert [row.match_id for row in page] == [2 + GUILDS * n for n in range(40, 50)]
    finally:
        await db.close()
