"""The rules line of a game record: every preset writes fixed text, reads back as itself, and a
record whose rules the bot cannot play is refused with a sentence (docs/rules.md, "Writing moves
and games")."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import (
    RULESETS,
    Escape,
    Game,
    Outcome,
    PositionError,
    Reason,
    Side,
    get_ruleset,
    read_record,
    write_record,
)
from engine.rules_string import read_rules_string, rules_string

BRANDUBH_START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"

RULES_LINES = {
    "brandubh": "dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n",
    "brandubh-classic": "dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:3 dbt:y dca:y",
    "brandubh-historical": "dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:3 dbt:n dca:n",
    "ard-ri": "dim:7 esc:e ka:y ks:n tfr:l cen: cor: kbt:2 dbt:n dca:n",
    "tablut": "dim:9 esc:e ka:y ks:c tfr:l cenhe:tT cor: kbt:3 dbt:n dca:n",
    "hnefatafl": "dim:11 esc:e ka:y ks:c tfr:l cenhe:tT cor: kbt:3 dbt:n dca:n",
    "hnefatafl-13": "dim:13 esc:e ka:y ks:c tfr:l cenhe:tT cor: kbt:3 dbt:n dca:n",
    "hnefatafl-15": "dim:15 esc:e ka:y ks:c tfr:l cenhe:tT cor: kbt:3 dbt:n dca:n",
}
"""Each preset's rules line without its start position, written out by hand."""


def random_game(seed: int, ruleset: str, max_plies: int = 60) -> Game:
    """A game of random legal moves, played to its end or ``max_plies``."""
    rng = random.Random(seed)
    game = Game(ruleset)
    while game.outcome is None and game.ply < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def record(rules_line: str, moves: str = "1. d2-c2", variant: str | None = "brandubh") -> str:
    """A record with ``rules_line`` (the brandubh start appended) and ``moves``."""
    tag = f"[variant:{variant}]\n" if variant is not None else ""
    return f"{tag}{rules_line} start:{BRANDUBH_START}\n{moves}\n"


def test_the_fixed_lines_cover_every_preset() -> None:
    """Every preset has its rules line written out in this test."""
    assert set(RULES_LINES) == set(RULESETS)


@pytest.mark.parametrize(("name", "line"), RULES_LINES.items())
def test_each_preset_writes_its_rules_line(name: str, line: str) -> None:
    """The rules string of a preset is exactly its line, then its layout."""
    rules = get_ruleset(name)
    assert rules_string(rules) == f"{line} start:{rules.layout}"
    assert f"\n[rules:{line} start:{rules.layout}]\n" in write_record(Game(name))


@pytest.mark.parametrize("name", list(RULESETS))
def test_a_record_of_each_preset_reads_back_as_the_same_game(name: str) -> None:
    """write_record then read_record gives an equal game under the very same preset."""
    for seed in range(3):
        game = random_game(seed, name)
        back = read_record(write_record(game))
        assert back == game
        assert back.ruleset is get_ruleset(name)


@pytest.mark.parametrize("name", list(RULESETS))
def test_a_rules_line_without_a_variant_tag_names_its_preset(name: str) -> None:
    """A record that only has the rules line is played under the preset the line describes."""
    game = random_game(1, name, max_plies=10)
    text = "\n".join(
        line for line in write_record(game).splitlines() if not line.startswith("[variant:")
    )
    back = read_record(text)
    assert back.ruleset is get_ruleset(name)
    assert back.records == game.records


def test_a_record_written_before_the_full_rules_line_still_reads() -> None:
    """The older, shorter line (size, escape, armed king) reads as its variant's preset."""
    text = (
        "[variant:tablut]\ndim:9 esc:e ka:y ks:n tfr:l cor: start:" + get_ruleset("tablut").layout
    )
    assert read_record(text + "\n1. d1-c1\n").ruleset is get_ruleset("tablut")


def test_a_rule_the_line_changes_is_played() -> None:
    """[variant:brandubh] with ka:n is brandubh with an unarmed king, not the preset."""
    game = read_record(record("dim:7 esc:c ka:n ks:n tfr:l"))
    assert game.ruleset != get_ruleset("brandubh")
    assert game.ruleset.king_armed is False
    assert game.ruleset.name == "brandubh"
    assert game.ruleset.title == "Brandubh (World Tafl Federation), by the record's rules"
    assert game.ruleset.summary == (
        f"The rules of a game record: dim:7 esc:c ka:n ks:n tfr:l start:{BRANDUBH_START}"
    )
    assert game.ruleset.layout == BRANDUBH_START
    assert game.ply == 1


def test_a_changed_rule_keeps_the_variants_layout_for_a_set_up_start() -> None:
    """A record starting from a set-up position keeps brandubh's layout as its ruleset's."""
    text = "[variant:brandubh]\ndim:7 ka:n start:/7/7/7/3K3/7/3t3/7/\n1. d6-c6\n"
    game = read_record(text)
    assert game.ruleset.king_armed is False
    assert game.ruleset.layout == BRANDUBH_START
    assert game.starting_position == "/7/7/7/3K3/7/3t3/7/"


def test_a_9x9_rules_line_under_a_7x7_variant_plays_on_9x9() -> None:
    """[variant:brandubh] with a 9x9 rules line is played on 9x9, its start the layout."""
    tablut = get_ruleset("tablut")
    game = read_record(f"[variant:brandubh]\n{rules_string(tablut)}\n1. d1-c1\n")
    assert game.ruleset.size == 9
    assert game.ruleset.layout == tablut.layout
    assert game.starting_position == tablut.layout
    assert game.ruleset.name == "brandubh"


def test_a_custom_ruleset_round_trips_by_its_rules_line() -> None:
    """A ruleset that is no preset is written in full and read back with the same rules."""
    rules = dataclasses.replace(
        get_ruleset("brandubh"),
        name="unarmed-walls",
        king_armed=False,
        throne_passable=False,
        escape=Escape.EDGE,
    )
    game = Game.from_moves(["d2-c2", "d3-d2"], ruleset=rules)
    text = write_record(game)
    assert "dim:7 esc:e ka:n ks:c tfr:l cenhe:tT cenp:K kbt:2 dbt:n dca:n" in text
    back = read_record(text)
    assert back.ruleset.name == "unarmed-walls"
    assert rules_string(back.ruleset) == rules_string(rules)
    assert back.records == game.records


def test_a_9x9_rules_line_under_an_unknown_variant_plays_on_9x9() -> None:
    """An unknown variant with a full rules line is played by that line, on its board."""
    tablut = get_ruleset("tablut")
    text = f"[variant:my-tablut]\n{rules_string(tablut)}\n1. d1-c1\n"
    game = read_record(text)
    assert game.ruleset.name == "my-tablut"
    assert game.ruleset.title == "my-tablut"
    assert game.ruleset.size == 9
    assert rules_string(game.ruleset) == rules_string(tablut)
    assert game.to_move is Side.DEFENDERS


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        (
            "dim:7 ks:y",
            "The record's rules ask for a king taken only when surrounded on four sides (ks:y), "
            "which this bot does not play.",
        ),
        (
            "dim:7 tfr:d",
            "The record's rules ask for a draw on the third repetition (tfr:d), which this bot "
            "does not play.",
        ),
        (
            "dim:7 sw:s",
            "The record's rules ask for shieldwall captures (sw:s), which this bot does not play.",
        ),
        (
            "dim:7 surf:n",
            "The record's rules ask for no win by encircling the defenders (surf:n), which this "
            "bot does not play.",
        ),
        ("dim:7 atkf:x", "atkf:x in the record's rules is not a value this bot knows."),
        (
            "dim:7 cenhe:tTK",
            "The record's rules ask for an empty throne hostile to other pieces (cenhe:tTK), "
            "which this bot does not play.",
        ),
        (
            "dim:7 cenp:tK",
            "The record's rules ask for a throne that only some pieces may pass over (cenp:tK), "
            "which this bot does not play.",
        ),
        (
            "dim:7 cen:c3",
            "The record's rules ask for a throne elsewhere than the centre (cen:c3), which this "
            "bot does not play.",
        ),
        (
            "dim:7 cor:a1,g7",
            "The record's rules ask for corner squares other than the four corners (cor:a1,g7), "
            "which this bot does not play.",
        ),
        ("dim:7 esc:x", "esc:x in the record's rules is not a value this bot knows."),
        ("dim:7 zz:1", "The record's rules line has zz:1, a rule this bot does not know."),
        ("dim:seven", "dim:seven in the record's rules is not a board size."),
        ("dim:7 ks", "'ks' in the record's rules line is not a key:value entry."),
        ("dim:7 kbt:4", "kbt:4 in the record's rules is not a value this bot knows."),
    ],
)
def test_rules_the_bot_cannot_play_are_refused_with_a_sentence(line: str, sentence: str) -> None:
    """A record asking for a rule this engine does not have is not replayed under other rules."""
    with pytest.raises(PositionError) as refused:
        read_record(record(line))
    assert str(refused.value) == sentence


def test_a_rules_line_whose_size_and_start_disagree_is_refused() -> None:
    """dim:9 with a 7x7 start position names both sizes."""
    with pytest.raises(PositionError) as refused:
        read_record(record("dim:9 esc:e cor:", variant=None))
    assert str(refused.value) == "The record's rules say dim:9, but its start position is 7x7."


def test_a_rules_line_that_resizes_the_board_without_a_start_is_refused() -> None:
    """dim:9 for brandubh with no start of its own cannot use brandubh's 7x7 layout."""
    with pytest.raises(PositionError) as refused:
        read_record("[variant:brandubh]\ndim:9 esc:e cor:\n1. d1-c1\n")
    assert str(refused.value) == "The record's rules say dim:9, but its start position is 7x7."


def test_an_impossible_board_size_is_refused() -> None:
    """dim:8 cannot be played: tafl boards have an odd size from 5 to 15."""
    with pytest.raises(PositionError, match=r"^The record's rules cannot be played: .*8"):
        read_record(record("dim:8"))


def test_an_unknown_variant_without_rules_is_refused() -> None:
    """A record of a variant the bot does not know, and no rules line, cannot be replayed."""
    with pytest.raises(PositionError) as refused:
        read_record("[variant:alea-evangelii]\n1. d2-c2\n")
    assert str(refused.value) == (
        "The record's variant 'alea-evangelii' is not a ruleset this bot plays, and the record "
        "has no rules line to play it by."
    )


def test_reading_a_rules_line_gives_only_the_keys_it_has() -> None:
    """Keys left out are left to the record's variant; the start comes back apart."""
    fields, start = read_rules_string("dim:7 ka:n kbt:3 cen: start:/7/7/7/3K3/7/7/7/")
    assert fields == {
        "size": 7,
        "king_armed": False,
        "king_sides_beside_throne": 3,
        "throne": False,
    }
    assert start == "/7/7/7/3K3/7/7/7/"


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("dim:7 cen:d4", {"size": 7, "throne": True}),
        ("dim:7 cen:default cor:default", {"size": 7, "throne": True, "corners_restricted": True}),
        ("dim:7 cor:a1,a7,g1,g7", {"size": 7, "corners_restricted": True}),
        ("dim:7 cenp:tcnkTCNK", {"size": 7, "throne_passable": True}),
        ("dim:7 cenp:K", {"size": 7, "throne_passable": False}),
        ("dim:7 cenh:tcnk cens:K cors:K corh:tcnkTCNK sw:n efe:n kj:n ber:n", {"size": 7}),
        ("dim:7 dbt:y dca:y", {"size": 7, "defender_captured_against_besieged_throne": True,
                               "defenders_win_by_capturing_all": True}),
    ],
)  # fmt: skip
def test_opentafl_keys_that_say_what_this_engine_does_are_read(
    line: str, fields: dict[str, object]
) -> None:
    """OpenTafl's own spellings of this engine's rules are accepted (knights' letters ignored)."""
    assert read_rules_string(line)[0] == fields


def test_a_line_that_is_no_turn_is_named_by_its_number() -> None:
    """A stray line is refused naming its line number in the record, counted from 1."""
    with pytest.raises(PositionError) as refused:
        read_record("[variant:brandubh]\n1. d2-c2 d3-d2\nwhat is this\n")
    assert str(refused.value) == "Line 3 of the record is neither a tag, rules nor a turn."


def test_empty_move_marks_are_skipped() -> None:
    """'...' and '---' stand for no move in a turn and are not read as moves."""
    game = read_record("1. d2-c2 d3-d2\n2. c2-c3 ---\n")
    assert [str(record.move) for record in game.records] == ["d2-c2", "d3-d2", "c2-c3"]


def test_a_resignation_without_a_result_is_the_side_to_moves() -> None:
    """[termination:resigned] with no result tag: the side to move resigned."""
    game = read_record("[variant:brandubh]\n[termination:resigned]\n1. d2-c2\n")
    assert game.outcome == Outcome(Side.ATTACKERS, Reason.RESIGNED)
    game = read_record("[variant:brandubh]\n[result:?]\n[termination:timeout]\n1. d2-c2 d3-d2\n")
    assert game.outcome == Outcome(Side.DEFENDERS, Reason.TIMEOUT)


def test_an_aborted_game_is_written_as_other_not_a_draw() -> None:
    """OpenTafl's result ? ("other") for an aborted game, with its termination: 0 is a draw."""
    game = Game.from_moves(["d2-c2"])
    game.abort()
    text = write_record(game)
    assert "[result:?]\n[termination:aborted]\n" in text


def test_a_record_whose_attackers_cannot_move_at_the_start_still_reads() -> None:
    """A 5x5 record of its own start, the attackers' one piece boxed in and the defenders to
    move: its moves are played, and a move that is no move is refused naming it (the example
    of a move a refusal shows is no reason to fail)."""
    start = "[to-move:defenders]\ndim:5 esc:c start:/1tT2/1T3/2K2/5/5/\n"
    assert [str(record.move) for record in read_record(start + "1. ... b2-b4\n").records] == [
        "b2-b4"
    ]
    with pytest.raises(PositionError, match=r"^Move 1 of the record, b2b: 'b2b' is not a move"):
        read_record(start + "1. ... b2b\n")
