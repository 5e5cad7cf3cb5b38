"""Records as OpenTafl writes them, read by this bot: its comments and multi-line tags, the rules
keys its ``RulesSerializer`` writes, the spec's defaults for keys left out, and the spec's
position tag. Each test names the OpenTafl text it follows (jslater89/OpenTafl)."""

from __future__ import annotations

import pytest

from engine import Escape, PositionError, get_ruleset, read_record, read_tags, split_records
from engine.rules_string import read_rules_string

BRANDUBH_START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
OUR_RULES = f"dim:7 esc:c ka:y ks:n tfr:l cenhe:tT kbt:2 dbt:n dca:n start:{BRANDUBH_START}"

COMMENTED = (
    "[date:2015.05.04]\n"
    "[result:-1]\n"
    "[start-comment:Read before the first move.\n\nA second paragraph.]\n"
    f"[rules:{OUR_RULES}]\n"
    "\n"
    "1. d2-e2 c4-c5\n"
    "[The attackers' first move.|The defenders' answer.\n\nIts second paragraph.]\n"
    "\n"
    "2. f4-f5 c5-a5\n"
    "[|Only the second move has a comment.]\n"
    "\n"
    "3. d6-a6xa5 d5-a5xa6\n"
)
"""A record laid out as OpenTafl's own replays are (jslater89/OpenTafl,
unbuilt/saved-games/replays/Animals-Xerxes-Brandub-Triathlon-2015.otg, its first three turns):
a ``[start-comment:...]`` tag of several lines, and after each turn a ``[first|second]``
comment, the notation spec's "first-half-commentary|second-half-commentary"."""


def test_comments_after_the_turns_are_passed_over() -> None:
    """OpenTafl's [first|second] comments, over several lines, are no moves and no tags."""
    game = read_record(COMMENTED)
    assert [str(record) for record in game.records] == [
        "d2-e2", "c4-c5", "f4-f5", "c5-a5", "d6-a6xa5", "d5-a5xa6",
    ]  # fmt: skip
    assert game.ruleset is get_ruleset("brandubh")


def test_a_tag_of_several_lines_is_one_tag() -> None:
    """A tag ends at its first ']' (GameSerializer.parseTags), not at the end of its line."""
    tags = read_tags(COMMENTED)
    assert tags["start-comment"] == "Read before the first move.\n\nA second paragraph."
    assert tags["rules"] == OUR_RULES
    assert "The attackers' first move.|The defenders' answer" not in "".join(tags.values())


def test_a_comment_that_looks_like_a_tag_is_no_tag() -> None:
    """A comment after the turns ('[rules:...]' and all) is not read as the record's tags."""
    text = COMMENTED + "[result:1|rules:dim:9]\n"
    assert read_tags(text)["result"] == "-1"
    assert read_record(text).ply == 6


def test_a_comment_reading_like_a_tag_does_not_split_the_record() -> None:
    """A turn's comment on its own line that begins 'Name: ...' (a tag's shape) leaves the
    record whole: one game of all its turns, not a second record from the comment on."""
    text = COMMENTED.replace("[|Only the second", "[Xerxes: a bold answer|Only the second")
    records = split_records(text)
    assert records == [text]
    assert read_record(records[0]).ply == 6


def test_opentafls_own_brandub_replay_is_refused_for_its_rules() -> None:
    """The rules tag of OpenTafl's brandub replay (same file as COMMENTED) asks for rules this
    bot does not play: the refusal names one, not a line of commentary."""
    rules = (
        "dim:7 name:Brandub_Strong_Center_King surf:n atkf:y ks:c nj:n cj:n cenh: cenhe: "
        f"start:{BRANDUBH_START}"
    )
    with pytest.raises(PositionError) as refused:
        read_record(COMMENTED.replace(OUR_RULES, rules))
    assert str(refused.value) == (
        "The record's rules ask for no win by encircling the defenders (surf:n), which this bot "
        "does not play."
    )


def test_a_bracket_never_closed_is_refused_naming_its_line() -> None:
    """A '[' with no ']' after it would swallow the rest of the record: refused instead."""
    with pytest.raises(PositionError) as refused:
        read_record(f"[rules:{OUR_RULES}]\n\n1. d2-e2 c4-c5\n[a comment\n2. f4-f5\n")
    assert str(refused.value) == "Line 4 of the record opens a [ that no ] closes."


@pytest.mark.parametrize(
    "entries",
    [
        "name:Brandub",  # RulesSerializer.getRulesRecord writes it after dim
        "ks:w",  # ... and a weak king as "w" (getStringForKingMode)
        "spd:-1",  # its default speed: no limit
        "cenre:tcnkTCNK corre:K",  # who may come back to the throne, to a corner
    ],
)
def test_keys_opentafls_serializer_writes_are_read(entries: str) -> None:
    """Keys and values jslater89/OpenTafl's src/com/manywords/softworks/tafl/notation/
    RulesSerializer.java writes, for rules this engine plays, are read."""
    fields, _ = read_rules_string(f"dim:7 {entries} start:{BRANDUBH_START}")
    assert fields == {"size": 7}


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ("ks:m", "a king taken only when every square around him is hostile"),
        ("ka:h", "a king who captures only by moving"),
        ("spd:3", "pieces that move only a few squares"),
        ("cenre:T", "a king who may not come back to the throne"),
    ],
)
def test_other_values_opentafl_writes_are_refused_naming_the_rule(entry: str, what: str) -> None:
    """RulesSerializer's other king strengths, armed modes and speed limits are refused."""
    with pytest.raises(PositionError) as refused:
        read_rules_string(f"dim:7 {entry} start:{BRANDUBH_START}")
    assert str(refused.value) == (
        f"The record's rules ask for {what} ({entry}), which this bot does not play."
    )


FETLAR = (
    "dim:11 atkf:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
)
"""The notation spec's Fetlar example (jslater89/OpenTafl, opentafl-notation-spec.txt, "3. Rules
Records"): "11x11, defenders go first, all others as default"."""


def test_a_rules_tag_leaving_rules_out_means_the_specs_defaults() -> None:
    """The spec's Fetlar line leaves out a draw on the third repetition (tfr's default "d"):
    refused, where it was played as 11x11 edge hnefatafl."""
    with pytest.raises(PositionError) as refused:
        read_record(f"[rules:{FETLAR}]\n\n1. f4-f3\n")
    assert str(refused.value) == (
        "The record's rules ask for a draw on the third repetition (tfr:d, OpenTafl's default "
        "for a rule the line leaves out), which this bot does not play."
    )


def test_with_a_presets_variant_tag_left_out_rules_are_the_presets() -> None:
    """This bot's records name their preset: a rule they leave out is the preset's."""
    game = read_record(f"[variant:hnefatafl]\n[rules:{FETLAR}]\n\n1. f4-f3\n")
    assert game.ruleset.escape is Escape.EDGE
    assert game.ply == 1


def test_throne_rules_say_nothing_on_a_board_without_one() -> None:
    """The spec's Sea Battle line ("cen: cenhe: cor:", same file) with the repetition and king
    this bot plays: an empty throne's hostility is moot without a throne, so it is read."""
    start = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
    line = f"dim:9 esc:e ka:n ks:n tfr:l cen: cenhe: cor: start:{start}"
    game = read_record(f"[rules:{line}]\n\n1. d1-d2\n")
    assert (game.ruleset.size, game.ruleset.throne, game.ruleset.king_armed) == (9, False, False)
    assert game.ruleset.corners_restricted is False
    assert game.ply == 1


def test_a_position_tag_is_where_the_game_starts() -> None:
    """The spec's position-tag (opentafl-notation-spec.txt, "4. Game Records"): "If a position
    tag is provided, the game starts at that position, instead of the starting position in the
    rules string"."""
    position = "/7/7/7/3K3/7/3t3/7/"
    game = read_record(f"[position:{position}]\n[rules:{OUR_RULES}]\n\n1. d6-c6\n")
    assert game.starting_position == position
    assert game.ruleset is get_ruleset("brandubh")
    assert [str(record) for record in game.records] == ["d6-c6"]


def test_a_position_tag_of_another_size_is_refused() -> None:
    """A 9x9 position tag under 7x7 rules names both sizes."""
    with pytest.raises(PositionError) as refused:
        read_record(f"[position:/9/9/9/9/4K4/9/9/9/9/]\n[rules:{OUR_RULES}]\n\n1. d6-c6\n")
    assert str(refused.value) == ("The record's rules say dim:7, but its position tag is 9x9.")
