"""Text forms that players type and records store: moves, positions and whole game records."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import (
    RULESETS,
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    PositionError,
    Reason,
    Side,
    format_position,
    get_ruleset,
    opening_step,
    parse_position,
    parse_square,
    read_record,
    read_tags,
    write_record,
)
from engine.errors import InvalidMoveError
from engine.geometry import geometry
from engine.squares import as_typed

D1_D3 = Move(parse_square("d1"), parse_square("d3"))


def random_game(seed: int, ruleset: str = "brandubh", max_plies: int = 300) -> Game:
    """A game of random legal moves, played to its end or ``max_plies``."""
    rng = random.Random(seed)
    game = Game(ruleset)
    while game.outcome is None and game.ply < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


# ------------------------------------------------------------------ typed moves


@pytest.mark.parametrize(
    "text",
    ["d1-d3", "d1d3", "d1 d3", "D1-D3", "  d1 - d3 ", "d1-d3xd4", "d1-d3 xd4", "d1-d3xa5/c5"],
)
def test_lenient_move_forms_all_read_as_the_same_move(text: str) -> None:
    """Dash, no separator, space, capitals and a capture suffix all mean d1-d3."""
    assert Move.parse(text, 7) == D1_D3


@pytest.mark.parametrize(
    "dash", ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212", "\uff0d"]
)
def test_any_dash_a_keyboard_or_phone_types_reads_as_a_move(dash: str) -> None:
    """A hyphen, a minus sign or a full-width dash between the squares reads as d1-d3 (a
    minus sign was refused as "not a move", echoing text that looked like a valid one)."""
    assert Move.parse(f"d1{dash}d3", 7) == D1_D3


@pytest.mark.parametrize("text", ["ｄ１－ｄ３", "Ｄ１　ｄ３", "d１-ｄ3"])
def test_full_width_letters_and_digits_read_as_a_move(text: str) -> None:
    """A full-width keyboard's move (a Chinese or Japanese phone's) reads as d1-d3, not only
    its dash (the whole move was refused as "not a move" while its dash alone was read)."""
    assert Move.parse(text, 7) == D1_D3


@pytest.mark.parametrize(
    "text", ["d1\u200b-d3", "\ufeffd1-d3", "d1-d3\u200b", "d\u20601 d3", "d1\u00ad-d3"]
)
def test_invisible_characters_are_not_read(text: str) -> None:
    """A zero-width space, word joiner, byte order mark or soft hyphen pasted with a move is
    ignored: it was refused as "'d1-d3' is not a move", echoing text that looked valid."""
    assert Move.parse(text, 7) == D1_D3
    assert Game().parse_move("\u200bc1\u200b") == Game().parse_move("c1")


@pytest.mark.parametrize("text", ["d\u0661-d\u0663", "d\u06f1-d\u06f3", "d\u0967 d\u0969"])
def test_other_scripts_digits_read_as_a_move(text: str) -> None:
    """Arabic-Indic, Persian and Devanagari digits read as ASCII ones: ``d١-d٣`` is d1-d3."""
    assert as_typed(text).replace(" ", "-") == "d1-d3"
    assert Move.parse(text, 7) == D1_D3


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("с1-с3", "c1-c3"),  # Cyrillic с
        ("а4-е4", "a4-e4"),  # Cyrillic а and е
        ("С1 с3", "c1-c3"),  # Cyrillic capital С
        ("Α4-Ε4", "a4-e4"),  # Greek capital alpha and epsilon
        ("ο1-ο5", "o1-o5"),  # Greek omicron
    ],
)
def test_cyrillic_and_greek_look_alikes_read_as_latin_letters(text: str, move: str) -> None:
    """A move typed with Cyrillic or Greek letters drawn as Latin ones reads as the Latin move
    (``с1-с3`` with a Cyrillic ``с`` was refused, echoing text that looked valid)."""
    assert Move.parse(text, 15) == Move.parse(move, 15)


def test_a_greek_letter_only_like_a_latin_one_is_refused() -> None:
    """Greek alpha is drawn apart from ``a``: ``α4-e4`` is not read as a move."""
    with pytest.raises(InvalidMoveError):
        Move.parse("α4-e4", 7)


def test_a_look_alike_destination_alone_names_its_move() -> None:
    """``с1`` with a Cyrillic ``с`` is the one attacker's move that can reach c1."""
    game = Game()
    assert game.parse_move("с1") == game.parse_move("c1")


def test_a_digit_that_is_no_decimal_is_refused_as_a_square() -> None:
    """A character that is a digit but no decimal one (U+19DA, a Tai Tham one) is refused
    with a sentence, not a Python error from ``int()``."""
    with pytest.raises(InvalidMoveError):
        parse_square("d\u19da")


def test_a_full_width_destination_alone_names_its_move() -> None:
    """``ｃ１`` alone is the one attacker's move that can reach c1, as ``c1`` is."""
    game = Game()
    assert game.parse_move("ｃ１") == game.parse_move("c1")


@pytest.mark.parametrize("text", ["", "d1", "d1-", "hello", "d1-d3-d5", "1d-3d", "d1/d3"])
def test_junk_says_what_a_move_looks_like(text: str) -> None:
    """Text that is not a move is refused with an example of one."""
    with pytest.raises(IllegalMoveError) as info:
        Move.parse(text, 7)
    assert str(info.value).endswith("write the piece's square and where it goes, like d1-c1.")


@pytest.mark.parametrize(("ruleset", "example"), [("brandubh", "d1-c1"), ("hnefatafl-15", "e1-d1")])
def test_text_that_is_no_move_is_shown_a_move_of_its_own_board(ruleset: str, example: str) -> None:
    """The refusal of text that is no move shows a first move of the game's ruleset: d1-c1,
    brandubh's, names an empty square on 15x15."""
    with pytest.raises(IllegalMoveError) as info:
        Game(ruleset).parse_move("move my king")
    assert str(info.value).endswith(f"where it goes, like {example}.")
    assert Game(ruleset).is_legal(example)


def test_the_example_move_of_many_records_own_rules_is_not_kept_for_each() -> None:
    """A record's own rules are a ruleset of their own: the example move worked out for each of
    a hundred is still d1-c1, but only the latest few are kept, as are their boards' tables."""
    for number in range(100):
        rules = dataclasses.replace(get_ruleset("brandubh"), name=f"record-{number}")
        with pytest.raises(IllegalMoveError, match=r"like d1-c1\.$"):
            Game(rules).parse_move("move my king")
    assert opening_step.cache_info().currsize < 100
    assert geometry.cache_info().currsize < 100  # a board's tables, far larger, alike


def test_a_long_text_is_repeated_cut_short() -> None:
    """However long the text, the sentence repeats its first characters only (a chat reply has
    a length limit)."""
    with pytest.raises(IllegalMoveError) as info:
        Move.parse("x" * 5000, 7)
    assert str(info.value) == (
        "'" + "x" * 23 + "…' is not a move: write the piece's square and where it goes, like d1-c1."
    )


def test_a_square_off_the_board_is_named() -> None:
    """d1-d8 on a 7x7 board names d8 and the board's range."""
    with pytest.raises(IllegalMoveError, match=r"^d8 is not on the 7x7 board \(a1 to g7\)\.$"):
        Move.parse("d1-d8", 7)


@pytest.mark.parametrize(
    ("text", "square"), [("p1-p2", "p1"), ("e1-p1", "p1"), ("p8", "p8"), ("P15", "p15")]
)
def test_a_file_past_o_is_named_off_the_board(text: str, square: str) -> None:
    """On 15x15, a move or a destination on file p (the next letter after the board's last
    column, o) is refused naming the square and the board's range, as o16 is, not as text that
    is no move at all."""
    expected = rf"^{square} is not on the 15x15 board \(a1 to o15\)\.$"
    with pytest.raises(IllegalMoveError, match=expected):
        Game("hnefatafl-15").parse_move(text)


def test_a_typed_capture_suffix_is_not_checked() -> None:
    """The game ignores a wrong capture suffix and records the real captures."""
    game = Game()
    assert str(game.play("d2-c2xd4")) == "d2-c2"


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_every_legal_move_prints_and_parses_back(ruleset: str) -> None:
    """str(move) of each opening move of each preset reads back as the same move."""
    game = Game(ruleset)
    for move in game.legal_moves():
        assert Move.parse(str(move), game.ruleset.size) == move


def test_two_digit_ranks_print_and_parse() -> None:
    """On 15x15, a10-a15 prints and reads back with two-digit ranks."""
    move = Move(parse_square("a10", 15), parse_square("a15", 15))
    assert str(move) == "a10-a15"
    assert Move.parse("a10a15", 15) == move


# ------------------------------------------------------------------ positions


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_each_layout_round_trips(ruleset: str) -> None:
    """Each preset's layout string parses and prints back unchanged."""
    layout = RULESETS[ruleset].layout
    assert format_position(*parse_position(layout)) == layout
    assert Game(ruleset).position() == layout


def test_a_position_string_lists_rank_one_first() -> None:
    """In /3t3/... the first row is rank 1: d1 holds an attacker."""
    _, pieces = parse_position("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
    assert str(pieces[parse_square("d1")]) == "attacker"
    assert str(pieces[parse_square("d4")]) == "king"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3", "must start and end with /"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t2/", "Row 7 of the position describes 6 squares"),
        ("/3t3/3t3/3T3/ttTKTtx/3T3/3t3/3t3/", "Row 4 of the position has 'x'"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3K3/", "at most one king, not 2"),
    ],
)
def test_a_broken_position_says_where(text: str, message: str) -> None:
    """Malformed position strings are refused with the row or rule at fault."""
    with pytest.raises(PositionError, match=message):
        parse_position(text)


def test_the_position_after_the_kings_capture_reads_back_as_won() -> None:
    """The kingless position left by a capture of the king is a finished game when read."""
    game = Game.from_position("/7/7/3t3/2tKt2/7/3t3/7/")
    game.play("d6-d5")
    again = Game.from_position(game.position(), to_move=game.to_move)
    assert again.position() == game.position()
    assert again.outcome == game.outcome == Outcome(Side.ATTACKERS, Reason.KING_CAPTURED)


@pytest.mark.parametrize(
    ("ruleset", "position", "move"),
    [("brandubh", "/7/4T1t/7/K6/7/7/7/", "a4-a1"), ("ard-ri", "/7/4T1t/7/2K4/7/7/7/", "c4-c1")],
)
def test_the_position_after_an_escape_reads_back_as_won(
    ruleset: str, position: str, move: str
) -> None:
    """The position with the king on his escape square is a finished game when read."""
    game = Game.from_position(position, to_move=Side.DEFENDERS, ruleset=ruleset)
    game.play(move)
    again = Game.from_position(game.position(), to_move=game.to_move, ruleset=ruleset)
    assert again.outcome == game.outcome == Outcome(Side.DEFENDERS, Reason.KING_ESCAPED)


# ------------------------------------------------------------------ move records


def test_a_capture_is_written_after_an_x() -> None:
    """d6-a6 taking the defender on a5 is recorded as d6-a6xa5."""
    game = Game.from_position("/7/5K1/7/t6/T6/3t3/7/")
    record = game.play("d6-a6")
    assert str(record) == "d6-a6xa5"
    assert Move.parse(str(record), 7) == record.move


def test_several_captures_are_separated_by_slashes() -> None:
    """c1-c3 taking b3 and d3 is recorded as c1-c3xb3/d3."""
    game = Game.from_position("/2t4/7/tT1Tt2/7/6K/7/7/")
    assert str(game.play("c1-c3")) == "c1-c3xb3/d3"


def test_a_record_numbers_turns_of_two_moves() -> None:
    """Three plies make turn 1 with both moves and turn 2 with one."""
    game = Game.from_moves(["d2-c2", "d3-d2", "c2-c3"])
    text = write_record(game, {"attackers": "Alice", "defenders": "Bob"})
    assert text.splitlines() == [
        "[variant:brandubh]",
        "[attackers:Alice]",
        "[defenders:Bob]",
        "[result:?]",
        "[rules:dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n"
        " start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]",
        "",
        "1. d2-c2 d3-d2",
        "2. c2-c3",
    ]


def assert_same_game(copy: Game, original: Game) -> None:
    """Two games with the same ruleset, start, moves, positions after each ply and outcome."""
    assert copy.ruleset == original.ruleset
    assert copy.starting_position == original.starting_position
    assert copy.starting_side is original.starting_side
    assert copy.records == original.records
    assert copy.outcome == original.outcome
    replay = Game.from_position(
        original.starting_position, original.starting_side, original.ruleset
    )
    for record in original.records:
        replay.play(record.move)
    assert replay.position() == copy.position() == original.position()


@pytest.mark.parametrize("seed", range(6))
def test_a_finished_game_round_trips(seed: int) -> None:
    """A random game written and read back has the same moves, positions and result."""
    game = random_game(seed)
    assert game.outcome is not None
    assert_same_game(read_record(write_record(game)), game)


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_a_game_of_each_preset_round_trips(ruleset: str) -> None:
    """Records keep the variant, so each preset's game reads back as the same game."""
    game = random_game(7, ruleset, max_plies=40)
    back = read_record(write_record(game))
    assert back.ruleset.name == ruleset
    assert_same_game(back, game)


def test_a_game_from_a_position_with_defenders_to_move_round_trips() -> None:
    """A set-up game opening with the defenders says atkf:n in its rules (OpenTafl reads no
    '...' placeholder) and reads back with the defenders first."""
    game = Game.from_position("/7/4T1t/7/2K4/7/7/7/", to_move=Side.DEFENDERS)
    for move in ["c4-c3", "g2-g3", "c3-b3"]:
        game.play(move)
    text = write_record(game)
    assert "[rules:dim:7 atkf:n esc:c " in text
    assert "\n1. c4-c3 g2-g3\n2. c3-b3\n" in text
    assert "..." not in text
    assert_same_game(read_record(text), game)


def test_an_older_record_with_defenders_to_move_still_reads() -> None:
    """A record written before the rules tag ([to-move:defenders], '1. ...') reads as before."""
    text = (
        "[variant:brandubh]\n[result:?]\n[to-move:defenders]\n"
        "dim:7 esc:c ka:y ks:n tfr:l cenhe:tT kbt:2 dbt:n dca:n start:/7/4T1t/7/2K4/7/7/7/\n"
        "1. ... c4-c3\n2. g2-g3 c3-b3\n"
    )
    game = read_record(text)
    assert game.starting_side is Side.DEFENDERS
    assert [str(record.move) for record in game.records] == ["c4-c3", "g2-g3", "c3-b3"]


@pytest.mark.parametrize("side", list(Side))
def test_a_resignation_round_trips_whoever_resigned(side: Side) -> None:
    """A resignation reads back for the side that resigned, even on the opponent's turn."""
    game = Game.from_moves(["d2-c2"])
    game.resign(side)
    back = read_record(write_record(game))
    assert back.outcome == Outcome(side.opponent, Reason.RESIGNED)
    assert_same_game(back, game)


@pytest.mark.parametrize("side", list(Side))
def test_a_timeout_round_trips_whoever_ran_out(side: Side) -> None:
    """A loss on time reads back for the side whose clock ran out."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    game.time_out(side)
    assert read_record(write_record(game)).outcome == Outcome(side.opponent, Reason.TIMEOUT)


def test_an_aborted_game_round_trips() -> None:
    """An aborted game reads back aborted with no winner."""
    game = Game.from_moves(["d2-c2"])
    game.abort()
    assert read_record(write_record(game)).outcome == Outcome(None, Reason.ABORTED)


def test_tags_read_back() -> None:
    """Player tags written into a record are read back by read_tags, brackets as parentheses
    (OpenTafl ends a tag at its first ']')."""
    game = Game.from_moves(["d2-c2"])
    tags = read_tags(write_record(game, {"attackers": "Alice [A]", "date": "2025.01.01"}))
    assert tags["attackers"] == "Alice (A)"
    assert tags["date"] == "2025.01.01"
    assert tags["variant"] == "brandubh"


def test_a_record_with_an_illegal_move_names_it() -> None:
    """Reading a record whose second move is illegal says which move and why."""
    text = "[variant:brandubh]\n1. d2-c2 d4-d2\n"
    with pytest.raises(PositionError, match=r"^Move 2 of the record, d4-d2: d3 is in the way"):
        read_record(text)


def test_a_plain_move_list_reads_as_brandubh() -> None:
    """A record with only numbered turns replays from the brandubh layout."""
    game = read_record("1. d2-c2 d3-d2\n2. c2-c3\n")
    assert game.ply == 3
    assert game.position() == Game.from_moves(["d2-c2", "d3-d2", "c2-c3"]).position()


def test_tags_with_any_safe_key_read_back() -> None:
    """Tag keys with capitals, digits and underscores survive a round trip."""
    text = write_record(Game(), {"Round_2": "final", "attackers": "Ann\nof Tara"})
    tags = read_tags(text)
    assert tags["Round_2"] == "final"
    assert tags["attackers"] == "Ann of Tara"


def test_reserved_tags_are_refused() -> None:
    """A caller cannot write a second result or variant tag into a record."""
    with pytest.raises(ValueError, match="result"):
        write_record(Game(), {"result": "1"})


def test_position_of_the_wrong_size_is_a_position_error() -> None:
    """A 9x9 position offered for brandubh is refused as a position, naming both sizes."""
    with pytest.raises(PositionError, match=r"9x9.*7x7"):
        Game.from_position(get_ruleset("tablut").layout, ruleset="brandubh")


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("/t6/7/7/3K3/7/7/7/", "a1 is a corner: an attacker cannot stand there"),
        ("/7/7/7/3T3/7/7/K6/", "d4 is the throne: a defender cannot stand there"),
    ],
)
def test_a_position_with_a_soldier_on_a_restricted_square_is_refused(
    position: str, message: str
) -> None:
    """Only the king may stand on the throne or a corner, in a set-up position too."""
    with pytest.raises(PositionError, match=message):
        Game.from_position(position)


@pytest.mark.parametrize(
    "text",
    [
        *("d2 to c2", "d2–c2", "d2—c2", "d2>c2", "D2 To C2", "d2 > c2"),
        *("d2->c2", "d2 -> c2", "d2–>c2", "d2→c2", "d2 \u2192 c2"),
    ],
)
def test_a_move_reads_with_to_dashes_and_arrows(text: str) -> None:
    """Players may write a move with 'to', an en or em dash, '>', '->' or an arrow '→' between
    the squares ('->' and '→' were refused as not a move, though autocomplete offered it)."""
    assert str(Game().parse_move(text)) == "d2-c2"


def test_a_destination_alone_names_the_one_piece_that_can_go_there() -> None:
    """'c2' is d2-c2 at the start: only that attacker can reach c2."""
    assert str(Game().parse_move("c2")) == "d2-c2"
    assert str(Game().play("c2").move) == "d2-c2"


def test_a_destination_several_pieces_reach_lists_the_candidates() -> None:
    """'b2' is refused: two attackers can go there, and the sentence names both moves."""
    with pytest.raises(IllegalMoveError) as refused:
        Game().parse_move("b2")
    assert str(refused.value) == "2 of the attackers can move to b2: write d2-b2 or b4-b2."


def test_a_destination_no_piece_reaches_is_refused() -> None:
    """'d4' (the throne, occupied) names no move: the sentence says no attacker can go there."""
    with pytest.raises(IllegalMoveError, match=r"None of the attackers can move to d4\."):
        Game().parse_move("d4")
