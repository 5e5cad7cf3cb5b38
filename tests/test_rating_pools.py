"""Ratings per ruleset: separate pools, unrated no-show sets, and the migration that splits them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.ratings import Rating, rate_game
from bot.services import Services
from bot.storage import Database
from tests.conftest import ALICE, BOB, CHANNEL, GUILD, OTHER_CHANNEL, FakeClock
from tests.test_services_match import resign_after


async def start(services: Services, channel: int, ruleset: str, sets: int = 1) -> None:
    """Alice challenges Bob to a match of ``ruleset`` (one set) in ``channel``; Bob accepts."""
    await services.players.remember(ALICE, "Alice")
    await services.players.remember(BOB, "Bob")
    challenge = await services.challenges.create(
        GUILD, channel, ALICE, BOB, sets_total=sets, ruleset=ruleset
    )
    await services.challenges.accept(challenge.challenge_id, BOB)


async def test_each_ruleset_has_its_own_pool(services: Services) -> None:
    """An 11x11 set moves only the 11x11 ratings; Brandubh's stay as they were."""
    await start(services, CHANNEL, "brandubh")
    await resign_after(services, CHANNEL, 2, BOB)
    before = await services.standings.leaderboard(GUILD, ruleset="brandubh")
    await start(services, OTHER_CHANNEL, "hnefatafl")
    await resign_after(services, OTHER_CHANNEL, 2, ALICE)
    after = await services.standings.leaderboard(GUILD, ruleset="brandubh")
    assert after == before
    eleven = await services.standings.leaderboard(GUILD, ruleset="hnefatafl")
    assert [row.user_id for row in eleven.rows] == [BOB, ALICE]
    assert eleven.rows[0].games == 1
    stats = await services.standings.player_stats(GUILD, ALICE, ruleset="hnefatafl")
    assert stats.standing is not None
    assert stats.standing.losses == 1


async def test_a_set_lost_without_moving_is_unrated(services: Services) -> None:
    """Bob resigns before his first move: the set is recorded, shown aborted, and unrated."""
    await start(services, CHANNEL, "brandubh")
    set_end = await resign_after(services, CHANNEL, 1, BOB)
    assert set_end.winner_id == ALICE
    assert set_end.rating_changes == ()
    assert (await services.standings.leaderboard(GUILD)).total == 0
    stats = await services.standings.player_stats(GUILD, BOB)
    [game] = stats.recent_games
    assert game.no_show
    assert not game.rated


async def test_a_match_of_no_show_sets_is_won_by_nobody_in_the_head_to_head(
    services: Services,
) -> None:
    """Bob never moves in either set of a match: alice wins it (docs/rules.md §11), but like the
    leaderboard the head to head counts it as won by nobody, and its sets as played by nobody
    (the sets line agrees with the matches line); a match with a rated set counts both."""
    await start(services, CHANNEL, "brandubh", sets=2)
    await resign_after(services, CHANNEL, 1, BOB)  # set 1: alice moved, bob never did
    end = await resign_after(services, CHANNEL, 0, BOB)  # set 2: bob attacks, never moves
    assert end.match_end is not None
    assert end.match_end.winner_id == ALICE
    assert (await services.standings.leaderboard(GUILD)).total == 0
    versus = await services.standings.head_to_head(GUILD, ALICE, BOB)
    assert (versus.games, versus.wins, versus.draws, versus.matches) == (0, (0, 0), 0, 1)
    assert versus.matches_won == (0, 0)
    await start(services, CHANNEL, "brandubh")
    await resign_after(services, CHANNEL, 2, BOB)
    [top, _] = (await services.standings.leaderboard(GUILD)).rows
    assert (top.user_id, top.matches_won) == (ALICE, 1)
    versus = await services.standings.head_to_head(GUILD, BOB, ALICE)
    assert (versus.games, versus.wins, versus.matches, versus.matches_won) == (1, (0, 1), 2, (0, 1))


async def test_a_set_lost_after_moving_is_rated(services: Services) -> None:
    """Bob moved once, then resigned: that is a real result, and it is rated."""
    await start(services, CHANNEL, "brandubh")
    set_end = await resign_after(services, CHANNEL, 2, BOB)
    assert {change.user_id for change in set_end.rating_changes} == {ALICE, BOB}


async def test_migration_rebuilds_each_pool_from_its_own_sets(
    db_path: Path, clock: FakeClock
) -> None:
    """A schema-5 file with one shared pool: after the upgrade each pool holds its own sets only,
    rated as if they had been rated in that pool from the start; a no-show set is unrated."""
    old = await Database.open(db_path, target_version=5)
    await old.close()
    with sqlite3.connect(db_path) as raw:
        raw.execute("INSERT INTO players VALUES (?, 'Alice', 0), (?, 'Bob', 0)", (ALICE, BOB))
        for match_id, ruleset, winner, side, ply in (
            (1, "hnefatafl", BOB, "defenders", 30),  # an 11x11 set bob won
            (2, "brandubh", ALICE, "attackers", 20),  # a Brandubh set alice won
            (3, "brandubh", ALICE, "attackers", 1),  # bob never moved: lost on time
        ):
            raw.execute(
                "INSERT INTO matches (match_id, guild_id, channel_id, player1_id, player2_id, "
                "player1_side, ruleset, sets_total, time_per_move_us, rated, status, winner_id, "
                "started_us, finished_us) VALUES (?, ?, ?, ?, ?, 'attackers', ?, 1, 1000, 1, "
                "'finished', ?, 0, ?)",
                (match_id, GUILD, CHANNEL, ALICE, BOB, ruleset, winner, match_id),
            )
            raw.execute(
                "INSERT INTO games (game_id, match_id, set_number, guild_id, channel_id, ruleset, "
                "attacker_id, defender_id, status, ply, to_move_id, winner_side, winner_id, "
                "reason, started_us, finished_us, deadline_us, reminder_us) VALUES "
                "(?, ?, 1, ?, ?, ?, ?, ?, 'finished', ?, ?, ?, ?, ?, 0, ?, 0, 0)",
                (
                    match_id,
                    match_id,
                    GUILD,
                    CHANNEL,
                    ruleset,
                    ALICE,
                    BOB,
                    ply,
                    ALICE,
                    side,
                    winner,
                    "timeout" if ply == 1 else "king_captured",
                    match_id,
                ),
            )
        # The old shared pool: the 11x11 loss had dragged alice down before her Brandubh win.
        raw.execute(
            "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, "
            "updated_us) VALUES (?, ?, 1400, 300, 0.06, 3, 0), (?, ?, 1600, 300, 0.06, 3, 0)",
            (GUILD, ALICE, GUILD, BOB),
        )
    services = await Services.open(db_path, clock=clock)
    try:
        brandubh = await services.standings.leaderboard(GUILD, ruleset="brandubh")
        eleven = await services.standings.leaderboard(GUILD, ruleset="hnefatafl")
        stats = await services.standings.player_stats(GUILD, BOB)
    finally:
        await services.close()
    won, lost = rate_game(Rating(), Rating(), 1.0)
    assert [(r.user_id, round(r.rating, 6), r.games) for r in brandubh.rows] == [
        (ALICE, round(won.rating, 6), 1),
        (BOB, round(lost.rating, 6), 1),
    ]
    # The no-show match counts for nobody: alice has one Brandubh match won, not two.
    assert [(r.user_id, r.matches_won) for r in brandubh.rows] == [(ALICE, 1), (BOB, 0)]
    assert [r.user_id for r in eleven.rows] == [BOB, ALICE]
    assert round(eleven.rows[0].rating, 6) == round(won.rating, 6)
    assert [g.no_show for g in stats.recent_games] == [True, False, False]
