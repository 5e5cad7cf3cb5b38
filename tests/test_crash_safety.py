"""Kill -9 in the middle of writing moves: no acknowledged move is lost, nothing half-written.

A child process plays random games through the real services, printing a line after each
move's transaction commits. The parent kills it (SIGKILL) at random points, again and again,
then checks the file's integrity and that every acknowledged move is there.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.services import Services

ROUNDS = 30
ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import asyncio, random, sys
from bot.services import Services

async def main(path, seed):
    services = await Services.open(path)
    try:
        rng = random.Random(seed)
        for user, name in ((1, "A"), (2, "B")):
            await services.players.remember(user, name)
        print("ready", flush=True)
        while True:
            game = await services.games.in_channel(7)
            if game is None:
                # A challenge made before a kill, never accepted, is accepted now (the two
                # members may have only one open between them).
                waiting = await services.challenges.pending()
                challenge = waiting[0] if waiting else await services.challenges.create(
                    5, 7, 1, 2, sets_total=2
                )
                game = await services.challenges.accept(challenge.challenge_id, 2)
            move = str(rng.choice(game.game.legal_moves()))
            result = await services.games.play(
                7, game.player_to_move, move, confirm_repetition=True
            )
            print("ack", result.game.set_id, result.record.ply, move, flush=True)
    finally:
        await services.close()  # else, failing, it would wait for the database's thread

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def _run_and_kill(path: Path, seed: int, rng: random.Random) -> list[tuple[int, int, str]]:
    """Start the child, let it write a random number of moves, SIGKILL it; its acks."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(seed)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    assert child.stdout is not None
    acks = []
    try:
        assert child.stdout.readline().strip() == "ready"
        for _ in range(rng.randint(1, 60)):
            words = child.stdout.readline().split()
            if not words:
                break
            acks.append((int(words[1]), int(words[2]), words[3]))
        time.sleep(rng.random() * 0.004)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        remaining, _ = child.communicate()
    complete_lines = remaining.split("\n")[:-1]  # a line cut short by the kill is no ack
    for line in complete_lines:
        parts = line.split()
        if parts and parts[0] == "ack":
            acks.append((int(parts[1]), int(parts[2]), parts[3]))
    assert child.returncode == -signal.SIGKILL
    return acks


def test_kill_nine_loses_no_acknowledged_move(tmp_path: Path) -> None:
    """After repeated kill -9 mid-write: integrity ok, every acked move stored, no torn game."""
    path = tmp_path / "crash.sqlite3"
    rng = random.Random(20261121)
    acked: list[tuple[int, int, str]] = []
    for seed in range(ROUNDS):
        acked.extend(_run_and_kill(path, seed, rng))
    assert len(acked) > ROUNDS

    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {
            (int(g), int(p)): str(n)
            for g, p, n in raw.execute("SELECT set_id, ply, notation FROM moves")
        }
        for set_id, ply, notation in acked:
            assert stored.get((set_id, ply)) == notation, (set_id, ply, notation)
        for set_id, ply, status, reason, match_id, set_number in raw.execute(
            "SELECT set_id, ply, status, reason, match_id, set_number FROM sets"
        ):
            plies = sorted(p for g, p in stored if g == set_id)
            assert plies == list(range(ply)), f"game {set_id} has a torn move list"
            assert (status == "active") == (reason is None)
            if status == "finished" and set_number == 1:
                sets = raw.execute(
                    "SELECT count(*) FROM sets WHERE match_id = ?", (match_id,)
                ).fetchone()[0]
                assert sets == 2, f"match {match_id} ended set 1 without starting set 2"
        active = raw.execute("SELECT count(*) FROM sets WHERE status = 'active'").fetchone()[0]
        assert active <= 1

    async def recover() -> int:
        services = await Services.open(path)
        try:
            return len(await services.games.active())
        finally:
            await services.close()

    assert asyncio.run(recover()) == active
