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
    after = update(Rating(1600, 100, 0.2), [])
    assert after.rating == 1600
    assert after.deviation == pytest.approx(105.8636621390, rel=1e-9)
    assert after.volatility == 0.2


# Glicko-2 step 5, the new volatility, checked where it moves. The expected figures are this
# implementation's, cross-checked to 1e-7 against a plain bisection of the paper's f(x) = 0;
# they are pinned to 1e-9 so that a slip in the Illinois iteration shows.


def test_surprising_losses_raise_the_volatility() -> None:
    """Five losses to a much weaker player: the volatility rises (the paper's first bracket,
    Δ² > φ² + v), the rating falls and the deviation widens."""
    after = update(Rating(1500, 45, 0.2), [(Rating(1100, 30), 0.0)] * 5, tau=0.75)
    assert after.volatility == pytest.approx(0.22855605310, rel=1e-9)
    assert after.rating == pytest.approx(1410.6812, abs=1e-4)
    assert after.deviation == pytest.approx(58.5855, abs=1e-4)


def test_results_as_expected_lower_the_volatility() -> None:
    """Ten draws with an equal: a steady player's volatility falls (the second bracket)."""
    after = update(Rating(1500, 45, 0.5), [(Rating(1500, 45), 0.5)] * 10, tau=2.0)
    assert after.volatility == pytest.approx(0.39171891040, rel=1e-9)
    assert after.rating == pytest.approx(1500)
    assert after.deviation == pytest.approx(65.7332, abs=1e-3)


def test_a_high_volatility_settles_after_steady_results() -> None:
    """A very volatile rating (0.9) drops towards the others' after twenty draws."""
    after = update(Rating(1500, 45, 0.9), [(Rating(1500, 45), 0.5)] * 20, tau=3.0)
    assert after.volatility == pytest.approx(0.39534045315, rel=1e-9)
    assert after.deviation == pytest.approx(56.7317, abs=1e-4)


def test_an_extreme_volatility_widens_the_search_for_its_root() -> None:
    """Volatility 3 after fifty draws: the paper's lower bracket a - k·tau needs k = 2."""
    after = update(Rating(1500, 45, 3.0), [(Rating(1500, 45), 0.5)] * 50, tau=2.5)
    assert after.volatility == pytest.approx(0.82993508097, rel=1e-9)
    assert after.deviation == pytest.approx(47.1525514802, rel=1e-9)


def test_tau_limits_how_far_the_volatility_moves() -> None:
    """The same surprising losses move a small tau's volatility less than a large tau's."""
    losses = [(Rating(1100, 30), 0.0)] * 5
    small = update(Rating(1500, 45, 0.2), losses, tau=0.3)
    large = update(Rating(1500, 45, 0.2), losses, tau=0.75)
    assert 0.2 < small.volatility < large.volatility


def test_the_deviation_is_clamped_only_when_asked() -> None:
    """lichess's range 45-350 applies with clamp=True; the plain update leaves it alone."""
    settled = Rating(1500, 40, 0.1)
    assert update(settled, [(Rating(1500, 40), 0.5)] * 5).deviation < 45
    clamped = update(settled, [(Rating(1500, 40), 0.5)] * 5, clamp=True)
    assert clamped.deviation == 45
    assert clamped.volatility == pytest.approx(0.1, abs=1e-3)
    assert update(Rating(1500, 350, 0.3), [], clamp=True).deviation == 350
    assert update(Rating(1500, 350, 0.3), []).deviation > 350


def test_rate_game_keeps_both_deviations_in_lichess_range() -> None:
    """Two settled players (deviation 30) come out of a game at the floor of 45."""
    first, second = rate_game(Rating(1500, 30), Rating(1520, 30), 0.0)
    assert first.deviation == 45
    assert second.deviation == 45


def test_rate_game_scores_the_second_player_with_the_rest_of_the_point() -> None:
    """The second player gets 1 - first_score: a loss for them when the first won."""
    first, second = rate_game(Rating(1600, 80), Rating(1500, 120), 1.0)
    assert first == update(Rating(1600, 80), [(Rating(1500, 120), 1.0)], clamp=True)
    assert second == update(Rating(1500, 120), [(Rating(1600, 80), 0.0)], clamp=True)
