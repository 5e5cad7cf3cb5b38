"""Every rule of the default ``brandubh`` ruleset (docs/rules.md §1-10): the case that
triggers it and the near miss that does not, each from an OpenTafl position.

Positions list rank 1 first: ``/3t3/...`` has an attacker on d1. ``t`` attacker, ``T`` defender,
``K`` king.
"""

from __future__ import annotations

import pytest

from engine import (
    Game,
    IllegalMoveError,
    Outcome,
    Piece,
    Reason,
    Side,
    parse_square,
    square_name,
)

ATT = Side.ATTACKERS
DEF = Side.DEFENDERS


def at(game: Game, name: str) -> Piece | None:
    """The piece on the square called ``name``."""
    return game.piece_at(parse_square(name))


def captured(game: Game, move: str) -> list[str]:
    """Play ``move`` and return the names of the squares it captured, in board order."""
    return [square_name(sq) for sq in game.play(move).captures]


def refusal(game: Game, move: str) -> str:
    """The message of the ``IllegalMoveError`` that ``move`` raises."""
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    return str(info.value)


# ------------------------------------------------------------------ §1-2 turns and movement


def test_attackers_move_first_and_turns_alternate() -> None:
    """The attackers open the game; after their move it is the defenders' turn."""
    game = Game()
    assert game.to_move is ATT
    game.play("d2-c2")
    assert game.to_move is DEF
    game.play("d3-d2")
    assert game.to_move is ATT


def test_a_piece_moves_like_a_rook_and_stops_before_other_pieces() -> None:
    """An attacker on b2 reaches every empty square along its rank and file up to a piece."""
    game = Game.from_position("/7/1t2T2/7/7/1T5/5K1/7/")
    targets = {str(move).split("-")[1] for move in game.legal_moves_from(parse_square("b2"))}
    assert targets == {"b1", "b3", "b4", "a2", "c2", "d2"}


def test_a_piece_cannot_jump_over_another() -> None:
    """b2-b6 would jump the defender on b5, and is refused naming b5."""
    game = Game.from_position("/7/1t2T2/7/7/1T5/5K1/7/")
    assert "b5 is in the way" in refusal(game, "b2-b6")


def test_a_piece_cannot_move_diagonally() -> None:
    """b2-c3 is refused as not a straight line."""
    game = Game.from_position("/7/1t2T2/7/7/1T5/5K1/7/")
    assert "not a straight line" in refusal(game, "b2-c3")


# ------------------------------------------------------------------ §3 restricted squares


def test_an_attacker_cannot_stop_on_the_throne() -> None:
    """d2-d4 is refused: only the king may stop on the throne."""
    game = Game.from_position("/7/3t3/7/7/7/1K3T1/7/")
    assert refusal(game, "d2-d4") == "d4 is the throne: only the king may stop there."


def test_an_attacker_may_pass_over_the_empty_throne() -> None:
    """d2-d6 crosses the empty throne and lands on d6."""
    game = Game.from_position("/7/3t3/7/7/7/1K3T1/7/")
    game.play("d2-d6")
    assert at(game, "d6") is Piece.ATTACKER
    assert at(game, "d4") is None


def test_a_defender_may_pass_over_the_empty_throne() -> None:
    """d6-d2 crosses the empty throne for a defender too."""
    game = Game.from_position("/7/t6/7/7/7/1K1T3/7/", to_move=DEF)
    game.play("d6-d2")
    assert at(game, "d2") is Piece.DEFENDER


def test_nobody_passes_the_throne_while_the_king_sits_on_it() -> None:
    """With the king on d4, d2-d6 is refused naming the king in the way."""
    game = Game.from_position("/7/3t3/7/3K3/7/5T1/7/")
    assert refusal(game, "d2-d6") == "d4 is in the way: it holds the king."


def test_an_attacker_cannot_stop_on_a_corner() -> None:
    """a3-a1 is refused: a1 is a corner."""
    game = Game.from_position("/7/7/t6/7/7/3K3/1T5/")
    assert refusal(game, "a3-a1") == "a1 is a corner: only the king may stop there."


def test_a_defender_cannot_stop_on_a_corner() -> None:
    """b7-a7 is refused for a defender as well."""
    game = Game.from_position("/7/7/t6/7/7/3K3/1T5/", to_move=DEF)
    assert refusal(game, "b7-a7") == "a7 is a corner: only the king may stop there."


def test_the_king_may_return_to_the_throne() -> None:
    """The king on d6 may move back onto the empty throne."""
    game = Game.from_position("/7/t4T1/7/7/7/3K3/7/", to_move=DEF)
    game.play("d6-d4")
    assert game.king_square == parse_square("d4")
    assert game.outcome is None


def test_the_king_may_pass_over_the_throne() -> None:
    """The king on d5 crosses the empty throne to d2."""
    game = Game.from_position("/7/t4T1/7/7/3K3/7/7/", to_move=DEF)
    game.play("d5-d2")
    assert game.king_square == parse_square("d2")


# ------------------------------------------------------------------ §4 custodial capture


def test_closing_a_pincer_captures() -> None:
    """d1-d3 closes b3-d3 around the defender on c3, which leaves the board."""
    game = Game.from_position("/3t3/7/1tT4/7/7/5K1/7/")
    assert captured(game, "d1-d3") == ["c3"]
    assert at(game, "c3") is None


def test_a_pincer_needs_a_second_jaw() -> None:
    """With b3 empty, d1-d3 next to the defender on c3 captures nothing."""
    game = Game.from_position("/3t3/7/2T4/7/7/5K1/7/")
    assert captured(game, "d1-d3") == []
    assert at(game, "c3") is Piece.DEFENDER


def test_moving_into_a_pincer_is_safe() -> None:
    """A defender may step between the attackers on b3 and d3 and stays."""
    game = Game.from_position("/7/7/1t1t3/7/7/2T2K1/7/", to_move=DEF)
    assert captured(game, "c6-c3") == []
    assert at(game, "c3") is Piece.DEFENDER


def test_one_move_captures_three_pieces() -> None:
    """c1-c3 closes three pincers at once: b3, d3 and c4 all fall."""
    game = Game.from_position("/2t4/7/tT1Tt2/2T4/2t3K/7/7/")
    assert captured(game, "c1-c3") == ["b3", "d3", "c4"]
    assert str(game.last_record) == "c1-c3xb3/d3/c4"


def test_the_king_captures_when_he_moves() -> None:
    """The armed king closes a pincer: c7-c5 takes the attacker on d5 against e5."""
    game = Game.from_position("/7/7/7/7/3tT2/7/2K4/", to_move=DEF)
    assert captured(game, "c7-c5") == ["d5"]


def test_the_king_is_the_standing_jaw_of_a_pincer() -> None:
    """A defender's c7-c5 takes the attacker on d5 against the king on e5."""
    game = Game.from_position("/7/7/7/7/3tK2/7/2T4/", to_move=DEF)
    assert captured(game, "c7-c5") == ["d5"]


def test_the_king_alone_captures_nothing() -> None:
    """With e5 empty, the king's c7-c5 next to the attacker on d5 captures nothing."""
    game = Game.from_position("/7/5T1/7/7/3t3/7/2K4/", to_move=DEF)
    assert captured(game, "c7-c5") == []


# ------------------------------------------------------------------ §5 hostility


def test_a_corner_is_hostile_to_attackers() -> None:
    """c3-c1 takes the attacker on b1 against the corner a1."""
    game = Game.from_position("/1t5/7/2T4/7/7/5K1/7/", to_move=DEF)
    assert captured(game, "c3-c1") == ["b1"]


def test_a_corner_is_hostile_to_defenders() -> None:
    """c3-c1 takes the defender on b1 against the corner a1."""
    game = Game.from_position("/1T5/7/2t4/7/7/5K1/7/")
    assert captured(game, "c3-c1") == ["b1"]


def test_the_empty_throne_is_hostile_to_attackers() -> None:
    """f6-d6 takes the attacker on d5 against the empty throne."""
    game = Game.from_position("/7/1K5/7/7/3t3/5T1/7/", to_move=DEF)
    assert captured(game, "f6-d6") == ["d5"]


def test_the_occupied_throne_is_hostile_to_attackers() -> None:
    """With the king on the throne, f6-d6 still takes the attacker on d5."""
    game = Game.from_position("/7/7/7/3K3/3t3/5T1/7/", to_move=DEF)
    assert captured(game, "f6-d6") == ["d5"]


def test_the_empty_throne_is_hostile_to_defenders() -> None:
    """f6-d6 takes the defender on d5 against the empty throne."""
    game = Game.from_position("/7/1K5/7/7/3T3/5t1/7/")
    assert captured(game, "f6-d6") == ["d5"]


def test_the_throne_with_the_king_on_it_is_not_hostile_to_defenders() -> None:
    """With the king on the throne, f6-d6 does not take the defender on d5."""
    game = Game.from_position("/7/7/7/3K3/3T3/5t1/7/")
    assert captured(game, "f6-d6") == []
    assert at(game, "d5") is Piece.DEFENDER


def test_the_board_edge_is_not_hostile_to_defenders() -> None:
    """b6-b4 next to the defender on a4 captures nothing: the edge is no jaw."""
    game = Game.from_position("/7/5K1/7/T6/7/1t5/7/")
    assert captured(game, "b6-b4") == []


def test_the_board_edge_is_not_hostile_to_attackers() -> None:
    """b6-b4 next to the attacker on a4 captures nothing: the edge is no jaw."""
    game = Game.from_position("/7/5K1/7/t6/7/1T5/7/", to_move=DEF)
    assert captured(game, "b6-b4") == []


# ------------------------------------------------------------------ §6 capturing the king


def test_the_king_on_the_throne_falls_to_four_attackers() -> None:
    """d6-d5 completes the ring of four around the throne: the attackers win."""
    game = Game.from_position("/7/7/3t3/2tKt2/7/3t3/7/")
    assert captured(game, "d6-d5") == ["d4"]
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)
    assert game.king_square is None


def test_the_king_on_the_throne_survives_three_attackers_and_a_defender() -> None:
    """With a defender on d5, the third attacker's f4-e4 does not take the king."""
    game = Game.from_position("/7/7/3t3/2tK1t1/3T3/7/7/")
    game.play("f4-e4")
    assert game.outcome is None
    assert at(game, "d4") is Piece.KING


def test_the_king_on_the_throne_survives_two_attackers() -> None:
    """Two attackers on opposite sides of the throne (d3, d5) do not take the king."""
    game = Game.from_position("/7/T6/3t3/3K3/7/3t3/7/")
    game.play("d6-d5")
    assert game.outcome is None


def test_the_king_beside_the_throne_falls_along_the_other_line() -> None:
    """King on d5: e7-e5 with an attacker on c5 takes him."""
    game = Game.from_position("/7/T6/7/7/2tK3/7/4t2/")
    game.play("e7-e5")
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


def test_the_throne_does_not_help_capture_the_king_beside_it() -> None:
    """King on d5: f6-d6 pins him against the empty throne, which is not hostile to him."""
    game = Game.from_position("/7/1T5/7/7/3K3/5t1/7/")
    assert captured(game, "f6-d6") == []
    assert game.outcome is None


def test_the_king_away_from_the_throne_falls_to_two_attackers() -> None:
    """King on c6 with an attacker on b6: d7-d6 takes him."""
    game = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/")
    game.play("d7-d6")
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


def test_an_attacker_and_a_defender_do_not_take_the_king() -> None:
    """King on c6 with a defender on b6: d7-d6 does not take him."""
    game = Game.from_position("/7/7/7/7/7/1TK4/3t3/")
    game.play("d7-d6")
    assert game.outcome is None


def test_the_king_on_the_edge_is_not_pinned_against_it() -> None:
    """King on a5: b7-b5 beside him captures nothing, the edge is not hostile."""
    game = Game.from_position("/7/5T1/7/7/K6/7/1t5/")
    game.play("b7-b5")
    assert game.outcome is None


def test_the_king_falls_against_a_corner() -> None:
    """King on b1: c3-c1 pins him against the corner a1 and the attackers win."""
    game = Game.from_position("/1K5/7/2t4/7/7/5T1/7/")
    assert captured(game, "c3-c1") == ["b1"]
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


# ------------------------------------------------------------------ §7 escape


def test_the_king_on_a_corner_wins() -> None:
    """a4-a1 brings the king to a corner: the defenders win."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    game.play("a4-a1")
    assert game.outcome == Outcome(DEF, Reason.KING_ESCAPED)
    assert game.legal_moves() == []


def test_the_king_on_an_edge_square_has_not_escaped() -> None:
    """c4-c1 reaches the edge but not a corner: the game goes on."""
    game = Game.from_position("/7/4T1t/7/2K4/7/7/7/", to_move=DEF)
    game.play("c4-c1")
    assert game.outcome is None


# ------------------------------------------------------------------ §8 encirclement

_OPEN_RING = "/7/3t3/2tTt2/1tTKT1t/2tTt2/3t3/7/"


def test_closing_a_ring_around_every_defender_wins() -> None:
    """g4-f4 closes the diamond of attackers around the king and all four defenders."""
    game = Game.from_position(_OPEN_RING)
    game.play("g4-f4")
    assert game.outcome == Outcome(ATT, Reason.ENCIRCLED)


def test_a_ring_with_a_gap_does_not_win() -> None:
    """g4-g5 leaves f4 open, so the defenders can still reach the edge."""
    game = Game.from_position(_OPEN_RING)
    game.play("g4-g5")
    assert game.outcome is None


def test_one_defender_outside_the_ring_prevents_encirclement() -> None:
    """The same ring closed with a defender on b7 outside it: the game goes on."""
    game = Game.from_position("/7/3t3/2tTt2/1tTKT1t/2tTt2/3t3/1T5/")
    game.play("g4-f4")
    assert game.outcome is None


# ------------------------------------------------------------------ §9 repetition

_SHUFFLE = ["b2-b3", "f6-f5", "b3-b2", "f5-f6"]


def test_the_third_occurrence_loses_for_the_player_who_makes_it() -> None:
    """The defender's f5-f6 brings the start position back a third time: defenders lose."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/")
    for move in _SHUFFLE * 2:
        game.play(move)
    assert game.outcome == Outcome(ATT, Reason.REPETITION)


def test_the_attackers_lose_a_third_repetition_they_make() -> None:
    """With the defenders starting the shuffle, the attackers' move makes the third repetition."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/", to_move=DEF)
    for move in ["f6-f5", "b2-b3", "f5-f6", "b3-b2"] * 2:
        game.play(move)
    assert game.outcome == Outcome(DEF, Reason.REPETITION)


def test_a_second_occurrence_does_not_end_the_game() -> None:
    """After one shuffle the start position stands a second time and play goes on."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/")
    for move in _SHUFFLE:
        game.play(move)
    assert game.outcome is None
    assert game.repetition_count() == 2


def test_would_repeat_warns_before_the_losing_move_only() -> None:
    """Before the third occurrence would_repeat flags f5-f6 but not f5-f4."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/")
    for move in (_SHUFFLE * 2)[:-1]:
        game.play(move)
    assert game.would_repeat("f5-f6")
    assert not game.would_repeat("f5-f4")


def test_would_repeat_is_false_for_a_second_occurrence() -> None:
    """A move that makes a position occur only twice draws no warning."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/")
    for move in _SHUFFLE[:-1]:
        game.play(move)
    assert not game.would_repeat("f5-f6")


def test_asking_would_repeat_leaves_the_game_as_it_was() -> None:
    """would_repeat looks ahead without playing: position, turn and counts stay."""
    game = Game.from_position("/7/1t5/7/7/7/5T1/3K3/")
    for move in (_SHUFFLE * 2)[:-1]:
        game.play(move)
    before = (game.position(), game.to_move, game.ply, game.repetition_count(), game.board.hash)
    game.would_repeat("f5-f6")
    after = (game.position(), game.to_move, game.ply, game.repetition_count(), game.board.hash)
    assert after == before
    assert game.outcome is None


# ------------------------------------------------------------------ §10 no legal move


def test_a_player_left_without_a_move_loses() -> None:
    """f2-d2 walls in the last attacker on d1: the defenders win."""
    game = Game.from_position("/2TtT2/5T1/7/7/7/1K5/7/", to_move=DEF)
    game.play("f2-d2")
    assert game.outcome == Outcome(DEF, Reason.NO_MOVES)


def test_a_player_with_one_move_left_plays_on() -> None:
    """f2-e2 leaves d2 open for the attacker on d1: the game goes on."""
    game = Game.from_position("/2TtT2/5T1/7/7/7/1K5/7/", to_move=DEF)
    game.play("f2-e2")
    assert game.outcome is None
    assert [str(m) for m in game.legal_moves()][:1] == ["d1-d2"]


def test_a_position_whose_side_to_move_is_stuck_is_already_lost() -> None:
    """Set up with the walled-in attacker to move, the game is over before it starts."""
    game = Game.from_position("/2TtT2/3T3/7/7/7/1K5/7/")
    assert game.outcome == Outcome(DEF, Reason.NO_MOVES)
