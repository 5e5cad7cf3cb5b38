"""Glicko-2 ratings: Glickman's worked example and the shape of a single game's update."""

from __future__ import annotations

import pytest

from bot.ratings import Rating, rate_game, update


def test_glickman_worked_example() -> None:
    """The paper's example (1500/200 beats 1400/30, loses to 1550/100 and 1700/300)."""
    after = update(
        Rating(1500, 200, 0.06),
        [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
        tau=0.5,
    )
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_winner_gains_what_loser_loses_between_equals() -> None:
    """Two new players: the winner goes up, the loser down, by the same amount."""
    winner, loser = rate_game(Rating(), Rating(), 1.0)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)


def test_draw_between_equals_changes_no_rating() -> None:
    """A draw between equal players leaves both ratings at 1500."""
    first, second = rate_game(Rating(), Rating(), 0.5)
    assert first.rating == pytest.approx(1500)
    assert second.rating == pytest.approx(1500)


def test_beating_a_stronger_player_gains_more() -> None:
    """An upset moves the rating further than beating an equal."""
    upset, _ = rate_game(Rating(1500, 100), Rating(1900, 100), 1.0)
    expected, _ = rate_game(Rating(1500, 100), Rating(1500, 100), 1.0)
    assert upset.rating - 1500 > expected.rating - 1500


def test_deviation_shrinks_with_games_but_not_below_lichess_floor() -> None:
    """Each game makes the rating surer; the deviation stays at or above 45."""
    player, opponent = Rating(), Rating()
    deviations = []
    for _ in range(200):
        player, opponent = rate_game(player, opponent, 0.5)
        deviations.append(player.deviation)
    assert deviations[0] < 350
    assert deviations[-1] < 100
    assert min(deviations) >= 45


def test_no_games_only_widens_deviation() -> None:
    """A period without games keeps the rating and widens the deviation."""
    after = update(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert after.deviation > 100
