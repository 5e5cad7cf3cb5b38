"""The Texel-tuning script: games saved to several files are fitted as one set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.fit_evaluation import main


def test_saved_games_from_several_files_are_fitted_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs saved apart and loaded together fit every position of both, in one set."""
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for seed, path in ((1, first), (2, second)):
        main(["--games", "6", "--nodes", "300", "--seed", str(seed), "--save", str(path)])
    rows = sum(len(json.loads(path.read_text())["rows"]) for path in (first, second))
    capsys.readouterr()
    main(["--load", str(first), str(second), "--on-today"])
    out = capsys.readouterr().out
    assert f"loaded 6 games (300 nodes a move) from {first}" in out
    assert f"loaded 6 games (300 nodes a move) from {second}" in out
    assert "brandubh: 12 games" in out
    assert f"{rows} quiet positions" in out
    assert "as engine/evaluation.py's Tuned" in out
