"""How fast the computer opponent searches: positions per second at full strength.

Run from the repository root::

    .venv/bin/python -m benchmarks.ai_speed            # 1 s per move, 5 rounds
    .venv/bin/python -m benchmarks.ai_speed --time 2 --rounds 3 --ruleset brandubh

A node is one position pushed on the board (every move made in the search, leaves included).
Each round searches a fixed set of opening and middle-game positions for ``--time`` seconds
each; the figures printed are medians over rounds, because the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterable

from engine import Game
from engine.search import choose_move

# Brandubh positions reached in games between the levels, by their moves from the start.
BRANDUBH_LINES: tuple[tuple[str, ...], ...] = (
    (),
    ("d2-c2",),
    ("d2-c2", "d3-d2", "b4-b2"),
    ("b4-b5", "c4-b4", "d2-f2", "d4-c4"),
    ("d6-e6", "d5-d6", "f4-f5", "e4-f4", "b4-b3", "c4-b4"),
    ("d2-b2", "d3-d2", "d6-f6", "d5-d6", "b4-b5", "e4-e2"),
)


def measure(
    ruleset: str, seconds: float, lines: Iterable[tuple[str, ...]]
) -> tuple[float, float, float, float]:
    """Searched positions per second, mean completed depth and the mean and largest share of
    the budget used over ``lines`` for one round."""
    nodes = 0
    elapsed = 0.0
    depths = []
    used = []
    for line in lines:
        game = Game.from_moves(line, ruleset=ruleset)
        # Without the opening book, which answers the first two positions without searching.
        result = choose_move(game, level=5, time_limit=seconds, seed=0, book=False)
        nodes += result.nodes
        elapsed += result.elapsed
        depths.append(result.depth)
        used.append(result.elapsed / (result.budget or seconds))
    return nodes / elapsed, statistics.mean(depths), statistics.mean(used), max(used)


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Positions per second of the full search.")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ruleset", default="brandubh")
    args = parser.parse_args(list(argv) if argv is not None else None)
    lines = BRANDUBH_LINES if args.ruleset.startswith("brandubh") else ((),)
    rates = []
    depths = []
    means = []
    shares = []
    for _ in range(args.rounds):
        rate, depth, mean, share = measure(args.ruleset, args.time, lines)
        rates.append(rate)
        depths.append(depth)
        means.append(mean)
        shares.append(share)
        print(
            f"round: {rate:,.0f} positions/s, mean depth {depth:.1f}, "
            f"used/budget {mean:.0%} on average, at most {share:.0%}",
            flush=True,
        )
    print(
        f"{args.ruleset}, {args.time} s per move, {len(lines)} positions x {args.rounds} rounds: "
        f"median {statistics.median(rates):,.0f} positions/s "
        f"(min {min(rates):,.0f}, max {max(rates):,.0f}), "
        f"median depth {statistics.median(depths):.1f}, "
        f"used/budget {statistics.median(means):.0%} (median of the rounds' means), "
        f"at most {max(shares):.0%} (never above 110 % allowed)"
    )


if __name__ == "__main__":
    main()
