"""Board picture speed and size: ``python -m benchmarks.render_speed``.

Prints, for the default 7x7 board (560 px wide), the median and 95th percentile time of one PNG
(drawing and encoding, caches warm) over positions from a fixed random game, its largest size,
and the time and size of a 40-move replay GIF (median of several runs). Targets (issue 3):
PNG <= 15 ms at p95 and <= 50 KiB; replay < 1 s and < 1 MiB.
"""

from __future__ import annotations

import random
import statistics
import time

from engine import Game
from renderer import render_board, render_replay


def _game(moves: int, seed: int = 7) -> Game:
    rng = random.Random(seed)
    while True:
        game = Game()
        while game.ply < moves and game.outcome is None:
            game.play(rng.choice(game.legal_moves()))
        if game.ply == moves:
            return game


def _positions(game: Game) -> list[Game]:
    """The game after each of its moves."""
    positions = []
    replay = Game()
    for record in game.records:
        replay.play(record.move)
        positions.append(replay.copy())
    return positions


def main() -> None:
    """Print the figures."""
    game = _game(40)
    positions = _positions(game)
    render_board(positions[0])  # warm the caches (background, sprites, palette)
    times: list[float] = []
    sizes: list[int] = []
    for _ in range(10):
        for position in positions:
            start = time.perf_counter()
            png = render_board(
                position, attacker_name="Aoife", defender_name="Brian", set_number=1, sets_total=2
            )
            times.append(time.perf_counter() - start)
            sizes.append(len(png))
    times.sort()
    p95 = times[int(len(times) * 0.95)]
    print(f"PNG 7x7 560 px: {len(times)} renders")
    print(f"  median {statistics.median(times) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms")
    print(
        f"  size median {statistics.median(sizes) / 1024:.1f} KiB, max {max(sizes) / 1024:.1f} KiB"
    )

    gif_times = []
    gif = b""
    for _ in range(5):
        start = time.perf_counter()
        gif = render_replay(game, attacker_name="Aoife", defender_name="Brian")
        gif_times.append(time.perf_counter() - start)
    print(f"Replay GIF, {game.ply} moves ({game.ply + 1} frames), 560 px:")
    print(f"  median {statistics.median(gif_times) * 1000:.0f} ms, size {len(gif) / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
