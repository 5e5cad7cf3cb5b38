"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013), as lichess uses them.

Every player starts at 1500 with deviation 350 and volatility 0.06. The bot rates each finished
game on its own (a rating period of one game), like lichess.

>>> player = Rating(1500, 200, 0.06)
>>> after = update(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                         (Rating(1700, 300), 0.0)], tau=0.5)
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's conversion factor between the Glicko scale and its internal scale."""
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.75
"""How much volatility may change per period (lichess uses 0.75)."""
PROVISIONAL_DEVIATION = 110.0
"""Above this deviation a rating is provisional: shown with a question mark and ranked after the
established ones, as lichess keeps provisional players off its leaderboards."""
MIN_DEVIATION = 45.0
MAX_DEVIATION = 350.0
"""lichess keeps deviations in this range."""
_EPSILON = 0.000001


def shown_rating(rating: float) -> int:
    """The whole number a rating is shown as (1662.31 is 1662): players with the same shown
    rating share a rank."""
    return round(rating)


def shown_above(shown: int) -> float:
    """The least rating shown above ``shown``: a rating at or above it reads ``shown + 1`` or
    more (``round`` takes a half to the even number, so 1599.5 reads 1600 but 1598.5 1598)."""
    half = shown + 0.5
    return half if shown_rating(half) > shown else math.nextafter(half, math.inf)


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the familiar Glicko scale."""

    rating: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY


WIN = 1.0
DRAW = 0.5
LOSS = 0.0


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(
    player: Rating,
    results: Sequence[tuple[Rating, float]],
    *,
    tau: float = TAU,
    clamp: bool = False,
) -> Rating:
    """``player``'s rating after one rating period of ``results`` (opponent, score 1/½/0).

    With no results only the deviation grows (step 6 of the paper). ``clamp`` keeps the
    deviation between 45 and 350 as lichess does.
    """
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return _finish(Rating(player.rating, phi_star * SCALE, sigma), clamp)

    v_inverse = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - INITIAL_RATING) / SCALE
        phi_j = opponent.deviation / SCALE
        g = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        v_inverse += g * g * expected * (1.0 - expected)
        delta_sum += g * (score - expected)
    v = 1.0 / v_inverse
    delta = v * delta_sum

    sigma_new = _new_volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return _finish(Rating(mu_new * SCALE + INITIAL_RATING, phi_new * SCALE, sigma_new), clamp)


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm on f(x)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    upper = a
    if delta * delta > phi * phi + v:
        lower = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        lower = a - k * tau
    f_upper, f_lower = f(upper), f(lower)
    while abs(lower - upper) > _EPSILON:
        c = upper + (upper - lower) * f_upper / (f_lower - f_upper)
        f_c = f(c)
        if f_c * f_lower <= 0:
            upper, f_upper = lower, f_lower
        else:
            f_upper /= 2.0
        lower, f_lower = c, f_c
    return math.exp(upper / 2.0)


def _finish(rating: Rating, clamp: bool) -> Rating:
    if not clamp:
        return rating
    deviation = min(MAX_DEVIATION, max(MIN_DEVIATION, rating.deviation))
    return Rating(rating.rating, deviation, rating.volatility)


def rate_game(first: Rating, second: Rating, first_score: float) -> tuple[Rating, Rating]:
    """Both players' new ratings after one game; ``first_score`` is 1 (first won), ½ or 0."""
    return (
        update(first, [(second, first_score)], clamp=True),
        update(second, [(first, 1.0 - first_score)], clamp=True),
    )
