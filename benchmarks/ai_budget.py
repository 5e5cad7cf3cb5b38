"""Whether the computer opponent keeps to its time: the share of its budget each level uses.

Run from the repository root::

    .venv/bin/python -m benchmarks.ai_budget                         # four boards, levels 1-5
    .venv/bin/python -m benchmarks.ai_budget --ruleset hnefatafl-15 --positions 15

For each board and level 1-5 at the bot's own times (``LEVELS[level].default_time``: no time
limit given, as the bot asks), every level answers the same middlegame positions; the time is
taken around the whole call, as the bot's worker sees it. Printed per board and level: the
median and the largest time used as a share of the budget (target: never above 110 %), the
largest CPU time as a share (below the wall clock when the machine is busy: the time limit is
wall-clock time), the mean completed depth and how many moves stopped before completing
depth 2 (cut short, or not started because it was not expected to fit).

The positions are reproducible: from the start, each side plays a move drawn (seeded) by a
softmax over the evaluation after it, never one that loses at once when another does not; the
positions after plies 20, 30 and 40 of the game of seed 0, then seed 1 and so on, are kept
until there are enough (a game that ends sooner gives fewer). The machine is shared, so say its
load (printed) when quoting a figure.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Iterable

from engine import Game, Move
from engine.evaluation import evaluate, tables
from engine.immediate import Immediate, classify
from engine.search import LEVELS, choose_move

DEFAULT_RULESETS = ("brandubh", "tablut", "hnefatafl", "hnefatafl-15")
PLIES = (20, 30, 40)


def middlegames(ruleset: str, seed: int, plies: Iterable[int] = PLIES) -> list[Game]:
    """The positions after ``plies`` of one seeded one-ply self-play game of ``ruleset``."""
    rng = random.Random(seed)
    game = Game(ruleset)
    board = game.board
    t = tables(board.rules)
    wanted = sorted(plies)
    found: list[Game] = []
    while wanted and game.outcome is None:
        if game.ply == wanted[0]:
            found.append(game.copy())
            wanted.pop(0)
            continue
        moves = sorted(board.moves())
        immediate = classify(board.copy(), t, moves)
        wins = [m for m in moves if immediate[m] is Immediate.WINS]
        safe = [m for m in moves if immediate[m] is not Immediate.LOSES] or moves
        if wins:
            choice = wins[0]
        else:
            scores = []
            for m in safe:
                board.push(m)
                scores.append(-evaluate(board, t))
                board.pop()
            top = max(scores)
            weights = [math.exp(max(-50.0, (s - top) / 20.0)) for s in scores]
            choice = rng.choices(safe, weights=weights)[0]
        game.play(Move.from_code(choice))
    return found


def positions(ruleset: str, count: int) -> list[Game]:
    """``count`` middlegame positions of ``ruleset``: those of seeds 0, 1, 2... in turn."""
    found: list[Game] = []
    for seed in range(1000):
        found.extend(middlegames(ruleset, seed))
        if len(found) >= count:
            break
    return found[:count]


def measure(games: list[Game], level: int) -> tuple[list[float], list[float], list[int]]:
    """Share of the budget used (wall clock, then CPU time), and the completed depth, for each
    of ``games``."""
    shares = []
    cpu = []
    depths = []
    budget = LEVELS[level].default_time
    for game in games:
        started, cpu_started = time.perf_counter(), time.process_time()
        result = choose_move(game, level=level, seed=0)
        shares.append((time.perf_counter() - started) / budget)
        cpu.append((time.process_time() - cpu_started) / budget)
        depths.append(result.depth)
    return shares, cpu, depths


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Share of the time budget used per level.")
    parser.add_argument("--ruleset", action="append", help="board (repeatable); default four")
    parser.add_argument("--positions", type=int, default=9, help="positions per board")
    parser.add_argument("--levels", default="1-5", help="LOW-HIGH")
    args = parser.parse_args(list(argv) if argv is not None else None)
    low, _, high = args.levels.partition("-")
    levels = range(int(low), int(high or low) + 1)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    worst = 0.0
    for ruleset in args.ruleset or DEFAULT_RULESETS:
        games = positions(ruleset, args.positions)
        for level in levels:
            shares, cpu, depths = measure(games, level)
            worst = max(worst, max(shares))
            short = sum(d < min(2, LEVELS[level].max_depth) for d in depths)
            print(
                f"{ruleset:>14} level {level} ({LEVELS[level].default_time:g} s), "
                f"{len(games)} positions: used median {statistics.median(shares):.0%}, "
                f"max {max(shares):.0%} (CPU time at most {max(cpu):.0%}); "
                f"mean depth {statistics.mean(depths):.1f}, "
                f"stopped before depth 2 {short}",
                flush=True,
            )
    print(f"largest share of the budget used: {worst:.0%} (target: at most 110 %)")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
