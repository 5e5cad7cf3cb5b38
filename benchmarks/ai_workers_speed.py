"""The computer opponent on PostgreSQL: computer moves per second with 1 and 2 worker processes.

Run from the project root::

    python -m benchmarks.ai_workers_speed            # starts a throwaway PostgreSQL of its own
    python -m benchmarks.ai_workers_speed --moves 24 --seconds 0.5

Many games ask for the computer's move at once (level 5 with a fixed time per move, so every
search takes its whole time, as a level 4-5 move does); the moves go through the real path:
a pgqueuer job per move, ``python -m bot.ai_worker --processes N`` taking them, the move stored
and taken by the asking side on completion. The figure is moves answered per second of wall
time. Target (issue 15): the second process nearly doubles the first's rate, on a machine with
a free core for it. Measured on the same machine as PostgreSQL and the asking side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bot.ai_queue import QueuedComputer
from engine import Game
from tests import postgres_server

ROOT = Path(__file__).resolve().parent.parent


def opening(index: int) -> Game:
    """A different early position for each game."""
    game = Game()
    for ply in range(index % 5):
        legal = sorted(str(move) for move in game.legal_moves())
        game.play(legal[(index * 7 + ply * 13) % len(legal)])
    return game


async def moves_per_second(database: str, moves: int, seconds: float) -> float:
    """Ask ``moves`` computer moves at once and time until every one is answered."""
    computer = QueuedComputer(
        database, time_per_move=timedelta(seconds=seconds), answer_within=timedelta(minutes=10)
    )
    await computer.start()
    try:
        await computer.choose_move(opening(0), 1, seed=0)  # the workers are up
        games = [opening(index) for index in range(moves)]
        started = time.perf_counter()
        await asyncio.gather(
            *(computer.choose_move(game, 5, seed=i) for i, game in enumerate(games))
        )
        return moves / (time.perf_counter() - started)
    finally:
        await computer.close()


def start_workers(database: str, processes: int, folder: Path) -> subprocess.Popen[bytes]:
    """``python -m bot.ai_worker --processes N`` (its log in ``folder``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRANDUBH_")}
    env.update({"PYTHONPATH": str(ROOT), "BRANDUBH_LOG_LEVEL": "WARNING"})
    with (folder / f"workers-{processes}.log").open("wb") as log:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot.ai_worker",
                "--database",
                database,
                "--processes",
                str(processes),
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def main() -> None:
    """Measure with 1 and 2 worker processes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=16, help="moves asked at once")
    parser.add_argument("--seconds", type=float, default=0.5, help="time per move")
    options = parser.parse_args()
    server = postgres_server.start()
    if isinstance(server, str):
        sys.exit(f"ai_workers_speed: {server}.")
    rates: dict[int, float] = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            for processes in (1, 2):
                database = asyncio.run(postgres_server.create_database(server))
                workers = start_workers(database, processes, Path(folder))
                try:
                    rates[processes] = asyncio.run(
                        moves_per_second(database, options.moves, options.seconds)
                    )
                finally:
                    workers.terminate()
                    workers.wait(timeout=60)
                print(
                    f"computer moves with {processes} worker process(es), {options.moves} games "
                    f"at once, up to {options.seconds:g} s per move: {rates[processes]:.2f} moves/s"
                )
    finally:
        server.stop()
    print(
        f"2 processes / 1 process: {rates[2] / rates[1]:.2f}x "
        f"(target: nearly 2x; {os.cpu_count()} cores on this machine)"
    )


if __name__ == "__main__":
    main()
