"""What each iteration of the full search costs: positions and CPU seconds to complete depth 1, 2...

Run from the repository root (or with ``PYTHONPATH`` set to another checkout to compare it)::

    .venv/bin/python -m benchmarks.ai_depth                      # brandubh, depth 6
    .venv/bin/python -m benchmarks.ai_depth --depth 5 --ruleset tablut

Level 5's iterations (a plain principal-variation search, no time or node limit, no opening
book) on the positions of ``benchmarks.ai_speed`` and ``benchmarks.ai_budget`` for the board,
each position's iterations in one search as in a real move. A node budget hides a change in
the cost of a position (a search that plays fewer positions, each dearer, reaches more with
the same count); CPU seconds a depth do not, and are much less disturbed by a busy machine
than wall-clock time. Printed per depth: positions searched and CPU seconds over all the
positions, and the load average.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterable, Iterator

from benchmarks.ai_budget import positions
from benchmarks.ai_speed import BRANDUBH_LINES
from engine import Game
from engine.alphabeta import Searcher
from engine.board import Board
from engine.evaluation import Tables, tables


def games(ruleset: str, count: int) -> list[Game]:
    """The positions measured: ``ai_speed``'s (brandubh) or the opening, then ``ai_budget``'s."""
    lines = BRANDUBH_LINES if ruleset.startswith("brandubh") else ((),)
    found = [Game.from_moves(line, ruleset=ruleset) for line in lines]
    return found + positions(ruleset, count)


def iterations(board: Board, t: Tables, depth: int) -> Iterator[tuple[list[tuple[int, int]], int]]:
    """Level 5's iterations 1 to ``depth`` on a copy of ``board``, one search as in a real move
    (no time or node limit, no book): after each, its ``(score, move)`` pairs, best first, and
    the positions searched so far."""
    searcher = Searcher(board.copy(), None, None, t)
    order = sorted(board.moves())
    for d in range(1, depth + 1):
        scored, _ = searcher.root(order, d, None)
        yield scored, searcher.nodes
        order = [m for _, m in scored]


def measure(game: Game, depth: int) -> list[tuple[int, float]]:
    """Positions searched and CPU seconds of each iteration from 1 to ``depth``."""
    costs = []
    nodes, began = 0, time.process_time()
    for _, searched in iterations(game.board, tables(game.board.rules), depth):
        costs.append((searched - nodes, time.process_time() - began))
        nodes, began = searched, time.process_time()
    return costs


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Positions and CPU seconds per search depth.")
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--ruleset", default="brandubh")
    parser.add_argument("--positions", type=int, default=9, help="middlegames from ai_budget")
    args = parser.parse_args(list(argv) if argv is not None else None)
    nodes = [0] * args.depth
    seconds = [0.0] * args.depth
    measured = games(args.ruleset, args.positions)
    for game in measured:
        for d, (n, s) in enumerate(measure(game, args.depth)):
            nodes[d] += n
            seconds[d] += s
    for d in range(args.depth):
        print(f"depth {d + 1}: {nodes[d]:,} positions, {seconds[d]:.2f} s of CPU")
    print(
        f"{args.ruleset}, {len(measured)} positions, depths 1-{args.depth}: {sum(nodes):,} "
        f"positions, {sum(seconds):.1f} s of CPU; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
