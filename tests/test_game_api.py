"""The Game API the bot relies on: refusals that explain themselves and change nothing, undo,
resignation, timeouts, copies and the helpers that describe the king's situation."""

from __future__ import annotations

import pytest

from engine import (
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Piece,
    Reason,
    Side,
    UnknownRulesetError,
    parse_square,
    square_name,
)

ATT = Side.ATTACKERS
DEF = Side.DEFENDERS
START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything a refused move must leave untouched."""
    board = game.board
    return (
        game.position(),
        game.to_move,
        game.ply,
        game.outcome,
        board.hash,
        dict(board.counts),
        sorted(board.moves()),
        game.records,
    )


@pytest.mark.parametrize(
    ("position", "to_move", "move", "message"),
    [
        (START, ATT, "c1-c3", "There is no piece on c1."),
        (START, ATT, "d3-c3", "d3 holds a defender, and it is the attackers' turn."),
        (START, DEF, "d2-c2", "d2 holds an attacker, and it is the defenders' turn."),
        (START, ATT, "d1-d1", "A move must leave d1."),
        (
            START,
            ATT,
            "a4-b5",
            "a4 to b5 is not a straight line: pieces move like a rook, along a rank or a file.",
        ),
        (START, ATT, "d1-d3", "d2 is in the way: it holds an attacker."),
        (START, ATT, "d2-d3", "d3 is taken by a defender."),
        (START, ATT, "a4-a1", "a1 is a corner: only the king may stop there."),
        ("/7/3t3/7/7/7/1K3T1/7/", ATT, "d2-d4", "d4 is the throne: only the king may stop there."),
        (START, ATT, "h1-h3", "h1 is not on the 7x7 board (a1 to g7)."),
        (
            START,
            ATT,
            "move my king",
            "'move my king' is not a move: write the piece's square and where it goes, like d1-c1.",
        ),
    ],
)
def test_each_refusal_explains_itself_and_changes_nothing(
    position: str, to_move: Side, move: str, message: str
) -> None:
    """An illegal move raises a sentence naming the square or rule; the game is unchanged."""
    game = Game.from_position(position, to_move=to_move)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert str(info.value) == message
    assert snapshot(game) == before


def test_a_refusal_is_a_value_error() -> None:
    """Callers that catch ValueError also catch illegal moves."""
    with pytest.raises(ValueError, match="There is no piece on c1"):
        Game().play("c1-c3")


def test_a_move_off_the_board_given_as_squares_is_refused() -> None:
    """A Move whose square lies beyond a 7x7 board is refused naming that square."""
    game = Game()
    with pytest.raises(IllegalMoveError, match=r"^h4 is not on the 7x7 board\.$"):
        game.play(Move(parse_square("g4"), parse_square("h4")))


def test_no_move_is_accepted_once_the_game_is_over() -> None:
    """After the king escapes, any move is refused with the result in the message."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    game.play("a4-a1")
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as info:
        game.play("g2-g3")
    assert str(info.value) == "The game is over. The defenders win: the king escaped."
    assert snapshot(game) == before


def test_play_returns_a_record_of_the_move() -> None:
    """The record says who moved which piece where, at which ply, capturing what."""
    game = Game.from_position("/3t3/7/1tT4/7/7/5K1/7/")
    record = game.play("d1-d3")
    assert record.ply == 0
    assert record.side is ATT
    assert record.piece is Piece.ATTACKER
    assert str(record.move) == "d1-d3"
    assert record.captures == (parse_square("c3"),)
    assert game.last_record == record
    assert game.records == (record,)


def test_move_numbers_count_both_sides_as_one_turn() -> None:
    """Plies 0 and 1 are move 1, ply 2 opens move 2."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    assert game.ply == 2
    assert game.move_number == 2
    assert [r.move_number for r in game.records] == [1, 1]


def test_legal_moves_at_the_start() -> None:
    """The attackers have 40 opening moves, in sorted order, all from attacker squares."""
    game = Game()
    moves = game.legal_moves()
    assert len(moves) == 40
    assert moves == sorted(moves)
    assert {game.piece_at(m.from_square) for m in moves} == {Piece.ATTACKER}


def test_legal_moves_from_a_square_lists_that_piece_only() -> None:
    """The attacker on d2 can go to a2, b2, c2, e2, f2 and g2 at the start."""
    moves = Game().legal_moves_from(parse_square("d2"))
    assert [str(m) for m in moves] == ["d2-a2", "d2-b2", "d2-c2", "d2-e2", "d2-f2", "d2-g2"]


def test_undo_takes_back_a_capture() -> None:
    """Undoing d1-d3 puts the captured defender back and gives the move back."""
    game = Game.from_position("/3t3/7/1tT4/7/7/5K1/7/")
    before = snapshot(game)
    game.play("d1-d3")
    undone = game.undo()
    assert str(undone) == "d1-d3xc3"
    assert snapshot(game) == before


def test_undo_reopens_a_finished_game() -> None:
    """Undoing the king's escape lets the defenders move again."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    game.play("a4-a1")
    game.undo()
    assert game.outcome is None
    assert game.to_move is DEF


def test_undo_with_no_move_played_is_refused() -> None:
    """At the start there is nothing to take back."""
    with pytest.raises(IllegalMoveError, match=r"^There is no move to take back\.$"):
        Game().undo()


def test_resigning_gives_the_game_to_the_other_side() -> None:
    """The attackers resign: the defenders win, and the outcome reads as a sentence."""
    game = Game()
    outcome = game.resign(ATT)
    assert outcome == Outcome(DEF, Reason.RESIGNED)
    assert game.outcome == outcome
    assert str(outcome) == "The defenders win: the attackers resigned."
    assert game.legal_moves() == []


def test_a_player_may_resign_on_the_opponents_turn() -> None:
    """The defenders resign while the attackers are to move; the attackers win."""
    game = Game()
    assert game.resign(DEF) == Outcome(ATT, Reason.RESIGNED)


def test_running_out_of_time_loses() -> None:
    """The defenders time out: the attackers win."""
    game = Game.from_moves(["d2-c2"])
    assert game.time_out(DEF) == Outcome(ATT, Reason.TIMEOUT)
    assert str(game.outcome) == "The attackers win: the defenders ran out of time."


def test_an_aborted_game_has_no_winner() -> None:
    """Aborting ends the game with no winner."""
    game = Game()
    outcome = game.abort()
    assert outcome.winner is None
    assert str(outcome) == "No winner: the game was aborted."


def test_a_finished_game_cannot_be_resigned() -> None:
    """Resigning after the end is refused with the result."""
    game = Game()
    game.resign(ATT)
    with pytest.raises(IllegalMoveError, match="already over"):
        game.resign(DEF)


@pytest.mark.parametrize(
    ("outcome", "sentence"),
    [
        (Outcome(ATT, Reason.KING_CAPTURED), "The attackers win: the king was captured."),
        (Outcome(DEF, Reason.KING_ESCAPED), "The defenders win: the king escaped."),
        (
            Outcome(ATT, Reason.ENCIRCLED),
            "The attackers win: the attackers encircled the king and every defender.",
        ),
        (
            Outcome(ATT, Reason.REPETITION),
            "The attackers win: the defenders repeated a position for the third time.",
        ),
        (Outcome(DEF, Reason.NO_MOVES), "The defenders win: the attackers had no legal move."),
        (Outcome(DEF, Reason.ALL_CAPTURED), "The defenders win: every attacker was captured."),
    ],
)
def test_every_ending_reads_as_a_sentence(outcome: Outcome, sentence: str) -> None:
    """str(outcome) names the winner and why, for the channel."""
    assert str(outcome) == sentence


def test_a_copy_is_independent() -> None:
    """Moves on a copy leave the original as it was."""
    game = Game.from_moves(["d2-c2"])
    other = game.copy()
    other.play("d3-d2")
    assert game.ply == 1
    assert other.ply == 2
    assert game.position() != other.position()


def test_repr_rebuilds_the_position() -> None:
    """repr() of a game is code that sets up the same position with the same side to move."""
    game = Game.from_moves(["d2-c2"])
    namespace = {"Game": Game, "Side": Side}
    rebuilt = eval(repr(game), namespace)
    assert rebuilt.position() == game.position()
    assert rebuilt.to_move is game.to_move


def test_an_unknown_ruleset_lists_the_presets() -> None:
    """Asking for a ruleset that does not exist names the ones that do."""
    with pytest.raises(UnknownRulesetError, match="choose one of brandubh, brandubh-classic"):
        Game("chess")


def test_a_position_of_the_wrong_size_is_refused() -> None:
    """A 9x9 position cannot start a brandubh game."""
    with pytest.raises(ValueError, match="9x9"):
        Game.from_position("/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/")


def test_king_escape_routes_lists_open_corners() -> None:
    """A king on a4 with the a-file clear can reach a1 and a7."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=DEF)
    assert [square_name(sq) for sq in game.king_escape_routes()] == ["a1", "a7"]


def test_king_escape_routes_ignores_blocked_corners() -> None:
    """With an attacker on a2, only a7 stays open for the king on a4."""
    game = Game.from_position("/7/t3T2/7/K6/7/7/7/", to_move=DEF)
    assert [square_name(sq) for sq in game.king_escape_routes()] == ["a7"]


def test_king_in_danger_when_one_attacker_move_takes_him() -> None:
    """King on c6 beside an attacker on b6 and one on d7 to close: in danger."""
    game = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/", to_move=DEF)
    assert game.king_in_danger()


def test_king_not_in_danger_when_no_move_closes_the_pincer() -> None:
    """King on c6 beside an attacker on b6 but nobody can reach d6: not in danger."""
    game = Game.from_position("/5t1/5T1/7/7/7/1tK4/7/", to_move=DEF)
    assert not game.king_in_danger()
