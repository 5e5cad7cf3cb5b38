"""Fit the analysis's win-chance curves on engine games: ``python -m benchmarks.fit_win_chance``.

One curve per ruleset (``--ruleset NAME``, brandubh by default, or ``all`` in turn with each
ruleset's recorded settings). The computer plays itself from random openings (level 4 with
chance among near-best moves, so games differ; a fixed node budget a move). Every position of
every finished game gives one sample: the search's score in the attackers' view, who was to
move, and whether the attackers won. A logistic curve
``1 / (1 + exp(-(a + b * score + c * attackers_to_move)))`` is fitted by maximum likelihood
(Newton's method); the tempo term ``c`` takes out the evaluation's bias towards the side to
move, so that a quiet move does not look like a lost chance. Positions with a proven result
are left out (their chance is exact). The script prints ``a``, ``b`` and ``c`` for
``engine/analysis.py`` and a calibration table: predicted against observed attackers' wins per
score band. The settings each curve of ``engine/analysis.py`` was fitted with are
:data:`SETTINGS`, the defaults for its ruleset.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import multiprocessing
import random
import time
from dataclasses import dataclass

from engine import RULESETS, Game, Move, Side
from engine.search import MATE_BOUND, choose_move

Sample = tuple[int, int, int]
"""(score in the attackers' view, 1 if the attackers were to move, 1 if they won the game)."""


@dataclass(frozen=True)
class Settings:
    """How one ruleset's games are played for its fit."""

    games: int = 120
    nodes: int = 3000
    """The search budget a move."""
    max_plies: int = 150
    """Longer games are left unfinished (and out of the fit)."""
    opening: tuple[int, int] = (2, 6)
    """The fewest and most random plies before the computer plays."""
    full_strength: float = 0.5
    """The share of moves played at level 5 (the rest at level 4, with chance)."""


SETTINGS: dict[str, Settings] = {
    "brandubh": Settings(games=300, nodes=8000),
    # Engine games of these three are one-sided (about 1 in 20 or 30 won by the minority side,
    # more chance or longer openings did not change it): more games, for 20 wins of each side.
    "brandubh-classic": Settings(games=600, nodes=8000),
    "brandubh-historical": Settings(games=600, nodes=8000),
    # Ard Rí's scores grow with the depth (1,188 from the start at 8,000 nodes, 1,527 at
    # 40,000): fitted at the budget its sets are analysed with (too one-sided to be used).
    "ard-ri": Settings(games=200, nodes=40_000),
    "tablut": Settings(games=300, nodes=8000, max_plies=250),
    # The big boards' long sets are analysed with less than ANALYSIS_NODES a position (about
    # 8,000 for a 300-move set): fitted at that budget.
    "hnefatafl": Settings(games=160, nodes=8000, max_plies=300),
    "hnefatafl-13": Settings(games=120, nodes=8000, max_plies=350),
    "hnefatafl-15": Settings(games=120, nodes=8000, max_plies=400),
}
"""Each curve's settings in ``engine/analysis.py``; a ruleset not listed takes the defaults."""


def play(
    seed: int,
    nodes: int,
    max_plies: int,
    ruleset: str = "brandubh",
    opening: tuple[int, int] = (2, 6),
    full_strength: float = 0.5,
) -> list[Sample]:
    """One self-play game from a random opening; its positions' samples (none if unfinished)."""
    rng = random.Random(seed)
    game = Game(ruleset)
    for _ in range(rng.randint(*opening)):
        game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
    scores: list[tuple[int, int]] = []
    while game.outcome is None and game.ply < max_plies:
        level = 5 if rng.random() < full_strength else 4
        result = choose_move(game, level=level, nodes=nodes, seed=rng.randrange(2**31))
        attackers = game.to_move is Side.ATTACKERS
        scores.append((result.score if attackers else -result.score, int(attackers)))
        game.play(result.move)
    if game.outcome is None or game.outcome.winner is None:
        return []
    won = int(game.outcome.winner is Side.ATTACKERS)
    return [(score, tempo, won) for score, tempo in scores if abs(score) < MATE_BOUND]


def _play(args: tuple[int, int, int, str, tuple[int, int], float]) -> list[Sample]:
    return play(*args)


def chance(a: float, b: float, c: float, score: int, tempo: int) -> float:
    """The curve's attackers' chance."""
    return 1.0 / (1.0 + math.exp(-(a + b * score + c * tempo)))


def fit(samples: list[Sample], iterations: int = 60) -> tuple[float, float, float]:
    """Maximum-likelihood ``(a, b, c)`` of the logistic curve (Newton's method)."""
    weights = [0.0, 0.0, 0.0]
    for _ in range(iterations):
        gradient = [0.0, 0.0, 0.0]
        hessian = [[0.0] * 3 for _ in range(3)]
        for score, tempo, won in samples:
            x = (1.0, float(score), float(tempo))
            p = chance(weights[0], weights[1], weights[2], score, tempo)
            for i in range(3):
                gradient[i] += (won - p) * x[i]
                for j in range(3):
                    hessian[i][j] += p * (1.0 - p) * x[i] * x[j]
        step = _solve(hessian, gradient)
        if step is None:
            break
        weights = [w + d for w, d in zip(weights, step, strict=True)]
        if max(abs(d) for d in step) < 1e-10:
            break
    return weights[0], weights[1], weights[2]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """``matrix⁻¹ · vector`` by Gaussian elimination with pivoting (None if singular)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-300:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def run(ruleset: str, settings: Settings, seed: int, workers: int) -> None:
    """Play ``ruleset``'s games, fit its curve and print it with its calibration table."""
    started = time.perf_counter()
    jobs = [
        (
            seed * 100_000 + i,
            settings.nodes,
            settings.max_plies,
            ruleset,
            settings.opening,
            settings.full_strength,
        )
        for i in range(settings.games)
    ]
    with multiprocessing.Pool(workers) as pool:
        games = pool.map(_play, jobs)
    samples = [sample for game in games for sample in game]
    finished = sum(1 for game in games if game)
    attackers = sum(1 for game in games if game and game[0][2])
    a, b, c = fit(samples)
    print(f"{ruleset}: {settings}")
    print(
        f"{finished} finished games of {settings.games} ({attackers} won by the attackers), "
        f"{len(samples):,} positions, {time.perf_counter() - started:.0f} s"
    )
    print(f'"{ruleset}": WinChanceCurve(a={a:.3f}, b={b:.5f}, c={c:.3f})')
    print("score band (attackers' view)  positions  predicted  observed")
    for band in _tenths(samples):
        predicted = sum(chance(a, b, c, s, t) for s, t, _ in band) / len(band)
        observed = sum(w for _, _, w in band) / len(band)
        print(
            f"[{band[0][0]:>6}, {band[-1][0]:>6}]{'':>14}  {len(band):>9,}  {predicted:>8.0%}  "
            f"{observed:>8.0%}"
        )


def _tenths(samples: list[Sample]) -> list[list[Sample]]:
    """The samples by score in ten bands of (nearly) equal size: the evaluation's scale
    differs too much between rulesets for fixed bands."""
    ordered = sorted(samples)
    cuts = [len(ordered) * i // 10 for i in range(11)]
    return [ordered[low:high] for low, high in itertools.pairwise(cuts) if high > low]


def main() -> None:
    """Play, fit and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", choices=[*RULESETS, "all"], default="brandubh")
    parser.add_argument("--games", type=int, help="games to play (default: the ruleset's)")
    parser.add_argument("--nodes", type=int, help="search budget a move")
    parser.add_argument("--max-plies", type=int)
    parser.add_argument("--opening", type=int, nargs=2, metavar=("FEWEST", "MOST"))
    parser.add_argument("--full-strength", type=float, help="share of level-5 moves")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    given = {
        "games": args.games,
        "nodes": args.nodes,
        "max_plies": args.max_plies,
        "opening": None if args.opening is None else tuple(args.opening),
        "full_strength": args.full_strength,
    }
    changes = {name: value for name, value in given.items() if value is not None}
    for ruleset in RULESETS if args.ruleset == "all" else [args.ruleset]:
        settings = dataclasses.replace(SETTINGS.get(ruleset, Settings()), **changes)
        run(ruleset, settings, args.seed, args.workers)


if __name__ == "__main__":
    main()
