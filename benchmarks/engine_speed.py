"""How fast the rules engine plays: random games, make/undo pairs and a perft node rate.

Run ``python -m benchmarks.engine_speed`` (``--runs`` and ``--seconds`` to taste). Every figure
is the median of several timed runs on one core, with the CPU and Python version printed first.

- *Random games*, two ways side by side: complete Brandubh games from the start, each move
  chosen at random until the game ends (captures, every win check, encirclement and repetition
  bookkeeping included). The *public API* path is what a library user writes,
  ``game.play(rng.choice(game.legal_moves()))`` (sorted ``Move`` values, a checked move and a
  ``MoveRecord`` per move); the *internal board* path is ``board.push(rng.choice(board.moves()))``
  on the int-coded board the computer opponent searches with. Target: at least 1,000 games/s
  through the public API.
- *Make/undo*: ``push`` + ``pop`` of every legal move in positions from random games.
  A search visiting 100,000 positions/s needs well over 100,000 pairs/s.
- *Perft*: the depth-3 tree of the start position, ``moves()`` + ``push`` + ``pop`` per node.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable

from engine import Game, get_ruleset, parse_position
from engine.board import Board

RULESET = get_ruleset("brandubh")
PLY_LIMIT = 2_000
"""A safety stop for a game that never ends; it is counted and printed (normally 0)."""


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (or what platform knows)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, or "unknown"."""
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def random_games_api(seconds: float, seed: int) -> tuple[float, float, int]:
    """Random games through ``Game.legal_moves()`` and ``Game.play()`` for about ``seconds``:
    (games per second, plies per game, cut off)."""
    rng = random.Random(seed)
    choice = rng.choice
    games = plies = cut = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        game = Game(RULESET)
        legal_moves = game.legal_moves
        play = game.play
        while game.outcome is None and game.ply < PLY_LIMIT:
            play(choice(legal_moves()))
        cut += game.outcome is None
        games += 1
        plies += game.ply
        if games % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return games / elapsed, plies / games, cut


def random_games(seconds: float, seed: int) -> tuple[float, float, int]:
    """Random games on the internal board for about ``seconds``: (games per second, plies per
    game, cut off)."""
    rng = random.Random(seed)
    choice = rng.choice
    _, pieces = parse_position(RULESET.layout)
    games = plies = cut = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        board = Board(RULESET, pieces)
        push = board.push
        moves = board.moves
        ply = 0
        while board.outcome is None and ply < PLY_LIMIT:
            push(choice(moves()))
            ply += 1
        cut += board.outcome is None
        games += 1
        plies += ply
        if games % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return games / elapsed, plies / games, cut


def sample_positions(count: int, seed: int) -> list[Board]:
    """Boards in positions taken from random games at random plies (game not over)."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        game = Game(RULESET)
        stop = rng.randrange(0, 60)
        while game.outcome is None and game.ply < stop:
            game.play(rng.choice(game.legal_moves()))
        if game.outcome is None:
            boards.append(Board(RULESET, game.pieces(), game.to_move))
    return boards


def make_undo(boards: list[Board], seconds: float) -> float:
    """``push`` + ``pop`` pairs per second over every legal move of ``boards``."""
    work = [(board, board.moves()) for board in boards]
    pairs = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for board, moves in work:
            push = board.push
            pop = board.pop
            for move in moves:
                push(move)
                pop()
            pairs += len(moves)
    return pairs / (time.perf_counter() - start)


def perft(board: Board, depth: int) -> int:
    """Nodes visited (all depths) in the full tree of ``depth`` plies below ``board``."""
    if depth == 0:
        return 1
    nodes = 1
    for move in board.moves():
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def perft_rate(depth: int, seconds: float) -> tuple[float, int]:
    """(nodes per second, nodes per tree) of perfts of the start position, repeated for about
    ``seconds``."""
    _, pieces = parse_position(RULESET.layout)
    board = Board(RULESET, pieces)
    total = trees = 0
    start = time.perf_counter()
    while trees == 0 or time.perf_counter() - start < seconds:
        total += perft(board, depth)
        trees += 1
    return total / (time.perf_counter() - start), total // trees


def median_of(runs: int, measure: Callable[[int], float]) -> tuple[float, list[float]]:
    """The median of ``runs`` measurements, and all of them."""
    values = [measure(run) for run in range(runs)]
    return statistics.median(values), values


def spread(values: list[float]) -> str:
    return f"(runs: {', '.join(f'{v:,.0f}' for v in values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of a timed run")
    parser.add_argument("--depth", type=int, default=3, help="perft depth")
    args = parser.parse_args()

    print(f"CPU: {cpu_model()}")
    print(f"Python: {platform.python_implementation()} {platform.python_version()}")
    print(f"Load average before the runs: {load_average()} (2 cores: above ~1 the figures drop)")
    print(f"Ruleset: {RULESET.name}; median of {args.runs} runs, single core\n")

    # The two paths take turns, run by run, so that a busy spell on a shared machine slows
    # both alike instead of one.
    paths = {"public API": random_games_api, "internal board": random_games}
    stats: dict[str, list[tuple[float, float, int]]] = {name: [] for name in paths}
    for run in range(args.runs):
        for name, play_games in paths.items():
            stats[name].append(play_games(args.seconds, run))
    for name, results in stats.items():
        games = statistics.median(r[0] for r in results)
        plies = statistics.median(r[1] for r in results)
        cut = sum(r[2] for r in results)
        label = f"random games, {name}:"
        print(f"{label:<32}{games:>8,.0f} games/s  {spread([r[0] for r in results])}")
        print(f"{'':<32}{plies:>8.1f} plies/game (median of runs)")
        if cut:
            print(f"{'':<32}{cut} games stopped unfinished at {PLY_LIMIT} plies")
    print("target: >= 1,000 games/s through the public API\n")

    boards = sample_positions(64, seed=1)
    pairs, values = median_of(args.runs, lambda run: make_undo(boards, args.seconds))
    print(f"{'make/undo pairs:':<32}{pairs:>8,.0f} pairs/s  {spread(values)}")

    nodes = 0

    def perft_run(run: int) -> float:
        nonlocal nodes
        rate, nodes = perft_rate(args.depth, args.seconds)
        return rate

    rate, values = median_of(args.runs, perft_run)
    print(
        f"{f'perft depth {args.depth}:':<32}{rate:>8,.0f} nodes/s  {spread(values)}; "
        f"{nodes:,} nodes a tree, move generation included"
    )
    print("target for search: >= 100,000 positions/s")


if __name__ == "__main__":
    main()
