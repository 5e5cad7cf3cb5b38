"""The study of lost games finds the last move of the losing side that was not yet lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import ai_losses
from engine import Game, Side
from engine.search import MATE_BOUND, choose_move

# A game of an A/B match (--seed 4, 0.5 s a move): three random plies, then A attacked and the
# king escaped on the fourteenth ply.
MOVES = [
    "d2-a2",
    "d3-f3",
    "g4-g3",
    "d4-d2",
    "g3-g4",
    "d2-e2",
    "d1-e1",
    "e2-f2",
    "e1-e2",
    "f3-g3",
    "f4-f3",
    "f2-g2",
    "a2-b2",
    "g2-g1",
]
ATTACKERS_PLIES = (4, 6, 8, 10, 12)  # after the opening
NODES = 20_000


def _lost(moves: list[str]) -> bool:
    game = Game.from_moves(moves, ruleset="brandubh")
    return choose_move(game, level=5, nodes=NODES, book=False).score <= -MATE_BOUND


def test_the_losing_move_is_the_last_one_played_from_a_position_not_yet_lost() -> None:
    found = ai_losses.losing_move(MOVES, 3, Side.ATTACKERS, NODES)
    assert found is not None
    assert found.ply in ATTACKERS_PLIES
    assert found.played == MOVES[found.ply]
    assert not _lost(MOVES[: found.ply])
    assert all(_lost(MOVES[:ply]) for ply in ATTACKERS_PLIES if ply > found.ply)
    after = Game.from_moves(MOVES[: found.ply + 1], ruleset="brandubh")
    assert found.played_score == -choose_move(after, level=5, nodes=NODES, book=False).score


def test_only_the_games_a_lost_on_the_side_asked_for_are_studied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    lost = {"seed": 1, "attackers": "A", "defenders": "B", "opening": 3, "moves": MOVES}
    won_by_b = {**lost, "seed": 2, "attackers": "B", "defenders": "A"}
    games.write_text(
        "\n".join(
            json.dumps({**g, "winner": "defenders", "reason": "king_escaped"})
            for g in (lost, won_by_b)
        )
    )
    ai_losses.main([str(games), "--nodes", str(NODES)])
    out = capsys.readouterr().out
    assert "game 1 (king_escaped, 14 plies): ply " in out
    assert "game 2" not in out  # A defended and won it
    assert out.splitlines()[-1].startswith("1 games A lost as the attackers: ")


def test_a_loss_is_for_more_depth_only_if_the_deeper_search_avoids_the_move_it_finds_lost() -> None:
    lost = -(MATE_BOUND + 5)

    def kind(played: str, deep: str, played_score: int | None) -> str:
        return ai_losses.LosingMove(4, played, deep, 300, played_score, 6).kind

    assert kind("g3-g4", "g3-g2", lost) == "more depth"
    assert kind("g3-g4", "g3-g2", None) == "more depth"  # the move ended the game, lost
    assert kind("g3-g4", "g3-g4", lost) == "beyond it too"  # the deeper search plays it too
    assert kind("g3-g4", "g3-g2", 120) == "beyond it too"  # neither found lost
