"""The evaluation's capture-threat check: it must agree with the board's own capture rules; and
the fitted evaluation's tables must hold the hand-set terms when given their weights.

Positions are OpenTafl strings, first row rank 1: ``t`` attacker, ``T`` defender, ``K`` king.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import RULESETS, Board, Game, Side, evaluation
from engine.board import ATTACKER, DEFENDER, KING
from engine.evaluation import (
    RULESETS_CACHED,
    SQUARE_CLASSES,
    Tables,
    Tuned,
    can_capture,
    capture_moves,
    tables,
)
from engine.rules import BRANDUBH


def _threat(board: Board) -> bool:
    """What the evaluation's check says of the side to move."""
    if board.turn == ATTACKER:
        return can_capture(board, tables(board.rules), ATTACKER)
    return can_capture(board, tables(board.rules), DEFENDER)


def _some_move_captures(board: Board) -> bool:
    """What the board says: whether a legal move of the side to move takes a piece."""
    for move in board.moves():
        captured = board.push(move)
        board.pop()
        if any(square != board.king for square, _ in captured):
            return True
    return False


@pytest.mark.parametrize(
    ("position", "to_move", "expected"),
    [
        # d1-d3 takes the defender on c3 against the attacker on b3.
        ("/3t3/7/1tT4/7/7/5K1/7/", Side.ATTACKERS, True),
        # Near miss: the attacker on g2 cannot reach d3.
        ("/7/6t/1tT4/7/7/5K1/7/", Side.ATTACKERS, False),
        # e1-c1 takes the attacker on b1 against the hostile corner a1.
        ("/1t2T2/7/7/7/7/5K1/7/", Side.DEFENDERS, True),
        # Near miss: a defender on d2 cannot reach c1 (it would have to pass b1's rank-mate d1).
        ("/1t1t3/3T3/7/7/7/5K1/7/", Side.DEFENDERS, False),
        # The armed king is the hammer: c6-c5 takes the attacker on c4 against the defender on c3.
        ("/7/7/2T4/2t4/7/2K4/7/", Side.DEFENDERS, True),
    ],
)
def test_capture_threat_matches_the_rules(position: str, to_move: Side, expected: bool) -> None:
    board = Game.from_position(position, to_move=to_move).board
    assert _threat(board) is expected
    assert _some_move_captures(board) is expected


@pytest.mark.parametrize("ruleset", ["brandubh", "brandubh-historical", "tablut"])
def test_capture_threat_agrees_with_the_board_in_random_games(ruleset: str) -> None:
    """Along random games, the threat check says yes exactly when some move captures a piece."""
    rng = random.Random(ruleset)
    checked = 0
    for _ in range(12):
        game = Game(ruleset=ruleset)
        board = game.board
        while board.outcome is None and len(board.stack) < 80:
            assert _threat(board) is _some_move_captures(board), board.pieces
            checked += 1
            board.push(rng.choice(board.moves()))
    assert checked > 300


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_quiescence_sees_every_capturing_move(ruleset: str) -> None:
    """Along random games, every move that captures a piece other than the king is among the
    capture moves the search plays out beyond its horizon."""
    rng = random.Random(ruleset)
    t = tables(Game(ruleset=ruleset).board.rules)
    capturing_positions = 0
    for _ in range(6):
        board = Game(ruleset=ruleset).board
        while board.outcome is None and len(board.stack) < 80:
            listed = set(capture_moves(board, t))
            for move in board.moves():
                captured = board.push(move)
                board.pop()
                if any(victim != KING for _, victim in captured):
                    assert move in listed, (board.pieces(), move)
                    capturing_positions += 1
            board.push(rng.choice(board.moves()))
    assert capturing_positions > 0


def test_the_fitted_evaluation_with_the_hand_set_weights_is_the_hand_set_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fitted evaluation's code, given the hand-set weights as tables (material, corner
    distance and guards by square class), scores every position of random brandubh games as the
    hand-set evaluation does."""
    guard = {(0, 1): -evaluation.GUARD_NEXT_TO_CORNER, (1, 1): -evaluation.GUARD_DIAGONAL}
    hand_set = Tuned(
        open_line=evaluation.OPEN_LINE,
        two_move_route=evaluation.TWO_MOVE_ROUTE,
        king_mobility=evaluation.KING_MOBILITY,
        king_pressure=-evaluation.KING_PRESSURE,
        tempo=0,
        attacker=tuple(-evaluation.ATTACKER_VALUE + guard.get(c, 0) for c in SQUARE_CLASSES),
        defender=tuple(evaluation.DEFENDER_VALUE for _ in SQUARE_CLASSES),
        king=tuple(-evaluation.CORNER_DISTANCE * (a + b) for a, b in SQUARE_CLASSES),
    )
    rules = RULESETS["brandubh"]
    monkeypatch.setitem(evaluation.TUNED, "brandubh", hand_set)
    fitted = Tables(rules)
    monkeypatch.delitem(evaluation.TUNED, "brandubh", raising=False)
    plain = Tables(rules)
    assert fitted.tuned is hand_set
    assert plain.tuned is None
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        board = Game(ruleset="brandubh").board
        while board.outcome is None and len(board.stack) < 80:
            assert evaluation.evaluate(board, fitted) == evaluation.evaluate(board, plain)
            checked += 1
            board.push(rng.choice(board.moves()))
    assert checked > 1000


@pytest.mark.parametrize("ruleset", sorted(set(RULESETS) - {"brandubh"}))
def test_only_brandubh_has_a_fitted_evaluation(ruleset: str) -> None:
    """Every other ruleset keeps the hand-set evaluation."""
    assert tables(RULESETS[ruleset]).tuned is None


def test_each_edge_without_an_attacker_counts_for_the_defenders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On brandubh the fitted evaluation adds ``empty_edge`` for each edge with no attacker
    between its corners (counted here square by square), in the defenders' favour; the boards
    whose every edge square is an escape square have no such edges."""
    rules = RULESETS["brandubh"]
    weighted = Tables(rules)
    assert weighted.tuned is not None
    assert weighted.tuned.empty_edge == evaluation.EMPTY_EDGE > 0
    without = Tuned(
        **{name: getattr(weighted.tuned, name) for name in Tuned.__slots__ if name != "empty_edge"}
    )
    monkeypatch.setitem(evaluation.TUNED, "brandubh", without)
    plain = Tables(rules)
    rng = random.Random(9)
    seen = set()
    for _ in range(40):
        board = Game(ruleset="brandubh").board
        while board.outcome is None and len(board.stack) < 80:
            files = {sq & 15 for sq in board.attackers}
            ranks = {sq >> 4 for sq in board.attackers}
            empty = sum(side not in files for side in (0, 6)) + sum(
                side not in ranks for side in (0, 6)
            )
            seen.add(empty)
            difference = evaluation.evaluate(board, weighted) - evaluation.evaluate(board, plain)
            defenders_view = difference if board.turn == DEFENDER else -difference
            assert defenders_view == evaluation.EMPTY_EDGE * empty
            board.push(rng.choice(board.moves()))
    assert {0, 1, 2} <= seen
    assert all(not tables(r).edges for n, r in RULESETS.items() if n in ("tablut", "ard-ri"))


@pytest.mark.parametrize("ruleset", ["brandubh", "tablut"])
def test_a_window_gives_true_bounds_of_the_score(ruleset: str) -> None:
    """With a window the evaluation may skip the capture threat, but what it returns is the
    score inside the window, an upper bound of it at or below ``alpha`` and a lower bound at or
    above ``beta`` — on the fitted (brandubh) and the hand-set (tablut) evaluation."""
    t = tables(RULESETS[ruleset])
    rng = random.Random(5)
    outside = 0
    for _ in range(10):
        board = Game(ruleset=ruleset).board
        while board.outcome is None and len(board.stack) < 60:
            score = evaluation.evaluate(board, t)
            for _ in range(4):
                alpha = score + rng.randint(-90, 60)
                beta = alpha + rng.choice((1, 1, 30, 200))
                bound = evaluation.evaluate(board, t, alpha, beta)
                if bound <= alpha:
                    assert score <= bound
                elif bound >= beta:
                    assert score >= bound
                else:
                    assert bound == score
                outside += not alpha < bound < beta
            board.push(rng.choice(board.moves()))
    assert outside > 100


def test_the_tables_of_at_most_a_bound_of_rulesets_are_kept() -> None:
    """Searches under more rulesets than the cache keeps (rulesets records carry) keep the
    tables of the last few, not of every ruleset ever searched."""
    tables.cache_clear()
    for number in range(RULESETS_CACHED + 4):
        tables(replace(BRANDUBH, name=f"record ruleset {number}"))
    assert tables.cache_info().currsize == RULESETS_CACHED
    tables.cache_clear()
