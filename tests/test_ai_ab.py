"""The A/B harness plays real games between two engine processes and reports what each used."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import ai_ab
from engine import Game

ROOT = Path(__file__).resolve().parent.parent


def test_a_match_reports_every_game_and_the_score(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "games.jsonl"
    ai_ab.main(
        [
            *("--a", str(ROOT), "--b", str(ROOT), "--pairs", "2", "--nodes", "300"),
            *("--max-plies", "8", "--save-games", str(saved)),
        ]
    )
    out = capsys.readouterr().out
    # Every game is saved, and replays to the result the match counted.
    games = [json.loads(line) for line in saved.read_text().splitlines()]
    assert len(games) == 4
    assert (
        sorted((g["attackers"], g["defenders"]) for g in games)
        == [("A", "B")] * 2 + [("B", "A")] * 2
    )
    for record in games:
        game = Game.from_moves(record["moves"], ruleset="brandubh")
        winner = game.outcome.winner if game.outcome else None
        assert (winner.value if winner else None) == record["winner"]
        assert len(record["moves"]) <= 8
    assert "4 games written to" in out
    assert out.count("pair ") == 2
    # Two games a pair, each won, lost or unfinished at the ply limit: the points add up.
    score = re.search(r"A scores ([\d.]+)/4 = ", out)
    assert score is not None
    assert 0 <= float(score.group(1)) <= 4
    assert re.search(r"^A: .* nodes/s$", out, re.MULTILINE)
    assert re.search(r"^B: .* nodes/s$", out, re.MULTILINE)


def test_a_gets_its_own_time(capsys: pytest.CaptureFixture[str]) -> None:
    ai_ab.main(
        [
            *("--a", str(ROOT), "--b", str(ROOT), "--pairs", "1", "--max-plies", "8"),
            *("--time", "0.01", "--time-a", "0.3"),
        ]
    )
    out = capsys.readouterr().out
    assert "0.01 s (A 0.3 s) a move" in out
    nodes = {
        name: int(count.replace(",", ""))
        for name, count in re.findall(r"^([AB]): .* \(max [\d.]+\), ([\d,]+) nodes,", out, re.M)
    }
    # Thirty times B's time: A searches far more positions a move, whatever the machine's load.
    assert nodes["A"] > 3 * nodes["B"] > 0


def test_time_a_without_time_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        ai_ab.main(["--b", str(ROOT), "--time-a", "1"])
    assert "--time-a is A's budget beside B's --time; give --time too." in capsys.readouterr().err
