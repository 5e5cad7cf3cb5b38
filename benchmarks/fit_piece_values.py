"""Fit what an attacker and a defender are worth, per side, on games the engine plays itself.

Run from the repository root::

    nice -n 10 .venv/bin/python -m benchmarks.fit_piece_values --games 100 --nodes 3000

It plays ``--games`` games of level 5 against itself (``--nodes`` positions a move, no opening
book) from random openings of 2-6 plies, so that every game is a different one, and keeps every
quiet position after the opening (one where the side to move cannot capture a piece). Then it
fits a logistic model of the result::

    P(defenders win) = 1 / (1 + exp(-(c + a * attackers + d * defenders + e * rest)))

where ``rest`` is the evaluation (``engine/evaluation.py``, from the defenders' view) without
its material term. ``-a / e`` and ``d / e`` are then what an attacker and a defender are worth
in the evaluation's own units, fitted separately, next to today's ``ATTACKER_VALUE`` and
``DEFENDER_VALUE``. Positions of one game are not independent, so the interval printed (from
the Fisher information, times the square root of the mean number of positions a game) is only
a rough guide. Deterministic for a given command.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from engine import Game, Move, Side
from engine.board import ATTACKER, DEFENDER, Board
from engine.evaluation import (
    ATTACKER_VALUE,
    DEFENDER_VALUE,
    can_capture,
    evaluate,
    tables,
)
from engine.search import choose_move

R = TypeVar("R")
Row = tuple[float, float, float, float]
"""1, attackers, defenders (the king not counted), rest of the evaluation / 100."""


def quiet_features(board: Board) -> Row | None:
    """The model's inputs for ``board``, or ``None`` if the side to move can capture."""
    t = tables(board.rules)
    if board.turn == ATTACKER:
        if can_capture(board, t, ATTACKER):
            return None
    elif can_capture(board, t, DEFENDER):
        return None
    score = evaluate(board, t)
    defenders_view = score if board.turn == DEFENDER else -score
    material = DEFENDER_VALUE * (len(board.defenders) - 1) - ATTACKER_VALUE * len(board.attackers)
    rest = defenders_view - material
    return 1.0, float(len(board.attackers)), float(len(board.defenders) - 1), rest / 100


def self_play(
    ruleset: str, seed: int, nodes: int, max_plies: int, keep: Callable[[Board], R | None]
) -> tuple[list[R], float]:
    """One game of level 5 against itself (``nodes`` a move, no book) after 2-6 seeded random
    plies: what ``keep`` makes of each position it does not refuse (``None``), and the
    defenders' result (1, 0, ½ if unfinished after ``max_plies``)."""
    rng = random.Random(seed)
    game = Game(ruleset)
    for _ in range(rng.randint(2, 6)):
        game.play(Move.from_code(rng.choice(sorted(game.board.moves()))))
        if game.outcome is not None:
            break
    kept: list[R] = []
    while game.outcome is None and game.ply < max_plies:
        item = keep(game.board)
        if item is not None:
            kept.append(item)
        game.play(choose_move(game, level=5, nodes=nodes, book=False).move)
    if game.outcome is None:
        return kept, 0.5
    return kept, float(game.outcome.winner is Side.DEFENDERS)


def play_game(ruleset: str, seed: int, nodes: int, max_plies: int) -> tuple[list[Row], float]:
    """One self-play game: its quiet positions' features and the defenders' result (1, 0, ½)."""
    return self_play(ruleset, seed, nodes, max_plies, quiet_features)


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small system; an unknown whose pivot
    vanishes, one the data cannot tell apart from the others, is given 0)."""
    n = len(vector)
    m = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                factor = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit(rows: Sequence[Row], results: Sequence[float]) -> tuple[list[float], list[float]]:
    """Logistic regression by Newton's method (a little ridge for stability): the coefficients
    and their standard errors."""
    k = len(rows[0])
    beta = [0.0] * k
    hessian: list[list[float]] = []
    for _ in range(30):
        gradient = [0.0] * k
        hessian = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(rows, results, strict=True):
            z = sum(b * xi for b, xi in zip(beta, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            w = p * (1 - p)
            for i in range(k):
                gradient[i] += (y - p) * x[i]
                for j in range(k):
                    hessian[i][j] += w * x[i] * x[j]
        step = solve(hessian, gradient)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    errors = []
    for i in range(k):
        unit = [1.0 if j == i else 0.0 for j in range(k)]
        errors.append(math.sqrt(max(0.0, solve(hessian, unit)[i])))
    return beta, errors


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit piece values per side on engine games.")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=3000, help="node budget a move")
    parser.add_argument("--ruleset", default="brandubh")
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(list(argv) if argv is not None else None)
    began = time.perf_counter()
    rows: list[Row] = []
    results: list[float] = []
    wins = 0.0
    for index in range(args.games):
        game_rows, result = play_game(
            args.ruleset, args.seed * 100_003 + index, args.nodes, args.max_plies
        )
        rows += game_rows
        results += [result] * len(game_rows)
        wins += result
        if (index + 1) % 10 == 0:
            print(f"  {index + 1} games, {len(rows)} positions", flush=True)
    (c, a, d, e), (_, sa, sd, _) = fit(rows, results)
    inflate = math.sqrt(len(rows) / args.games)
    print(
        f"{args.ruleset}: {args.games} games at {args.nodes:,} nodes a move "
        f"(defenders won {wins:g}), {len(rows)} quiet positions, "
        f"{time.perf_counter() - began:.0f} s"
    )
    print(f"coefficients: constant {c:.3f}, attacker {a:.3f} ± {sa * inflate:.3f}, ")
    print(f"  defender {d:.3f} ± {sd * inflate:.3f}, rest of the evaluation /100 {e:.3f}")
    if e > 0:
        print(
            f"in evaluation units: an attacker is worth {-a / e * 100:.0f}, "
            f"a defender {d / e * 100:.0f} "
            f"(today {ATTACKER_VALUE} and {DEFENDER_VALUE}); "
            f"their ratio defender/attacker {d / -a:.2f}"
            if a < 0
            else f"an attacker's coefficient is {a:.3f} (not negative): no value can be read"
        )
    else:
        print("the rest of the evaluation does not predict the result here: no scale to read")


if __name__ == "__main__":
    main()
