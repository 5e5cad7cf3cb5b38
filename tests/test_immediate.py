"""The check of moves one move deep (wins at once, losses at once) against playing every answer."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import RULESETS, Game
from engine.board import ATTACKER, Board
from engine.evaluation import tables
from engine.geometry import geometry
from engine.immediate import Immediate, classify
from engine.moves import Move
from engine.outcome import Reason
from engine.rules import Ruleset
from engine.squares import Piece, Side, square


def _by_playing(board: Board, move: int) -> Immediate:
    """What ``move`` does one move deep, found by playing it and every answer to it."""
    mover = Side.ATTACKERS if board.turn == ATTACKER else Side.DEFENDERS
    board.push(move)
    try:
        if board.outcome is not None:
            return Immediate.WINS if board.outcome.winner is mover else Immediate.LOSES
        for answer in board.moves():
            board.push(answer)
            outcome = board.outcome
            board.pop()
            if outcome is not None and outcome.winner is mover.opponent:
                return Immediate.LOSES
        return Immediate.NEITHER
    finally:
        board.pop()


def _agrees(board: Board, rng: random.Random) -> None:
    moves = sorted(board.moves())
    sample = rng.sample(moves, min(len(moves), 12))
    found = classify(board, tables(board.rules), sample)
    for move in sample:
        assert found[move] is _by_playing(board, move), (board.rules.name, board.pieces(), move)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 100_000), ruleset=st.sampled_from(sorted(RULESETS)))
def test_check_agrees_with_playing_every_answer_in_games(seed: int, ruleset: str) -> None:
    """After random play on every board, the check says what playing every answer says."""
    rng = random.Random(seed)
    board = Game(ruleset).board
    for _ in range(rng.randrange(0, 160)):
        if board.outcome is not None:
            return
        board.push(rng.choice(sorted(board.moves())))
    if board.outcome is None:
        _agrees(board, rng)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), ruleset=st.sampled_from(sorted(RULESETS)))
def test_check_agrees_with_playing_every_answer_on_crowded_boards(seed: int, ruleset: str) -> None:
    """On random crowded or sparse boards (encirclements, blocked sides, last attackers taken),
    the check says what playing every answer says."""
    rng = random.Random(seed)
    board = _random_board(rng, RULESETS[ruleset], most_attackers=0.6, fewest_attackers=0.05)
    if board.outcome is None:
        _agrees(board, rng)


def _random_board(
    rng: random.Random, rules: Ruleset, *, fewest_attackers: float, most_attackers: float
) -> Board:
    """A board of ``rules`` with the king on a square he cannot escape from and every other
    square an attacker, a defender or empty at random (attackers' density drawn between the
    bounds, defenders' up to 0.3), either side to move."""
    geo = geometry(rules)
    king = rng.choice([sq for sq in geo.squares if not geo.escape[sq]])
    attackers = rng.uniform(fewest_attackers, most_attackers)
    defenders = rng.uniform(0.0, 0.3)
    pieces = {king: Piece.KING}
    for sq in geo.squares:
        if sq != king and not geo.restricted[sq]:
            x = rng.random()
            if x < attackers:
                pieces[sq] = Piece.ATTACKER
            elif x < attackers + defenders:
                pieces[sq] = Piece.DEFENDER
    return Board(rules, pieces, rng.choice([Side.ATTACKERS, Side.DEFENDERS]))


def _losing_reasons(board: Board, move: int) -> set[Reason]:
    """How the opponent can win at once after ``move`` (empty if he cannot)."""
    mover = Side.ATTACKERS if board.turn == ATTACKER else Side.DEFENDERS
    reasons: set[Reason] = set()
    board.push(move)
    if board.outcome is None:
        for answer in board.moves():
            board.push(answer)
            outcome = board.outcome
            board.pop()
            if outcome is not None and outcome.winner is mover.opponent:
                reasons.add(outcome.reason)
    board.pop()
    return reasons


def test_check_sees_the_rare_ends_of_a_game() -> None:
    """Encirclement, a side left without a move and the last attackers taken are each seen, on
    random boards, exactly where playing every answer finds them."""
    rare = {Reason.ENCIRCLED: 0, Reason.NO_MOVES: 0, Reason.ALL_CAPTURED: 0}
    names = ("brandubh", "brandubh-classic", "ard-ri", "tablut")
    for seed in range(20_000):
        rng = random.Random(seed)
        rules = RULESETS[names[seed % len(names)]]
        board = _random_board(rng, rules, fewest_attackers=0.02, most_attackers=0.7)
        if board.outcome is not None:
            continue
        moves = sorted(board.moves())
        found = classify(board, tables(rules), moves)
        for move in moves:
            reasons = _losing_reasons(board, move)
            if reasons and reasons <= set(rare):
                assert found[move] is Immediate.LOSES, (rules.name, board.pieces(), move)
                for reason in reasons:
                    rare[reason] += 1
            else:
                assert found[move] is _by_playing(board, move)
        if min(rare.values()) >= 3:
            return
    raise AssertionError(f"too few rare ends met: {rare}")


def _nearly_encircled(*, king_shut_in: bool = False) -> Board:
    """11x11, defenders to move: a ring of attackers around the king and six defenders, open
    at f3, where the attacker on f1 (or one beside the gap) closes it; only f5-f2 keeps a
    defender outside the ring safe. With ``king_shut_in`` the king sits on d4 between the ring
    and two attackers of their own, cut off already."""
    pieces = {}
    for i in range(2, 9):
        for sq in (square(i, 2), square(i, 8), square(2, i), square(8, i)):
            pieces[sq] = Piece.ATTACKER
    del pieces[square(5, 2)]
    pieces[square(5, 0)] = Piece.ATTACKER
    if king_shut_in:
        pieces[square(3, 3)] = Piece.KING
        pieces[square(4, 3)] = pieces[square(3, 4)] = Piece.ATTACKER
    else:
        pieces[square(4, 4)] = Piece.KING
    for f, r in ((3, 6), (7, 6), (6, 7), (7, 4), (5, 4), (4, 6)):
        pieces[square(f, r)] = Piece.DEFENDER
    return Board(RULESETS["hnefatafl"], pieces, Side.DEFENDERS)


@pytest.mark.parametrize("king_shut_in", [False, True])
def test_check_sees_an_encirclement_that_one_attacker_closes(king_shut_in: bool) -> None:
    """Moves that let an attacker close the ring around every defender are found as losing, as
    playing every answer finds them; with the king free inside, only f5-f2 escapes that."""
    board = _nearly_encircled(king_shut_in=king_shut_in)
    moves = sorted(board.moves())
    found = classify(board, tables(board.rules), moves)
    for move in moves:
        assert found[move] is _by_playing(board, move), str(Move.from_code(move))
    assert any(_losing_reasons(board, m) == {Reason.ENCIRCLED} for m in moves)
    if not king_shut_in:
        saving = [str(Move.from_code(m)) for m in moves if found[m] is not Immediate.LOSES]
        assert saving == ["f5-f2"]
