"""The presets of docs/rules.md: each difference from ``brandubh`` triggered and nearly
missed, and every published layout loading with the right pieces.

Positions list rank 1 first (OpenTafl). The larger boards' positions are written with
:func:`engine.format_position` from squares counted from the throne, so one test covers
9x9, 11x11, 13x13 and 15x15 alike.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    RULESETS,
    Game,
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

ATT = Side.ATTACKERS
DEF = Side.DEFENDERS
LARGE = ["tablut", "hnefatafl", "hnefatafl-13", "hnefatafl-15"]


def captured(game: Game, move: str) -> list[str]:
    """Play ``move`` and return the names of the squares it captured."""
    return [square_name(sq) for sq in game.play(move).captures]


# ------------------------------------------------------------------ every layout


@pytest.mark.parametrize(
    ("ruleset", "size", "attackers", "defenders"),
    [
        ("brandubh", 7, 8, 4),
        ("brandubh-classic", 7, 8, 4),
        ("brandubh-historical", 7, 8, 4),
        ("ard-ri", 7, 16, 8),
        ("tablut", 9, 16, 8),
        ("hnefatafl", 11, 24, 12),
        ("hnefatafl-13", 13, 24, 12),
        ("hnefatafl-15", 15, 32, 16),
    ],
)
def test_each_layout_has_its_published_pieces(
    ruleset: str, size: int, attackers: int, defenders: int
) -> None:
    """Each preset starts with its published board size, piece counts and king in the centre."""
    game = Game(ruleset)
    counts = Counter(game.pieces().values())
    assert game.ruleset.size == size
    assert counts == {Piece.ATTACKER: attackers, Piece.DEFENDER: defenders, Piece.KING: 1}
    assert game.king_square == square(size // 2, size // 2)
    assert game.to_move is ATT


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_each_layout_looks_the_same_from_every_side(ruleset: str) -> None:
    """Every starting layout is unchanged by a quarter turn of the board (no typo in a row)."""
    game = Game(ruleset)
    n = game.ruleset.size
    pieces = game.pieces()
    turned = {square(n - 1 - (sq >> 4), sq & 15): piece for sq, piece in pieces.items()}
    assert turned == pieces


def test_the_preset_names_are_the_ones_in_rules_md() -> None:
    """Players choose among exactly the presets of the docs/rules.md table."""
    assert set(RULESETS) == {
        "brandubh",
        "brandubh-classic",
        "brandubh-historical",
        "ard-ri",
        "tablut",
        "hnefatafl",
        "hnefatafl-13",
        "hnefatafl-15",
    }


# ------------------------------------------------------------------ brandubh-classic

_KING_BESIDE_THRONE_THREE = "/7/T6/7/7/2tKt2/7/3t3/"
_KING_BESIDE_THRONE_TWO = "/7/T6/7/7/2tK3/7/4t2/"
_BESIEGED_THRONE = "/7/7/3t3/2tKt2/3T3/7/3t3/"
_HALF_BESIEGED_THRONE = "/7/7/3t3/2tK3/3T3/7/3t3/"
_LAST_ATTACKER = "/7/1K5/7/7/3t3/5T1/7/"
_TWO_ATTACKERS = "/7/1K5/7/7/3t3/5T1/1t5/"


@pytest.mark.parametrize("ruleset", ["brandubh-classic", "brandubh-historical"])
def test_king_beside_the_throne_falls_to_three_attackers(ruleset: str) -> None:
    """King on d5 with attackers on c5 and e5: d7-d6 closes his third free side."""
    game = Game.from_position(_KING_BESIDE_THRONE_THREE, ruleset=ruleset)
    game.play("d7-d6")
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


@pytest.mark.parametrize("ruleset", ["brandubh-classic", "brandubh-historical"])
def test_king_beside_the_throne_survives_two_attackers(ruleset: str) -> None:
    """King on d5: c5 and e5 alone (enough in brandubh) do not take him here."""
    game = Game.from_position(_KING_BESIDE_THRONE_TWO, ruleset=ruleset)
    game.play("e7-e5")
    assert game.outcome is None


def test_classic_defender_falls_against_the_besieged_throne() -> None:
    """King on the throne, attackers on d3 c4 e4: d7-d6 takes the defender on d5 against it."""
    game = Game.from_position(_BESIEGED_THRONE, ruleset="brandubh-classic")
    assert captured(game, "d7-d6") == ["d5"]
    assert game.outcome is None


def test_classic_defender_stands_when_the_throne_is_not_besieged() -> None:
    """With e4 empty, d7-d6 does not take the defender on d5 against the occupied throne."""
    game = Game.from_position(_HALF_BESIEGED_THRONE, ruleset="brandubh-classic")
    assert captured(game, "d7-d6") == []


@pytest.mark.parametrize("ruleset", ["brandubh", "brandubh-historical"])
def test_other_rulesets_never_take_a_defender_against_the_occupied_throne(ruleset: str) -> None:
    """Outside brandubh-classic the besieged throne with the king on it is not hostile."""
    game = Game.from_position(_BESIEGED_THRONE, ruleset=ruleset)
    assert captured(game, "d7-d6") == []


def test_classic_defenders_win_by_capturing_every_attacker() -> None:
    """f6-d6 takes the last attacker: the defenders win by capturing them all."""
    game = Game.from_position(_LAST_ATTACKER, to_move=DEF, ruleset="brandubh-classic")
    assert captured(game, "f6-d6") == ["d5"]
    assert game.outcome == Outcome(DEF, Reason.ALL_CAPTURED)


def test_classic_capturing_some_attackers_does_not_end_the_game() -> None:
    """f6-d6 takes one of two attackers: the game goes on."""
    game = Game.from_position(_TWO_ATTACKERS, to_move=DEF, ruleset="brandubh-classic")
    assert captured(game, "f6-d6") == ["d5"]
    assert game.outcome is None


@pytest.mark.parametrize("ruleset", ["brandubh", "brandubh-historical"])
def test_elsewhere_losing_every_attacker_is_a_loss_by_no_moves(ruleset: str) -> None:
    """Without the capture-all rule, attackers with no pieces lose for having no move."""
    game = Game.from_position(_LAST_ATTACKER, to_move=DEF, ruleset=ruleset)
    game.play("f6-d6")
    assert game.outcome == Outcome(DEF, Reason.NO_MOVES)


# ------------------------------------------------------------------ ard-ri


def test_ard_ri_lets_any_piece_stop_on_the_centre() -> None:
    """With no throne, an attacker may stop on d4."""
    game = Game.from_position("/7/3t3/t6/7/7/1K3T1/7/", ruleset="ard-ri")
    game.play("d2-d4")
    assert game.piece_at(parse_square("d4")) is Piece.ATTACKER


def test_ard_ri_lets_any_piece_stop_on_a_corner() -> None:
    """With no restricted corners, an attacker may stop on a1."""
    game = Game.from_position("/7/3t3/t6/7/7/1K3T1/7/", ruleset="ard-ri")
    game.play("a3-a1")
    assert game.piece_at(parse_square("a1")) is Piece.ATTACKER


def test_ard_ri_centre_is_not_hostile() -> None:
    """f6-d6 does not take the attacker on d5 against the empty centre."""
    game = Game.from_position(_LAST_ATTACKER, to_move=DEF, ruleset="ard-ri")
    assert captured(game, "f6-d6") == []


def test_ard_ri_corner_is_not_hostile() -> None:
    """c3-c1 does not take the attacker on b1 against the empty corner."""
    game = Game.from_position("/1t5/7/2T4/7/7/5K1/7/", to_move=DEF, ruleset="ard-ri")
    assert captured(game, "c3-c1") == []


def test_ard_ri_king_escapes_on_any_edge_square() -> None:
    """c4-c1 reaches the edge: the defenders win."""
    game = Game.from_position("/7/4T1t/7/2K4/7/7/7/", to_move=DEF, ruleset="ard-ri")
    game.play("c4-c1")
    assert game.outcome == Outcome(DEF, Reason.KING_ESCAPED)


def test_ard_ri_king_short_of_the_edge_has_not_escaped() -> None:
    """c4-c2 stops one square short of the edge: the game goes on."""
    game = Game.from_position("/7/4T1t/7/2K4/7/7/7/", to_move=DEF, ruleset="ard-ri")
    game.play("c4-c2")
    assert game.outcome is None


def test_ard_ri_king_in_the_centre_falls_to_two_attackers() -> None:
    """Without a throne, d3 and d5 take the king on d4."""
    game = Game.from_position("/7/T6/3t3/3K3/7/3t3/7/", ruleset="ard-ri")
    game.play("d6-d5")
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


# ------------------------------------------------------------------ larger boards


def board(ruleset: str, pieces: dict[tuple[int, int], str]) -> Game:
    """A game of ``ruleset`` from pieces placed at (file, rank) offsets from the throne.

    A spare defender stands on the bottom edge so the defenders are never encircled.
    """
    n = get_ruleset(ruleset).size
    c = n // 2
    symbols = {"t": Piece.ATTACKER, "T": Piece.DEFENDER, "K": Piece.KING}
    placed = {square(n - 2, 0): Piece.DEFENDER}
    for (df, dr), symbol in pieces.items():
        placed[square(c + df, c + dr)] = symbols[symbol]
    return Game.from_position(format_position(n, placed), ruleset=ruleset)


def rel(ruleset: str, df: int, dr: int) -> str:
    """The name of the square at (file, rank) offset from the throne."""
    c = get_ruleset(ruleset).size // 2
    return square_name(square(c + df, c + dr))


def move(ruleset: str, frm: tuple[int, int], to: tuple[int, int]) -> str:
    """A move between two squares given as offsets from the throne."""
    return f"{rel(ruleset, *frm)}-{rel(ruleset, *to)}"


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_on_throne_falls_to_four(ruleset: str) -> None:
    """The fourth attacker closing the ring around the throne takes the king."""
    game = board(ruleset, {(0, 0): "K", (0, -1): "t", (-1, 0): "t", (1, 0): "t", (0, 2): "t"})
    game.play(move(ruleset, (0, 2), (0, 1)))
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_on_throne_survives_three_and_a_defender(ruleset: str) -> None:
    """Three attackers and a defender round the throne leave the king standing."""
    game = board(ruleset, {(0, 0): "K", (0, -1): "t", (-1, 0): "t", (0, 1): "T", (2, 0): "t"})
    game.play(move(ruleset, (2, 0), (1, 0)))
    assert game.outcome is None


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_beside_throne_falls_to_three(ruleset: str) -> None:
    """King above the throne: the third attacker on his free sides takes him."""
    game = board(ruleset, {(0, 1): "K", (-1, 1): "t", (1, 1): "t", (0, 3): "t"})
    game.play(move(ruleset, (0, 3), (0, 2)))
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_beside_throne_survives_two(ruleset: str) -> None:
    """King above the throne: two attackers along the other line do not take him."""
    game = board(ruleset, {(0, 1): "K", (-1, 1): "t", (1, 3): "t"})
    game.play(move(ruleset, (1, 3), (1, 1)))
    assert game.outcome is None


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_elsewhere_falls_to_two(ruleset: str) -> None:
    """Away from the throne two attackers on opposite sides take the king."""
    game = board(ruleset, {(-2, 2): "K", (-3, 2): "t", (-1, 4): "t"})
    game.play(move(ruleset, (-1, 4), (-1, 2)))
    assert game.outcome == Outcome(ATT, Reason.KING_CAPTURED)


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_escapes_on_any_edge_square(ruleset: str) -> None:
    """The king reaching the bottom edge (not a corner) wins."""
    n = get_ruleset(ruleset).size
    game = board(ruleset, {(-2, -2): "K", (3, 3): "t"})
    game.play(move(ruleset, (3, 3), (3, 2)))
    game.play(move(ruleset, (-2, -2), (-2, -(n // 2))))
    assert game.outcome == Outcome(DEF, Reason.KING_ESCAPED)


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_king_short_of_the_edge_plays_on(ruleset: str) -> None:
    """The king stopping one square short of the edge has not escaped."""
    n = get_ruleset(ruleset).size
    game = board(ruleset, {(-2, -2): "K", (3, 3): "t"})
    game.play(move(ruleset, (3, 3), (3, 2)))
    game.play(move(ruleset, (-2, -2), (-2, 1 - n // 2)))
    assert game.outcome is None


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_throne_is_for_the_king_only(ruleset: str) -> None:
    """An attacker may not stop on the throne of the larger boards."""
    game = board(ruleset, {(1, 2): "K", (0, -2): "t"})
    assert not game.is_legal(move(ruleset, (0, -2), (0, 0)))
    assert game.is_legal(move(ruleset, (0, -2), (0, 2)))


@pytest.mark.parametrize("ruleset", LARGE)
def test_large_corners_are_ordinary_squares(ruleset: str) -> None:
    """docs/rules.md, the tablut row: an attacker may stop on a corner, and a corner does not
    take the attacker beside it (c3-c1 leaves b1 standing)."""
    n = get_ruleset(ruleset).size
    placed = {
        square(1, 0): Piece.ATTACKER,
        square(2, 2): Piece.DEFENDER,
        square(n // 2 + 1, n // 2 + 1): Piece.KING,
    }
    game = Game.from_position(format_position(n, placed), to_move=DEF, ruleset=ruleset)
    assert captured(game, "c3-c1") == []
    assert game.is_legal("b1-a1")
