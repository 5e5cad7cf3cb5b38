"""The leaderboard's order on both backends: established ratings first, provisional ones after,
equal ratings sharing a rank, the rank /stats shows agreeing with it, and a page read through
the index."""

from __future__ import annotations

from itertools import pairwise

from bot.ratings import PROVISIONAL_DEVIATION
from bot.services.domain import StandingKey
from bot.services.standings import StandingsService
from bot.storage import Connection, Database, Dialect, players, ratings
from bot.views.leaderboard import rating_text
from tests.conftest import ALICE, BOB, CAROL, GUILD, FakeClock

DAN = 14


async def rated(
    db: Connection, user_id: int, rating: float, deviation: float, guild_id: int = GUILD
) -> None:
    """A brandubh rating row for ``user_id``."""
    await db.execute(
        "INSERT INTO ratings (guild_id, ruleset, user_id, rating, deviation, volatility, games, "
        "wins, updated_us) VALUES (?, 'brandubh', ?, ?, ?, 0.06, 1, 1, 0)",
        (guild_id, user_id, rating, deviation),
    )


async def test_provisional_ratings_rank_after_established_ones(
    database: str, clock: FakeClock
) -> None:
    """dan won one game (1662?, provisional) and outrates everyone: he is listed, and ranked by
    /stats, after alice (1600), bob (1550) and carol (1550, deviation exactly at the line: as
    established as bob, and as high, so both are second)."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"), (DAN, "dan")):
                await players.upsert(connection, user, name, clock())
            await rated(connection, ALICE, 1600.0, 60.0)
            await rated(connection, BOB, 1550.0, 80.0)
            await rated(connection, CAROL, 1550.0, PROVISIONAL_DEVIATION)
            await rated(connection, DAN, 1662.0, 290.0)
        async with db.snapshot() as connection:
            total, rows = await ratings.leaderboard(connection, GUILD, "brandubh", 0, 10)
            assert total == 4
            order = [row.user_id for row in rows]
            assert order == [ALICE, BOB, CAROL, DAN]
            for rank, user in zip((1, 2, 2, 4), order, strict=True):
                found = await ratings.standing(connection, GUILD, "brandubh", user)
                assert found is not None
                assert found[0] == rank, (user, found[0], rank)
            _, second_page = await ratings.leaderboard(connection, GUILD, "brandubh", 3, 10)
            assert [row.user_id for row in second_page] == [DAN]
    finally:
        await db.close()


async def test_players_with_the_same_rating_share_a_rank_on_every_page(
    database: str, clock: FakeClock
) -> None:
    """Two pairs who each played one game alike: the winners both 1662?, the losers both 1338?.
    Below an established 1400 (first), each pair shares a rank (2, 2, 4, 4), on the leaderboard
    however it is paged (a page may begin inside a tie) and in /stats."""
    db = await Database.open(database)
    try:
        winners, losers, settled = (ALICE, BOB), (CAROL, DAN), 15
        async with db.transaction() as connection:
            for user in (*winners, *losers, settled):
                await players.upsert(connection, user, f"p{user}", clock())
                rating, deviation = (
                    (1662.3108925690603, 290.31896252204893)
                    if user in winners
                    else (1337.6891074309397, 290.31896252204893)
                    if user in losers
                    else (1400.0, 60.0)
                )
                await rated(connection, user, rating, deviation)
        standings = StandingsService(db)
        expected = [(settled, 1), (ALICE, 2), (BOB, 2), (CAROL, 4), (DAN, 4)]
        for size in (1, 2, 3, 10):
            shown = []
            for offset in range(0, 5, size):
                page = await standings.leaderboard(GUILD, offset, size)
                shown += [(row.user_id, row.rank) for row in page.rows]
            assert shown == expected, size
        for user, rank in expected:
            stats = await standings.player_stats(GUILD, user)
            assert stats.standing is not None
            assert stats.standing.rank == rank, user
    finally:
        await db.close()


async def test_ratings_shown_alike_share_a_rank(database: str, clock: FakeClock) -> None:
    """Ties are judged on the ratings as shown: 1600.2, 1599.6 and 1599.5 all read 1600 and
    share rank 1, 1599.4 reads 1599 (4th) and 1598.5 reads 1598 (5th), on the leaderboard
    however it is paged and in /stats; a provisional 1600? is ranked after them all."""
    db = await Database.open(database)
    try:
        erin, frank, gus = 16, 17, 18
        players_ = {
            ALICE: (1600.2, 60.0),
            BOB: (1599.6, 60.0),
            erin: (1599.5, 60.0),
            CAROL: (1599.4, 60.0),
            frank: (1598.5, 60.0),
            gus: (1600.0, 290.0),
        }
        async with db.transaction() as connection:
            for user, (rating, deviation) in players_.items():
                await players.upsert(connection, user, f"p{user}", clock())
                await rated(connection, user, rating, deviation)
        standings = StandingsService(db)
        expected = [
            (ALICE, 1, "1600"),
            (BOB, 1, "1600"),
            (erin, 1, "1600"),
            (CAROL, 4, "1599"),
            (frank, 5, "1598"),
            (gus, 6, "1600?"),
        ]
        for size in (1, 2, 4, 10):
            shown = []
            for offset in range(0, 6, size):
                page = await standings.leaderboard(GUILD, offset, size)
                shown += [
                    (row.user_id, row.rank, rating_text(row.rating, row.deviation))
                    for row in page.rows
                ]
            assert shown == expected, size
        for user, rank, _text in expected:
            stats = await standings.player_stats(GUILD, user)
            assert stats.standing is not None
            assert stats.standing.rank == rank, user
    finally:
        await db.close()


async def test_a_leaderboard_page_is_read_in_order_from_the_index(
    database: str, clock: FakeClock
) -> None:
    """With thousands of players in many servers, a page is read in the index's order (no sort
    of the server's players, no scan of the table), from an offset as after or before a key."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            for user in range(1, 401):
                await players.upsert(connection, user, f"p{user}", clock())
            await connection.execute_many(
                "INSERT INTO ratings (guild_id, ruleset, user_id, rating, deviation, volatility, "
                "updated_us) VALUES (?, 'brandubh', ?, ?, ?, 0.06, 0)",
                [
                    (GUILD + n % 20, 1 + n // 20, 1200.0 + n % 617, 50.0 + n % 300)
                    for n in range(8000)
                ],
            )
            await connection.execute("ANALYZE")
        key = (
            0,
            0,
            1500.0,
            1500.0,
            200,
        )  # established, 1500, user 200: provisional and rating twice
        queries = (
            (ratings.LEADERBOARD_PAGE, (GUILD, "brandubh", 10, 0)),
            (ratings.LEADERBOARD_AFTER, (GUILD, "brandubh", *key, 10)),
            (ratings.LEADERBOARD_BEFORE, (GUILD, "brandubh", *key, 10)),
        )
        async with db.snapshot() as connection:
            for query, params in queries:
                if connection.dialect is Dialect.SQLITE:
                    plan = await connection.fetch_all(f"EXPLAIN QUERY PLAN {query}", params)
                    lines = "\n".join(str(row[3]) for row in plan)
                    assert "USING INDEX ratings_standing" in lines, lines
                    assert "TEMP B-TREE" not in lines, lines
                else:
                    plan = await connection.fetch_all(f"EXPLAIN {query}", params)
                    lines = "\n".join(str(row[0]) for row in plan)
                    assert "ratings_standing" in lines, lines
                    assert "Seq Scan on ratings" not in lines, lines
    finally:
        await db.close()


async def test_a_page_without_the_asker_carries_their_line_ranked_as_stats_ranks_them(
    database: str, clock: FakeClock
) -> None:
    """dan (provisional) asks for page 1 of size 2: alice and bob are on it, and dan's line
    with his rank, 4 (carol and bob share 2); on page 2, where he is listed, no line is added;
    carol, who has no rating in hnefatafl, has no line there."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"), (DAN, "dan")):
                await players.upsert(connection, user, name, clock())
            await rated(connection, ALICE, 1600.0, 60.0)
            await rated(connection, BOB, 1550.0, 80.0)
            await rated(connection, CAROL, 1550.3, 80.0)
            await rated(connection, DAN, 1662.0, 290.0)
        standings = StandingsService(db)
        first = await standings.leaderboard(GUILD, 0, 2, viewer_id=DAN)
        assert [row.user_id for row in first.rows] == [ALICE, CAROL]
        assert first.viewer is not None
        assert (first.viewer.user_id, first.viewer.rank, first.viewer.display_name) == (
            DAN,
            4,
            "dan",
        )
        second = await standings.leaderboard(GUILD, 2, 2, viewer_id=DAN)
        assert [row.user_id for row in second.rows] == [BOB, DAN]
        assert second.viewer is None
        other = await standings.leaderboard(GUILD, 0, 2, ruleset="hnefatafl", viewer_id=CAROL)
        assert other.viewer is None
    finally:
        await db.close()


async def test_pages_turned_by_keys_list_everyone_once_ranked_as_by_offset(
    database: str, clock: FakeClock
) -> None:
    """Next from each page's last row, and Previous back from each page's first, list the
    players of shared ranks and of both groups (established, provisional) once each, in
    order, ranked as pages read by offset rank them."""
    db = await Database.open(database)
    try:
        ratings_ = {
            100 + n: (1500.0 + (n * 7 % 5) * 0.3 + (n % 3), 60.0 if n % 4 else 290.0)
            for n in range(13)
        }
        async with db.transaction() as connection:
            for user, (rating, deviation) in ratings_.items():
                await players.upsert(connection, user, f"p{user}", clock())
                await rated(connection, user, rating, deviation)
        standings = StandingsService(db)
        everyone = await standings.leaderboard(GUILD, 0, 13)
        expected = [(row.user_id, row.rank) for row in everyone.rows]
        assert len({rank for _, rank in expected}) < 13  # some share a rank
        for size in (1, 2, 3, 5):
            page = await standings.leaderboard(GUILD, 0, size)
            forward = [(row.user_id, row.rank) for row in page.rows]
            pages = [page]
            while page.offset + len(page.rows) < page.total:
                page = await standings.leaderboard(
                    GUILD, limit=size, after=StandingKey.of(page.rows[-1])
                )
                assert page.offset == len(forward), size
                forward += [(row.user_id, row.rank) for row in page.rows]
                pages.append(page)
            assert forward == expected, size
            for earlier, later in pairwise(pages):
                back = await standings.leaderboard(
                    GUILD, limit=size, before=StandingKey.of(later.rows[0])
                )
                assert back == earlier, size
    finally:
        await db.close()


async def test_a_page_turned_after_a_rating_changed_starts_after_the_last_row_shown(
    database: str, clock: FakeClock
) -> None:
    """Ten players, pages of four: the third listed drops to last between two presses; Next
    lists the fifth to eighth as first shown (none skipped), ranked as they now are (4 to 7),
    and Previous from there, where only three are left before the fifth, the whole first page
    as it now is: first, second, fourth and fifth, ranked 1 to 4 (before: a short page of the
    three, after which Next showed the fifth again)."""
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            for n in range(10):
                await players.upsert(connection, 100 + n, f"p{n}", clock())
                await rated(connection, 100 + n, 1600.0 - 10 * n, 60.0)
        standings = StandingsService(db)
        first = await standings.leaderboard(GUILD, 0, 4)
        assert [row.user_id for row in first.rows] == [100, 101, 102, 103]
        async with db.transaction() as connection:
            await connection.execute(
                "UPDATE ratings SET rating = 1000.0 WHERE guild_id = ? AND user_id = 102",
                (GUILD,),
            )
        second = await standings.leaderboard(GUILD, limit=4, after=StandingKey.of(first.rows[-1]))
        assert [(row.user_id, row.rank) for row in second.rows] == [
            (104, 4),
            (105, 5),
            (106, 6),
            (107, 7),
        ]
        assert second.offset == 3
        back = await standings.leaderboard(GUILD, limit=4, before=StandingKey.of(second.rows[0]))
        assert [(row.user_id, row.rank) for row in back.rows] == [
            (100, 1),
            (101, 2),
            (103, 3),
            (104, 4),
        ]
        assert back.offset == 0
        onward = await standings.leaderboard(GUILD, limit=4, after=StandingKey.of(back.rows[-1]))
        assert [row.user_id for row in onward.rows] == [105, 106, 107, 108]
    finally:
        await db.close()
