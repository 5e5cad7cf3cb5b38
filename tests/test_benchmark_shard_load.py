"""``python -m benchmarks.shard_load --quick`` runs end to end (about 10 s).

The benchmark's figures are not judged here (timing targets live in the benchmark): only that
it starts PostgreSQL, both shard processes and the stand-in, plays 4 thread games per shard
for 2 rounds with every move answered by its board, prints its table and stops everything.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.bot_processes import ROOT


def test_the_shard_load_benchmark_runs_end_to_end() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    finished = subprocess.run(
        [sys.executable, "-m", "benchmarks.shard_load", "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if finished.returncode == 2 and finished.stderr.startswith("shard_load: "):  # no PostgreSQL
        pytest.skip(finished.stderr.strip())
    assert finished.returncode == 0, finished.stdout + finished.stderr
    lines = finished.stdout.splitlines()
    [board] = [line for line in lines if line.strip().startswith("all board")]
    assert board.split()[2] == "16"  # 2 shards × 4 games × 2 rounds, every one with its board
    assert not any("FAILED" in line for line in lines)
