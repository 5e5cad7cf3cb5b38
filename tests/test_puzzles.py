"""Brandubh puzzles the full-strength computer opponent must solve within a fixed node budget.

Each position is an OpenTafl string (first row listed is rank 1). Diagrams show rank 7 at the
top: ``t`` attacker, ``T`` defender, ``K`` king, ``.`` empty. The assertions check what the
solution must achieve rather than one move, so any correct solution passes.
"""

from __future__ import annotations

from engine import Game, Side
from engine.search import choose_move

BUDGET = 60_000
"""Positions the search may visit per puzzle (deterministic: no clock involved)."""


def _solve(position: str, to_move: Side) -> Game:
    game = Game.from_position(position, to_move=to_move)
    result = choose_move(game, level=5, nodes=BUDGET, seed=0)
    game.play(result.move)
    return game


def _can_win_at_once(game: Game) -> bool:
    """Whether the side to move has a move that ends the game in its favour."""
    mover = game.to_move
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        if trial.outcome is not None and trial.outcome.winner is mover:
            return True
    return False


def test_king_escapes_in_one_along_the_edge() -> None:
    """King on a3 with a2 and a1 empty: he goes to the corner.

    . . . t . . .
    . . . t . . .
    . . . T . . .
    t t T . T t t
    K . . T . . .
    . . . t . . .
    . . . . . t .
    """
    game = _solve("/5t1/3t3/K2T3/ttT1Ttt/3T3/3t3/3t3/", Side.DEFENDERS)
    assert game.outcome is not None
    assert game.outcome.winner is Side.DEFENDERS


def test_king_escapes_in_one_along_the_top_rank() -> None:
    """King on c7, b7 empty: c7-a7 wins, while f7 bars the way to g7.

    . . K . . t .
    . . . t . . .
    . . . T . . .
    t t T . T t t
    . . . T . . .
    . . . t . . .
    . . . t . . .
    """
    game = _solve("/3t3/3t3/3T3/ttT1Ttt/3T3/3t3/2K2t1/", Side.DEFENDERS)
    assert game.outcome is not None
    assert game.outcome.winner is Side.DEFENDERS


def test_king_escapes_in_two_by_a_double_threat() -> None:
    """King c3 to c1 opens lines to both a1 and g1; one attacker move cannot close both.

    . . . t . . .
    . . . t . . .
    . . . . . . .
    t . . . T t t
    . . K T . . .
    . . . . . t .
    . . . . . . .
    """
    game = _solve("/7/5t1/2KT3/t3Ttt/7/3t3/3t3/", Side.DEFENDERS)
    assert game.outcome is None
    for reply in game.legal_moves():
        after = game.copy()
        after.play(reply)
        assert after.outcome is None, f"{reply} ends the game"
        assert _can_win_at_once(after), f"{reply} holds the king"


def test_attackers_capture_the_king_in_one() -> None:
    """King on c5 beside an attacker on b5: an attacker to d5 or a pincer on c4/c6 takes him.

    . . . t . . .
    . . . . . . .
    . t K . T . .
    t . . . . t t
    . . . T . . .
    . . . t . . .
    . . . t . . .
    """
    game = _solve("/3t3/3t3/3T3/t4tt/1tK1T2/7/3t3/", Side.ATTACKERS)
    assert game.outcome is not None
    assert game.outcome.winner is Side.ATTACKERS


def test_attackers_block_the_only_open_line_to_a_corner() -> None:
    """King on c1 with b1 empty threatens a1; the attackers must put a piece on b1.

    . . . t . . .
    . . . . . . .
    . . . . T . .
    t t . . . t .
    . . . T . . .
    . . . . . . .
    . . K . t . .
    """
    game = _solve("/2K1t2/7/3T3/tt3t1/4T2/7/3t3/", Side.ATTACKERS)
    assert game.outcome is None
    assert not _can_win_at_once(game)


def test_defenders_save_the_threatened_king() -> None:
    """An attacker reaching d5 would take the king on c5 against b5; the defenders prevent it.

    . . . t . . .
    . . . . . . .
    . t K . . . .
    t . . . T t t
    . . . T . . .
    . . . t . . .
    . . . t . . .
    """
    game = _solve("/3t3/3t3/3T3/t3Ttt/1tK4/7/3t3/", Side.DEFENDERS)
    assert game.outcome is None
    assert not _can_win_at_once(game)


def test_attackers_complete_the_encirclement() -> None:
    """A ring of attackers round the king's group has one gap, f4; g4-f4 closes it.

    . . . . . . .
    . . . t . . .
    . . t T t . .
    . t . K . . t
    . . t . t . .
    . . . t . . .
    . . . . . . .
    """
    game = _solve("/7/3t3/2t1t2/1t1K2t/2tTt2/3t3/7/", Side.ATTACKERS)
    assert game.outcome is not None
    assert game.outcome.winner is Side.ATTACKERS
