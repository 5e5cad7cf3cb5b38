"""Invariants over random games (hypothesis drives the seeds of random playouts)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    Game,
    IllegalMoveError,
    Move,
    Piece,
    Side,
    format_position,
    parse_position,
    read_record,
    write_record,
)
from engine.board import ATTACKER, DEFENDER, EMPTY, KING, Board

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SMALL = st.sampled_from(["brandubh", "brandubh-classic", "brandubh-historical", "ard-ri"])
ANY = st.sampled_from(list(RULESETS))
FEW = settings(max_examples=100, deadline=None)
MAX_PLIES = {7: 200, 9: 120, 11: 80, 13: 60, 15: 50}


def playout(seed: int, ruleset: str) -> Iterator[Game]:
    """Yield the game before its first move and after every random move until it ends."""
    rng = random.Random(seed)
    game = Game(ruleset)
    limit = MAX_PLIES[game.ruleset.size]
    yield game
    while game.outcome is None and game.ply < limit:
        game.play(rng.choice(game.legal_moves()))
        yield game


def state(board: Board) -> tuple[object, ...]:
    """Everything make/unmake must restore, down to the search's bitboards."""
    return (
        board.cells[:],
        board.turn,
        board.hash,
        dict(board.counts),
        board.outcome,
        board.king,
        board.att_bb,
        board.def_bb,
        frozenset(board.attackers),
        frozenset(board.defenders),
        len(board.stack),
    )


def zobrist_from_scratch(board: Board) -> int:
    """The position's Zobrist hash recomputed from the cells and the side to move."""
    zobrist = board.geo.zobrist
    h = 0
    for sq in board.geo.squares:
        if board.cells[sq]:
            h ^= zobrist[board.cells[sq]][sq]
    return h ^ (board.geo.z_side if board.turn == DEFENDER else 0)


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_a_whole_random_game_round_trips_through_its_record(seed: int, ruleset: str) -> None:
    """write_record then read_record gives back the same moves, position and outcome."""
    *_, game = playout(seed, ruleset)
    back = read_record(write_record(game))
    assert back.records == game.records
    assert back.position() == game.position()
    assert back.outcome == game.outcome


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_every_position_and_move_round_trips_through_text(seed: int, ruleset: str) -> None:
    """Each position string and each move's text read back as the same position and move."""
    for game in playout(seed, ruleset):
        text = game.position()
        size, pieces = parse_position(text)
        assert format_position(size, pieces) == text
        assert pieces == game.pieces()
        record = game.last_record
        if record is not None:
            assert Move.parse(str(record), size) == record.move


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_no_piece_but_the_king_stands_on_a_restricted_square(seed: int, ruleset: str) -> None:
    """Throne and corners only ever hold the king (or nothing)."""
    for game in playout(seed, ruleset):
        board = game.board
        for sq in board.geo.squares:
            if board.geo.restricted[sq]:
                assert board.cells[sq] in (EMPTY, KING)


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_piece_counts_only_fall_and_by_the_captures(seed: int, ruleset: str) -> None:
    """Each move removes exactly the pieces it reports captured, and never adds one."""
    previous: Counter[Piece] | None = None
    for game in playout(seed, ruleset):
        counts = Counter(game.pieces().values())
        if previous is not None and game.last_record is not None:
            lost = sum((previous - counts).values())
            assert lost == len(game.last_record.captures)
            assert all(counts[p] <= previous[p] for p in Piece)
        previous = counts


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_undo_restores_position_counts_and_hash(seed: int, ruleset: str) -> None:
    """Playing any legal move and undoing it leaves the board exactly as it was."""
    rng = random.Random(seed ^ 0x5EED)
    for game in playout(seed, ruleset):
        if game.outcome is not None:
            break
        before = state(game.board)
        game.play(rng.choice(game.legal_moves()))
        game.undo()
        assert state(game.board) == before


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_undoing_a_whole_game_returns_to_the_start(seed: int, ruleset: str) -> None:
    """Undoing every move of a random game restores the starting board and its counts."""
    start = state(Game(ruleset).board)
    *_, game = playout(seed, ruleset)
    while game.ply:
        game.undo()
    assert state(game.board) == start


@FEW
@given(seed=SEEDS, ruleset=ANY)
def test_incremental_state_matches_a_recount(seed: int, ruleset: str) -> None:
    """Hash, piece sets, bitboards, king square and repetition counts equal a recount."""
    seen: Counter[tuple[str, Side]] = Counter()
    for game in playout(seed, ruleset):
        board = game.board
        seen[(game.position(), game.to_move)] += 1
        assert board.hash == zobrist_from_scratch(board)
        cells = board.cells
        attackers = {sq for sq in board.geo.squares if cells[sq] == ATTACKER}
        defenders = {sq for sq in board.geo.squares if cells[sq] in (DEFENDER, KING)}
        assert board.attackers == attackers
        assert board.defenders == defenders
        assert board.att_bb == sum(1 << sq for sq in attackers)
        assert board.def_bb == sum(1 << sq for sq in defenders)
        kings = [sq for sq in board.geo.squares if cells[sq] == KING]
        assert kings == ([board.king] if board.king >= 0 else [])
        assert game.repetition_count() == seen[(game.position(), game.to_move)]


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, ruleset=SMALL, sample=st.integers(min_value=0, max_value=7))
def test_legal_moves_are_exactly_the_moves_play_accepts(
    seed: int, ruleset: str, sample: int
) -> None:
    """At every eighth ply, every from-to pair is accepted by play exactly when listed."""
    for game in playout(seed, ruleset):
        if game.ply % 8 != sample or game.outcome is not None:
            continue
        squares = game.board.geo.squares
        listed = set(game.legal_moves())
        accepted = set()
        for frm in squares:
            for to in squares:
                move = Move(frm, to)
                try:
                    game.play(move)
                except IllegalMoveError:
                    continue
                game.undo()
                accepted.add(move)
        assert accepted == listed
