"""Alt text and the text board: the same facts as the picture, in words."""

from __future__ import annotations

import pytest

from engine import RULESETS, Game, Side
from renderer import ALT_TEXT_LIMIT, describe_board, text_board

CAPTURE = [
    "f4-f6",
    "d5-g5",
    "d6-c6",
    "d3-b3",
    "b4-b6",
    "g5-g6",
    "c6-d6",
    "e4-e7",
    "g4-f4",
    "e7-f7",
    "f6-f5",
    "c4-c2",
    "d7-e7",
]
KING_IN_DANGER = "/7/7/7/7/3tK2/7/5t1/"


def test_alt_text_says_whose_turn_with_the_name() -> None:
    """Alt text names the player to move, their side and the move number."""
    text = describe_board(Game.from_moves(["d2-c2"]), attacker_name="Aoife", defender_name="Brian")
    assert "Brian (defenders) to move, move 2." in text


def test_alt_text_says_whose_turn_without_names() -> None:
    """Without display names the side to move is named."""
    assert "Attackers to move, move 1." in describe_board(Game())


def test_alt_text_gives_the_kings_square() -> None:
    """Alt text says where the king stands."""
    assert "The king is on d4." in describe_board(Game())


def test_alt_text_gives_the_last_move_and_its_capture() -> None:
    """Alt text names the last move and the square it captured on."""
    text = describe_board(Game.from_moves(CAPTURE))
    assert "Last move: attackers d7-e7, capturing a defender on f7." in text


def test_alt_text_warns_when_the_king_can_be_captured() -> None:
    """Alt text says when the attackers can take the king next move."""
    game = Game.from_position(KING_IN_DANGER, to_move=Side.ATTACKERS)
    assert "The king is on e5 and can be captured next move." in describe_board(game)


def test_alt_text_lists_every_piece_by_square() -> None:
    """At the start the alt text lists the eight attackers and four defenders."""
    text = describe_board(Game())
    assert "Attackers (8): d1, d2, a4, b4, f4, g4, d6, d7." in text
    assert "Defenders (4): d3, c4, e4, d5." in text


def test_alt_text_gives_the_result_and_set() -> None:
    """After a resignation the alt text says who won, why, and which set it was."""
    game = Game.from_moves(["d2-c2"])
    game.resign(Side.DEFENDERS)
    text = describe_board(game, attacker_name="Aoife", set_number=2, sets_total=2)
    assert "Aoife (attackers) wins: the defenders resigned." in text
    assert "Set 2 of 2." in text


def test_alt_text_lists_the_move_picker_destinations() -> None:
    """With a highlighted piece, alt text lists where it can go."""
    text = describe_board(Game(), highlight_from="d2")
    assert "The piece on d2 can move to a2, b2, c2, e2, f2 and g2." in text


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_alt_text_fits_discords_limit(name: str) -> None:
    """Every preset's start, with the longest display names, fits in 1024 characters."""
    text = describe_board(Game(name), attacker_name="W" * 32, defender_name="M" * 32)
    assert len(text) <= ALT_TEXT_LIMIT == 1024


def test_text_board_matches_the_rules_diagram() -> None:
    """The starting text board is the rules page's diagram, rank 7 on top, # for special squares."""
    assert text_board(Game()).splitlines()[:8] == [
        "7 # . . A . . #",
        "6 . . . A . . .",
        "5 . . . D . . .",
        "4 A A D K D A A",
        "3 . . . D . . .",
        "2 . . . A . . .",
        "1 # . . A . . #",
        "  a b c d e f g",
    ]


def test_text_board_shows_the_throne_once_the_king_leaves() -> None:
    """An empty throne is drawn as # and the moved king as K."""
    game = Game.from_position("/7/7/7/7/3K3/7/7/", to_move=Side.DEFENDERS)
    game.play("d5-b5")
    lines = text_board(game).splitlines()
    assert lines[2] == "5 . K . . . . ."
    assert lines[3] == "4 . . . # . . ."


def test_text_board_status_line_follows_the_game() -> None:
    """The last line says whose turn and the last move, or the result once the game is over."""
    game = Game.from_moves(["d2-c2"])
    assert text_board(game).splitlines()[-1] == (
        "Defenders (D, K) to move, move 2; last move d2-c2."
    )
    game.resign(Side.DEFENDERS)
    assert text_board(game).splitlines()[-1] == "The attackers win: the defenders resigned."


def test_text_board_aligns_two_digit_ranks() -> None:
    """On 11x11 the rank numbers are right-aligned so the columns line up."""
    lines = text_board(Game("hnefatafl")).splitlines()
    assert lines[0].startswith("11 ")
    assert lines[10].startswith(" 1 ")
    assert len({len(line) for line in lines[:12]}) == 1


def test_alt_text_says_when_the_king_was_captured() -> None:
    """After the king's capture the alt text names the move that took him and the result."""
    game = Game.from_position("/7/7/7/7/7/4t2/2tK3/", to_move=Side.ATTACKERS)
    game.play("e6-e7")
    text = describe_board(game)
    assert "The attackers win: the king was captured." in text
    assert "Last move: attackers e6-e7, capturing the king on d7." in text


def test_alt_text_for_a_highlighted_empty_square() -> None:
    """Highlighting an empty square says there is no piece there rather than that it is stuck."""
    assert "There is no piece on b2." in describe_board(Game(), highlight_from="b2")
