"""The engine as a library: moves are values, a typo is told from an illegal move, and a game
compares by what was played and prints as code that rebuilds it."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from collections.abc import Callable

import pytest

import engine
from engine import (
    RULESETS,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Outcome,
    Reason,
    Side,
    get_ruleset,
    parse_square,
)

D1 = parse_square("d1")
D3 = parse_square("d3")
NAMES = {name: getattr(engine, name) for name in engine.__all__}
"""What ``repr()`` of a game may use: the names ``engine`` exports."""


def random_game(seed: int, ruleset: str, max_plies: int = 120) -> Game:
    """A game of random legal moves, played to its end or ``max_plies``."""
    rng = random.Random(seed)
    game = Game(ruleset)
    while game.outcome is None and game.ply < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def rebuilt(game: Game) -> Game:
    """The game that ``repr(game)`` evaluates to."""
    value = eval(repr(game), dict(NAMES))
    assert isinstance(value, Game)
    return value


# ------------------------------------------------------------------ moves


def test_a_move_is_not_equal_to_a_tuple_of_its_squares() -> None:
    """Move(d1, d3) is a value of its own: it never equals the bare tuple (d1, d3)."""
    move = Move(D1, D3)
    assert move != (D1, D3)
    assert (D1, D3) != move  # noqa: SIM300 (the tuple asked first)
    assert move not in [(D1, D3)]


def test_equal_moves_are_one_value() -> None:
    """Moves between the same squares are equal, hash alike and are the same object."""
    move = Move(D1, D3)
    assert move == Move.parse("d1-d3")
    assert move is Move.parse("D1 to D3")
    assert move is Move.from_code(D1 << 8 | D3)
    assert {move, Move.parse("d1d3")} == {move}
    assert move != Move(D3, D1)


def test_a_move_cannot_be_changed() -> None:
    """Assigning or deleting a square of a move is refused."""
    move = Move(D1, D3)
    with pytest.raises(AttributeError):
        move.to_square = D1
    with pytest.raises(AttributeError):
        del move.from_square
    assert (move.from_square, move.to_square) == (D1, D3)


def test_a_move_survives_pickling_and_copying_as_the_same_value() -> None:
    """The computer opponent's process pool pickles moves: they come back as the same move."""
    move = Move(D1, D3)
    assert pickle.loads(pickle.dumps(move)) is move
    assert copy.copy(move) is move
    assert copy.deepcopy(move) is move


def test_moves_sort_by_from_square_then_to_square() -> None:
    """Sorting moves orders them by their from-square, then their to-square."""
    a1_a2 = Move.parse("a1-a2")
    a1_b1 = Move.parse("a1-b1")
    b1_b2 = Move.parse("b1-b2")
    assert sorted([b1_b2, a1_b1, a1_a2]) == [a1_b1, a1_a2, b1_b2]
    assert a1_b1 < a1_a2 <= a1_a2 < b1_b2
    assert b1_b2 > a1_a2 >= a1_a2


def test_repr_of_a_move_is_code_for_the_same_move() -> None:
    """repr(move) evaluates to the same move, even for squares beyond any board."""
    assert repr(Move(D1, D3)) == "Move.parse('d1-d3')"
    assert eval(repr(Move(D1, D3)), NAMES) is Move(D1, D3)
    far = Move(256, D3)
    assert repr(far) == "Move(256, 35)"
    assert eval(repr(far), NAMES) == far
    assert str(far) == "256-d3"
    assert far.code == -1


def test_a_move_code_outside_the_board_ints_is_refused() -> None:
    """Move.from_code only takes the board's ints, from 0 to 65535."""
    with pytest.raises(ValueError, match="not a move code"):
        Move.from_code(65536)
    with pytest.raises(ValueError, match="not a move code"):
        Move.from_code(-1)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("text", ["hello", "d1-", "d1/d3", "d1-d8", "z1-z3"])
def test_a_typo_raises_invalid_move_error(text: str) -> None:
    """Text that is no move on this board raises InvalidMoveError, an IllegalMoveError."""
    with pytest.raises(InvalidMoveError) as info:
        Game().play(text)
    assert isinstance(info.value, IllegalMoveError)
    assert str(info.value).endswith(".")


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("d1-d3", "d2 is in the way: it holds an attacker."),
        ("c1-c3", "There is no piece on c1."),
        ("d4", "None of the attackers can move to d4."),
    ],
)
def test_an_illegal_move_is_not_a_typo(text: str, sentence: str) -> None:
    """A well-written move the rules forbid raises IllegalMoveError, not InvalidMoveError."""
    with pytest.raises(IllegalMoveError) as info:
        Game().play(text)
    assert not isinstance(info.value, InvalidMoveError)
    assert str(info.value) == sentence


def test_a_move_from_a_square_beyond_the_grid_is_illegal_not_an_index_error() -> None:
    """play(Move(256, d3)) names square 256 as off the board instead of crashing."""
    game = Game()
    with pytest.raises(IllegalMoveError, match=r"^256 is not on the 7x7 board\.$"):
        game.play(Move(256, D3))
    with pytest.raises(IllegalMoveError, match=r"^-1 is not on the 7x7 board\.$"):
        game.play(Move(D1, -1))
    assert not game.is_legal(Move(D1, 300))
    assert game.ply == 0


# ------------------------------------------------------------------ games


def test_games_with_the_same_moves_are_equal() -> None:
    """Two games of the same ruleset, start and moves are equal; one more move is not."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    assert game == Game.from_moves(["d2-c2", "d3-d2"])
    assert game == game.copy()
    other = game.copy()
    other.play("c2-c3")
    assert game != other
    assert game != "d2-c2 d3-d2"


def test_games_differ_by_ruleset_start_and_outcome() -> None:
    """The same moves under another ruleset, from another start or after a resignation differ."""
    game = Game.from_moves(["d2-c2"])
    assert game != Game.from_moves(["d2-c2"], ruleset="brandubh-historical")
    shifted = Game.from_position("/3t3/2t4/3T3/ttTKTtt/3T3/3t3/3t3/", to_move=Side.DEFENDERS)
    assert shifted.position() == game.position()
    assert shifted != game
    resigned = game.copy()
    resigned.resign(Side.DEFENDERS)
    assert resigned != game


def test_a_game_is_not_hashable() -> None:
    """A game changes as it is played, so it cannot be a dict key."""
    with pytest.raises(TypeError):
        hash(Game())


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_repr_rebuilds_a_game_of_every_preset(ruleset: str) -> None:
    """eval(repr(game)) is an equal game, moves included, for random games of each preset."""
    for seed in range(3):
        game = random_game(seed, ruleset)
        assert rebuilt(game) == game
    assert rebuilt(Game(ruleset)) == Game(ruleset)
    assert repr(Game(ruleset)) == f"Game({ruleset!r})"


def test_repr_of_a_game_lists_its_moves() -> None:
    """repr(game) reads as the code a test would write."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    assert repr(game) == "Game.from_moves(['d2-c2', 'd3-d2'], ruleset='brandubh')"


def test_repr_rebuilds_a_game_from_a_position_with_the_defenders_to_move() -> None:
    """A game set up from a position keeps its start, side to move and moves."""
    game = Game.from_position("/7/4T1t/7/K6/7/7/7/", to_move=Side.DEFENDERS)
    game.play("e2-e3")
    assert repr(game) == (
        "Game.from_position('/7/4T1t/7/K6/7/7/7/', to_move=Side.DEFENDERS, "
        "ruleset='brandubh', moves=['e2-e3'])"
    )
    assert rebuilt(game) == game


@pytest.mark.parametrize(
    "end", [lambda g: g.resign(Side.ATTACKERS), lambda g: g.time_out(Side.DEFENDERS), Game.abort]
)
def test_repr_keeps_a_resignation_timeout_or_abort(end: Callable[[Game], Outcome]) -> None:
    """The way a game ended from outside the rules is part of its repr."""
    game = Game.from_moves(["d2-c2"])
    end(game)
    back = rebuilt(game)
    assert back == game
    assert back.outcome == game.outcome
    assert "ended=Outcome(" in repr(game)


def test_repr_rebuilds_a_game_of_a_custom_ruleset() -> None:
    """A ruleset that is no preset is written out field by field."""
    rules = dataclasses.replace(get_ruleset("brandubh"), name="unarmed", king_armed=False)
    game = Game.from_moves(["d2-c2"], ruleset=rules)
    back = rebuilt(game)
    assert back == game
    assert back.ruleset == rules
    assert repr(game).startswith("Game.from_moves(['d2-c2'], ruleset=Ruleset(name='unarmed',")


def test_only_an_ending_from_outside_the_rules_can_be_given() -> None:
    """A game cannot be told it ended by a king's escape: only its moves can do that."""
    with pytest.raises(ValueError, match="king_escaped through its moves"):
        Game.from_moves([], ended=Outcome(Side.DEFENDERS, Reason.KING_ESCAPED))


def test_repr_rebuilds_the_standard_start_with_the_defenders_to_move() -> None:
    """The standard layout with the defenders to move is a set-up position, not a new game."""
    game = Game.from_position(get_ruleset("brandubh").layout, to_move=Side.DEFENDERS)
    assert repr(game).startswith("Game.from_position('/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/',")
    assert rebuilt(game) == game


def test_a_set_up_game_can_be_rebuilt_resigned() -> None:
    """from_position takes the moves and the resignation that ended the game."""
    game = Game.from_position(
        "/7/4T1t/7/K6/7/7/7/",
        to_move=Side.DEFENDERS,
        moves=["a4-b4"],
        ended=Outcome(Side.DEFENDERS, Reason.RESIGNED),
    )
    assert game.ply == 1
    assert game.outcome == Outcome(Side.DEFENDERS, Reason.RESIGNED)
    assert rebuilt(game) == game


def test_a_listed_move_is_checked_again_after_the_position_changes() -> None:
    """A move from an earlier legal_moves() list is refused once an undo and another move
    changed the position, even at the same number of moves."""
    game = Game.from_moves(["d2-c2"])
    listed = {str(move): move for move in game.legal_moves()}
    game.undo()
    game.play("d6-c6")
    with pytest.raises(IllegalMoveError, match=r"^d2 is taken by an attacker\.$"):
        game.play(listed["d3-d2"])
    assert game.ply == 1


def test_a_destination_off_the_board_is_a_typo() -> None:
    """'h4' alone on a 7x7 board names no square of it: InvalidMoveError with the board."""
    with pytest.raises(InvalidMoveError, match=r"^h4 is not on the 7x7 board \(a1 to g7\)\.$"):
        Game().parse_move("h4")


def test_three_candidates_for_a_destination_are_all_listed() -> None:
    """'c3' reached by three attackers lists the three moves, the last after 'or'."""
    game = Game.from_position("/2t4/7/t6/7/7/2t3K/7/")
    with pytest.raises(IllegalMoveError) as refused:
        game.parse_move("c3")
    assert str(refused.value) == "3 of the attackers can move to c3: write c1-c3, a3-c3 or c6-c3."


@pytest.mark.parametrize(("square", "label"), [(15, "15"), (0xF0, "240"), (-3, "-3")])
def test_a_square_beyond_every_board_is_named_by_its_number(square: int, label: str) -> None:
    """A move from a square no board has (file or rank 16) names it by its number."""
    with pytest.raises(IllegalMoveError, match=rf"^{label} is not on the 7x7 board\.$"):
        Game().play(Move(square, D3))
