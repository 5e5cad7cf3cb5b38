"""How long /analyse takes, and how big its graph is: ``python -m benchmarks.analysis_speed``.

A 60-move Brandubh set (the computer against itself at 4,000 nodes a move, from a fixed random
opening; resumed from a new opening until 60 moves are reached) is analysed in this process at
the default budget, as one pool worker would: the targets are ≤ 30 s of one core for the set,
and ≤ 50 ms and ≤ 80 KiB for the win-chance graph. ``--ruleset hnefatafl-15 --moves 150``
measures a long set of a big board at the budget the bot gives it (less per position, so that
its searches cost no more nodes than the 60-move Brandubh set's); its target is the 15 minutes
an interaction's follow-ups have, and in practice the Brandubh set's 30 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.services.analysis import SetToAnalyse
from engine import RULESETS, Game, Move, Side
from engine.analysis import ANALYSIS_NODES, CALIBRATED_RULESETS, analyse_game
from engine.search import choose_move
from renderer.graph import render_win_chance


def sixty_moves(seed: int, plies: int = 60, ruleset: str = "brandubh") -> Game:
    """A set of at least ``plies`` moves played by the computer (its last moves may be poor)."""
    rng = random.Random(seed)
    while True:
        game = Game(ruleset)
        for _ in range(4):
            game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
        while game.outcome is None and game.ply < plies:
            level = 4 if rng.random() < 0.5 else 3
            game.play(choose_move(game, level=level, nodes=4000, seed=rng.randrange(2**31)).move)
        if game.ply >= plies:
            return game
        seed += 1
        rng = random.Random(seed)


def main() -> None:
    """Analyse, draw and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # Only a ruleset with a win-chance curve can be judged (the others fail after the search).
    calibrated = [name for name in RULESETS if name in CALIBRATED_RULESETS]
    parser.add_argument("--ruleset", choices=calibrated, default="brandubh")
    parser.add_argument("--moves", type=int, default=60, help="the set's length at least")
    parser.add_argument(
        "--nodes", type=int, help="per search (default: the bot's budget for the set)"
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--draws", type=int, default=30)
    args = parser.parse_args()
    game = sixty_moves(args.seed, args.moves, args.ruleset)
    nodes = args.nodes or SetToAnalyse(0, game, "", "", 1, 1, None).nodes(ANALYSIS_NODES)
    started = time.perf_counter()
    review = analyse_game(game, nodes)
    seconds = time.perf_counter() - started
    print(
        f"analysis of a {game.ply}-move {args.ruleset} set at {nodes:,} nodes a search: "
        f"{seconds:.1f} s (target ≤ 30 s; within 15 min whatever the set)"
    )
    marked = review.worst(Side.ATTACKERS) + review.worst(Side.DEFENDERS)
    times = []
    png = b""
    for _ in range(args.draws):
        began = time.perf_counter()
        png = render_win_chance(
            review.chances, marked, attacker_name="Aoife", defender_name="Brian"
        )
        times.append(time.perf_counter() - began)
    print(
        f"win-chance graph: median {statistics.median(times) * 1000:.1f} ms, "
        f"largest {max(times) * 1000:.1f} ms, {len(png) / 1024:.1f} KiB "
        "(targets ≤ 50 ms, ≤ 80 KiB)"
    )


if __name__ == "__main__":
    main()
