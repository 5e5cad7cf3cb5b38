"""Fit the analysis's win-chance curve on engine games: ``python -m benchmarks.fit_win_chance``.

The computer plays itself from random openings (level 4 with chance among near-best moves, so
games differ; a fixed node budget a move). Every position of every finished game gives one
sample: the search's score in the attackers' view, who was to move, and whether the attackers
won. A logistic curve ``1 / (1 + exp(-(a + b * score + c * attackers_to_move)))`` is fitted by
maximum likelihood (Newton's method); the tempo term ``c`` takes out the evaluation's bias
towards the side to move, so that a quiet move does not look like a lost chance. Positions with
a proven result are left out (their chance is exact). The script prints ``a``, ``b`` and ``c``
for ``engine/analysis.py`` and a calibration table: predicted against observed attackers' wins
per score band.
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import random
import time

from engine import Game, Move, Side
from engine.search import MATE_BOUND, choose_move

Sample = tuple[int, int, int]
"""(score in the attackers' view, 1 if the attackers were to move, 1 if they won the game)."""


def play(seed: int, nodes: int, max_plies: int) -> list[Sample]:
    """One self-play game from a random 2-6 ply opening; its positions' samples (none if
    unfinished)."""
    rng = random.Random(seed)
    game = Game()
    for _ in range(rng.randint(2, 6)):
        game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
    scores: list[tuple[int, int]] = []
    while game.outcome is None and game.ply < max_plies:
        level = 5 if rng.random() < 0.5 else 4
        result = choose_move(game, level=level, nodes=nodes, seed=rng.randrange(2**31))
        attackers = game.to_move is Side.ATTACKERS
        scores.append((result.score if attackers else -result.score, int(attackers)))
        game.play(result.move)
    if game.outcome is None or game.outcome.winner is None:
        return []
    won = int(game.outcome.winner is Side.ATTACKERS)
    return [(score, tempo, won) for score, tempo in scores if abs(score) < MATE_BOUND]


def _play(args: tuple[int, int, int]) -> list[Sample]:
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


def main() -> None:
    """Play, fit and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--nodes", type=int, default=3000, help="search budget a move")
    parser.add_argument("--max-plies", type=int, default=150)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    jobs = [(args.seed * 100_000 + i, args.nodes, args.max_plies) for i in range(args.games)]
    with multiprocessing.Pool(args.workers) as pool:
        games = pool.map(_play, jobs)
    samples = [sample for game in games for sample in game]
    finished = sum(1 for game in games if game)
    attackers = sum(1 for game in games if game and game[0][2])
    a, b, c = fit(samples)
    print(
        f"{finished} finished games of {args.games} ({attackers} won by the attackers), "
        f"{len(samples):,} positions, {time.perf_counter() - started:.0f} s"
    )
    print(f"WIN_CHANCE_INTERCEPT = {a:.3f}")
    print(f"WIN_CHANCE_SLOPE = {b:.5f}")
    print(f"WIN_CHANCE_TEMPO = {c:.3f}")
    print("score band        to move    positions  predicted  observed")
    bands = [-10_000, -600, -300, -150, -50, 50, 150, 300, 600, 10_000]
    for low, high in itertools.pairwise(bands):
        for tempo, mover in ((1, "attackers"), (0, "defenders")):
            band = [(s, w) for s, t, w in samples if low <= s < high and t == tempo]
            if not band:
                continue
            predicted = sum(chance(a, b, c, s, tempo) for s, _ in band) / len(band)
            observed = sum(w for _, w in band) / len(band)
            print(
                f"[{low:>6}, {high:>6})  {mover:<9}  {len(band):>9,}  {predicted:>8.0%}  "
                f"{observed:>8.0%}"
            )


if __name__ == "__main__":
    main()
