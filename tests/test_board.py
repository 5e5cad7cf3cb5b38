"""The board underneath the rules, where a slip would go unseen by the other tests: copies,
sides left without a move, the encirclement flood fill in each direction, the king's danger
with either side to move, squares off the board, and rulesets that change one parameter.

Positions list rank 1 first: ``/3t3/...`` has an attacker on d1. ``t`` attacker, ``T`` defender,
``K`` king.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from engine import (
    Game,
    IllegalMoveError,
    Outcome,
    Piece,
    Reason,
    Side,
    format_position,
    get_ruleset,
    parse_square,
    square,
    square_name,
)
from engine.board import Board

ATT = Side.ATTACKERS
DEF = Side.DEFENDERS
BRANDUBH = get_ruleset("brandubh")
WALLED_THRONE = dataclasses.replace(BRANDUBH, name="walled-throne", throne_passable=False)
"""Brandubh where nobody but the king may pass over the empty throne."""
UNARMED_KING = dataclasses.replace(BRANDUBH, name="unarmed-king", king_armed=False)
"""Brandubh where the king is never a jaw of a capture (but the throne he sits on is)."""


def position(**pieces: str) -> str:
    """A 7x7 OpenTafl position from square names: ``position(a2="K", b2="t")``."""
    symbols = {"t": Piece.ATTACKER, "T": Piece.DEFENDER, "K": Piece.KING}
    return format_position(7, {parse_square(sq): symbols[p] for sq, p in pieces.items()})


def names(squares: list[int] | tuple[int, ...]) -> list[str]:
    """Square names, in the given order."""
    return [square_name(sq) for sq in squares]


# ------------------------------------------------------------------ copies


def every_field(board: Board) -> dict[str, object]:
    """Each of the board's slots, mutable ones copied so later moves cannot change them."""
    fields: dict[str, object] = {}
    for name in Board.__slots__:
        value = getattr(board, name)
        if isinstance(value, list | set | dict):
            value = type(value)(value)
        fields[name] = value
    return fields


@pytest.mark.parametrize(
    ("moves", "to_move"),
    [
        (["d2-c2", "d3-d2", "c2-c3"], DEF),
        (["d2-c2", "d3-d2", "c2-c3", "e4-e6"], ATT),
    ],
)
def test_a_board_copy_keeps_every_field(moves: list[str], to_move: Side) -> None:
    """The copy has the same rules, pieces, king, side to move, hash, history and outcome."""
    game = Game.from_moves(moves)
    board = game.board
    copy = board.copy()
    assert copy.to_move is to_move
    assert every_field(copy) == every_field(board)
    assert copy.rules is board.rules
    assert copy.king == parse_square("d4")


def test_a_board_copy_of_a_finished_game_keeps_the_outcome() -> None:
    """A copy made after the king escaped is over too, with the same result."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    game.play("a4-a1")
    copy = game.board.copy()
    assert copy.outcome == Outcome(DEF, Reason.KING_ESCAPED)
    assert copy.moves() == []
    assert copy.king == parse_square("a1")


def test_a_board_copy_is_independent() -> None:
    """Moves made and taken back on the copy leave the original's every field as it was."""
    board = Game.from_moves(["d2-c2", "d3-d2"]).board
    before = every_field(board)
    copy = board.copy()
    for move in copy.moves():
        copy.push(move)
        copy.pop()
    copy.push(copy.moves()[0])
    assert every_field(board) == before
    copy.pop()
    assert every_field(board) == before
    assert every_field(copy) == before


# ------------------------------------------------------------------ §10 no legal move


def test_a_king_boxed_in_on_the_edge_loses_by_having_no_move() -> None:
    """§10: b7-b4 boxes the lone king on a4 (a3, a5, b4 taken): the attackers win."""
    game = Game.from_position(position(a4="K", a3="t", a5="t", b7="t"))
    game.play("b7-b4")
    assert game.outcome == Outcome(ATT, Reason.NO_MOVES)
    assert game.king_square == parse_square("a4")


def test_a_king_whose_only_move_is_into_a_corner_plays_on() -> None:
    """§3, §10: the king on a2 may still go to the corner a1, so the defenders can move."""
    game = Game.from_position(position(a2="K", b2="t", a3="t", f6="t"), to_move=DEF)
    assert game.outcome is None
    assert [str(move) for move in game.legal_moves()] == ["a2-a1"]
    game.play("a2-a1")
    assert game.outcome == Outcome(DEF, Reason.KING_ESCAPED)


def test_a_defender_whose_only_move_is_into_a_corner_has_none() -> None:
    """§3, §10: a defender on a2 cannot stop on a1, and the king is boxed: defenders lose."""
    boxed_king = {"g4": "K", "g3": "t", "g5": "t", "f4": "t"}
    game = Game.from_position(position(a2="T", b2="t", a3="t", **boxed_king), to_move=DEF)
    assert game.outcome == Outcome(ATT, Reason.NO_MOVES)
    assert game.legal_moves() == []


# ------------------------------------------------------------------ §8 encirclement


def corridor(transform: Callable[[int, int], tuple[int, int]]) -> tuple[str, str, str]:
    """A king at the closed end of a one-square-wide corridor that meets the edge at its open
    end, and an attacker that can step beside that end or close it: (position, step, close).

    Drawn with the corridor along rank 4 and open on the east edge at g4; ``transform`` turns
    or mirrors the drawing, so the flood fill must spread west, east, down or up to find him.
    """
    pieces: dict[int, Piece] = {}

    def name(file: int, rank: int) -> str:
        return square_name(square(*transform(file, rank)))

    def put(file: int, rank: int, piece: Piece) -> None:
        pieces[square(*transform(file, rank))] = piece

    for file in range(1, 6):
        put(file, 2, Piece.ATTACKER)
        put(file, 4, Piece.ATTACKER)
    put(0, 3, Piece.ATTACKER)
    put(1, 3, Piece.ATTACKER)
    put(2, 3, Piece.KING)
    put(6, 5, Piece.ATTACKER)
    position = format_position(7, pieces)
    return position, f"{name(6, 5)}-{name(6, 4)}", f"{name(6, 5)}-{name(6, 3)}"


DIRECTIONS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "west along the rank": lambda file, rank: (file, rank),
    "east along the rank": lambda file, rank: (6 - file, rank),
    "down the board": lambda file, rank: (rank, file),
    "up the board": lambda file, rank: (rank, 6 - file),
}


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_a_king_at_the_end_of_an_open_corridor_is_not_encircled(direction: str) -> None:
    """§8: the edge reaches the king through the corridor, whichever way it runs."""
    position, step, _ = corridor(DIRECTIONS[direction])
    game = Game.from_position(position)
    game.play(step)
    assert game.outcome is None


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_closing_the_corridor_encircles_the_king(direction: str) -> None:
    """§8: the attacker that closes the corridor's mouth cuts the king off: attackers win."""
    position, _, close = corridor(DIRECTIONS[direction])
    game = Game.from_position(position)
    game.play(close)
    assert game.outcome == Outcome(ATT, Reason.ENCIRCLED)


def test_the_corridors_run_the_way_their_names_say() -> None:
    """The drawings behind the corridor tests: the king and the open end of each corridor."""
    kings = {}
    for direction, transform in DIRECTIONS.items():
        position, _, close = corridor(transform)
        game = Game.from_position(position)
        assert game.king_square is not None
        kings[direction] = (square_name(game.king_square), close.split("-")[1])
    assert kings == {
        "west along the rank": ("c4", "g4"),
        "east along the rank": ("e4", "a4"),
        "down the board": ("d3", "d7"),
        "up the board": ("d5", "d1"),
    }


# ------------------------------------------------------------------ the king's danger


def test_king_in_danger_with_the_attackers_to_move() -> None:
    """King on c6 beside b6 with d7-d6 available, attackers to move: in danger, board unchanged."""
    game = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/", to_move=ATT)
    before = (game.position(), game.board.hash, dict(game.board.counts), game.to_move)
    assert game.king_in_danger()
    assert (game.position(), game.board.hash, dict(game.board.counts), game.to_move) == before


def test_king_not_in_danger_with_the_attackers_to_move() -> None:
    """With nobody able to reach d6, the attackers to move cannot take the king."""
    game = Game.from_position("/5t1/5T1/7/7/7/1tK4/7/", to_move=ATT)
    assert not game.king_in_danger()


def test_a_captured_king_is_in_no_danger() -> None:
    """Once the king is taken he is neither in danger nor on his way out."""
    game = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/", to_move=ATT)
    game.play("d7-d6")
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)
    assert not game.king_in_danger()
    assert game.king_square is None
    assert game.king_escape_routes() == []


def test_a_resigned_game_shows_no_danger_and_no_escape_route() -> None:
    """After a resignation the king that could be taken, or could escape, is neither."""
    danger = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/", to_move=ATT)
    assert danger.king_in_danger()
    danger.resign(ATT)
    assert not danger.king_in_danger()
    escape = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    assert names(escape.king_escape_routes()) == ["a1", "a7"]
    escape.resign(DEF)
    assert escape.king_escape_routes() == []


def test_the_same_position_has_the_same_hash_however_it_was_set_up() -> None:
    """A position set up with the defenders to move hashes like the same position reached by a
    move, so repetitions (§9) are counted alike."""
    played = Game.from_moves(["d2-c2"])
    set_up = Game.from_position(played.position(), to_move=DEF)
    assert set_up.board.hash == played.board.hash
    assert Game.from_position(played.position(), to_move=ATT).board.hash != played.board.hash


# ------------------------------------------------------------------ squares off the board


@pytest.mark.parametrize("off", [-1, 256, 1000, square(7, 0), square(0, 7)])
def test_piece_at_a_square_off_the_board_is_none(off: int) -> None:
    """piece_at answers None for squares beyond the 7x7 board or the square grid."""
    game = Game()
    assert game.piece_at(off) is None
    assert not game.is_restricted(off)
    assert not game.is_escape(off)


def test_piece_at_the_first_and_last_squares() -> None:
    """a1 (square 0) and g6 hold what the position puts there."""
    game = Game.from_position(position(a1="K", g6="t"))
    assert game.outcome == Outcome(DEF, Reason.KING_ESCAPED)
    assert game.king_square == 0
    assert game.piece_at(0) is Piece.KING
    assert game.piece_at(parse_square("g6")) is Piece.ATTACKER


# ------------------------------------------------------------------ a throne nobody passes


def test_a_walled_throne_cannot_be_passed() -> None:
    """§3 with throne_passable off: d2-d6 would cross the empty throne, and is refused."""
    game = Game.from_position(position(d2="t", b6="K"), ruleset=WALLED_THRONE)
    with pytest.raises(IllegalMoveError, match=r"^d4 is the throne: only the king may pass over"):
        game.play("d2-d6")
    targets = [str(move) for move in game.legal_moves_from(parse_square("d2"))]
    assert targets == ["d2-d1", "d2-a2", "d2-b2", "d2-c2", "d2-e2", "d2-f2", "d2-g2", "d2-d3"]


def test_the_throne_can_be_passed_in_brandubh() -> None:
    """§3: the same move over the empty throne is fine under the default rules."""
    game = Game.from_position(position(d2="t", b6="K"))
    assert str(game.play("d2-d6").move) == "d2-d6"


def test_the_king_passes_a_walled_throne() -> None:
    """The king may still cross (and stop on) the throne when others may not."""
    start = position(d2="K", b6="t")
    game = Game.from_position(start, to_move=DEF, ruleset=WALLED_THRONE)
    assert str(game.play("d2-d6").move) == "d2-d6"
    game = Game.from_position(start, to_move=DEF, ruleset=WALLED_THRONE)
    assert str(game.play("d2-d4").move) == "d2-d4"


def test_a_defender_held_at_a_walled_throne_has_no_move() -> None:
    """§10: a defender on d3 hemmed in beside a walled throne, the king boxed: defenders lose."""
    start = position(d3="T", c3="t", e3="t", d2="t", g4="K", g3="t", g5="t", f4="t")
    walled = Game.from_position(start, to_move=DEF, ruleset=WALLED_THRONE)
    assert walled.outcome == Outcome(ATT, Reason.NO_MOVES)
    passable = Game.from_position(start, to_move=DEF)
    assert passable.outcome is None
    assert [str(move) for move in passable.legal_moves()] == ["d3-d5", "d3-d6", "d3-d7"]


def test_a_defender_beside_a_walled_throne_moves_away_from_it() -> None:
    """The walled throne stops a defender's path north, not the rest of its moves."""
    start = position(d3="T", c3="t", e3="t", g4="K", g3="t", g5="t", f4="t")
    game = Game.from_position(start, to_move=DEF, ruleset=WALLED_THRONE)
    assert game.outcome is None
    assert [str(move) for move in game.legal_moves()] == ["d3-d1", "d3-d2"]


# ------------------------------------------------------------------ an unarmed king


def test_an_unarmed_king_moving_captures_nothing() -> None:
    """§4 with king_armed off: the king closing c2-d2-e2 does not take the attacker on d2;
    the default armed king does."""
    start = position(c4="K", d2="t", e2="T", g6="t")
    unarmed = Game.from_position(start, to_move=DEF, ruleset=UNARMED_KING)
    assert unarmed.play("c4-c2").captures == ()
    armed = Game.from_position(start, to_move=DEF)
    assert names(armed.play("c4-c2").captures) == ["d2"]


def test_an_unarmed_king_is_no_jaw_for_a_defender() -> None:
    """§4 with king_armed off: a defender closing on d2 against the king on c2 takes nothing;
    with the default armed king, the same move captures."""
    start = position(c2="K", d2="t", e4="T", g6="t")
    unarmed = Game.from_position(start, to_move=DEF, ruleset=UNARMED_KING)
    assert unarmed.play("e4-e2").captures == ()
    armed = Game.from_position(start, to_move=DEF)
    assert names(armed.play("e4-e2").captures) == ["d2"]


def test_the_unarmed_kings_throne_is_still_a_jaw() -> None:
    """§5: an attacker beside the throne falls to a defender even when the king on it is
    unarmed, the throne being hostile to attackers."""
    start = position(d4="K", e4="t", f6="T", b6="t")
    game = Game.from_position(start, to_move=DEF, ruleset=UNARMED_KING)
    assert names(game.play("f6-f4").captures) == ["e4"]


@pytest.mark.parametrize("name", ["a1", "g1", "a7", "g7"])
def test_every_corner_is_restricted_and_an_escape(name: str) -> None:
    """§3, §7: each corner, a1 (square 0) included, is for the king only and his way out."""
    game = Game()
    assert game.is_restricted(parse_square(name))
    assert game.is_escape(parse_square(name))
    assert parse_square(name) in game.corners


def test_the_throne_is_restricted_but_no_escape() -> None:
    """§3: the throne d4 is for the king only, and reaching it wins nothing."""
    game = Game()
    assert game.throne == parse_square("d4")
    assert game.is_restricted(parse_square("d4"))
    assert not game.is_escape(parse_square("d4"))
    assert not game.is_restricted(parse_square("d3"))
