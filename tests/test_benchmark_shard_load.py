"""``python -m benchmarks.shard_load --quick`` runs end to end (about 10 s).

The benchmark's figures are not judged here (timing targets live in the benchmark): only that
it starts PostgreSQL, both shard processes and the stand-in, plays 4 thread games per shard
for 2 rounds with every move answered by its board, prints its table and stops everything.
"""

from __future__ import annotations

import os
import pstats
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot_processes import ROOT


def _run_quick(*options: str) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks.shard_load --quick`` with ``options``, finished with exit code 0
    (the test is skipped, with the benchmark's reason, when PostgreSQL cannot be started)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    finished = subprocess.run(
        [sys.executable, "-m", "benchmarks.shard_load", "--quick", *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if finished.returncode == 2 and finished.stderr.startswith("shard_load: "):  # no PostgreSQL
        pytest.skip(finished.stderr.strip())
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished


def test_the_shard_load_benchmark_runs_end_to_end() -> None:
    finished = _run_quick()
    lines = finished.stdout.splitlines()
    [board] = [line for line in lines if line.strip().startswith("all board")]
    assert board.split()[2] == "16"  # 2 shards × 4 games × 2 rounds, every one with its board
    assert not any("FAILED" in line for line in lines)


def test_the_profiled_run_writes_each_bots_profile_and_threads(tmp_path: Path) -> None:
    """``--profile DIR``: both bots run under benchmarks.profiled_bot and write, for the rounds,
    a cProfile of their event loop and the CPU of each of their threads."""
    finished = _run_quick("--profile", str(tmp_path))
    assert "event loop thread" in finished.stdout
    for shard in (0, 1):
        stats = pstats.Stats(str(tmp_path / f"shard{shard}.pstats"))
        assert any(func == "play_move" for _file, _line, func in stats.stats)  # type: ignore[attr-defined]
        threads = (tmp_path / f"shard{shard}.threads").read_text().splitlines()
        assert any(line.startswith("MainThread ") for line in threads)
