"""The Texel-tuning script: games saved to several files are fitted as one set; positions
labelled by a deeper search."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from benchmarks.fit_evaluation import main, search_labels
from benchmarks.texel_positions import search_score
from engine import Game, Side
from engine.evaluation import tables


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
    # Rows never scored by a deeper search cannot be fitted on search labels, even beside
    # rows that were.
    labelled = tmp_path / "labelled.json"
    labelled_run = ["--games", "2", "--nodes", "300", "--seed", "3", "--label-depth", "1"]
    main([*labelled_run, "--save", str(labelled)])
    capsys.readouterr()
    main(["--load", str(labelled), "--mix", "0"])
    assert "labels: 1 x sigmoid(" in capsys.readouterr().out
    for loaded in ([first], [labelled, first]):
        with pytest.raises(SystemExit):
            main(["--load", *map(str, loaded), "--mix", "0"])
        err = capsys.readouterr().err
        assert "--mix needs positions scored by a deeper search" in err
        assert f"and {first} has none." in err
    with pytest.raises(SystemExit):
        main(["--games", "2", "--nodes", "300", "--mix", "0"])
    assert "--mix needs positions scored by a deeper search" in capsys.readouterr().err


def test_a_search_score_is_the_defenders_view_of_a_full_search() -> None:
    """The label of a position is its score by a full search, from the defenders' side: a king
    with a road to a corner is sure to win for them, whoever is to move's score it came from."""
    board = Game.from_position("/7/7/7/K6/7/6t/7/", to_move=Side.DEFENDERS).board
    t = tables(board.rules)
    assert search_score(board, t, 2) == 3000
    waiting = Game.from_position("/7/1t5/7/3K3/7/7/7/", to_move=Side.ATTACKERS).board
    assert search_score(waiting, t, 3) == 3000  # one attacker cannot stop a king in the open


def test_search_labels_weigh_the_search_against_the_results() -> None:
    """Labels move from the search's calibrated chance (``mix`` 0) to the game results (1), and
    the chance rises with the score."""
    scores = [-400, -100, 0, 150, 300, 600, 900, -250]
    results = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert search_labels(scores, results, 1.0)[0] == results
    labels, _, s = search_labels(scores, results, 0.0)
    assert s > 0
    ordered = sorted(zip(scores, labels, strict=True))
    assert all(a[1] < b[1] for a, b in itertools.pairwise(ordered))
    half = search_labels(scores, results, 0.5)[0]
    assert half == pytest.approx([(y + p) / 2 for y, p in zip(results, labels, strict=True)])
