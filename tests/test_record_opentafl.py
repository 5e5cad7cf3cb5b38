"""A game record as OpenTafl opens it (engine/record.py names where in OpenTafl's notation spec
and loader each point comes from): the rules in the last tag, one game per record, the spec's
date and result values, tag values that cannot end a tag or start the turns early, and turns
made only of move records; records of this bot's older form still read."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from engine import (
    RULESETS,
    Game,
    Outcome,
    Reason,
    Side,
    read_record,
    read_tags,
    split_records,
    write_record,
)
from engine.record import DATE_FORMAT
from engine.rules_string import rules_string

_SPACE = r"[a-s][0-9]{1,2}"
MOVE_RECORD = re.compile(
    rf"[tcnkTCNK]?{_SPACE}(?:-|\^|=|\^=){_SPACE}"
    rf"(?:x[tcnkTCNK]?{_SPACE}(?:/[tcnkTCNK]?{_SPACE})*)?(?:\+\+|--|\+|-)?"
)
"""An OTN move record as the notation spec's "2. Move Records" defines it."""

RULES_LINE = (
    "dim:7 esc:c ka:y ks:n tfr:l cenhe:tT kbt:2 dbt:n dca:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
)
OLD_MATCH_FILE = (
    "[variant:brandubh]\n[attackers:alice]\n[defenders:bob]\n[set:1/2]\n[date:2026-11-27]\n"
    "[game-id:1]\n[result:1]\n[termination:king_captured]\n"
    f"{RULES_LINE}\n"
    "1. d1-b1 c4-c2\n2. b4-b5 d4-b4\n3. b1-b3\n"
    "\n"
    "[variant:brandubh]\n[attackers:bob]\n[defenders:alice]\n[set:2/2]\n[date:2026-11-27]\n"
    "[game-id:2]\n[result:0]\n[termination:aborted]\n"
    f"{RULES_LINE}\n"
)
"""A two-set /export file as this bot wrote it before one file per set (set 2 aborted)."""


def random_game(seed: int, ruleset: str, max_plies: int = 80) -> Game:
    """A game of random legal moves, played to its end or ``max_plies``."""
    rng = random.Random(seed)
    game = Game(ruleset)
    while game.outcome is None and game.ply < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def header_and_turns(text: str) -> tuple[list[str], list[str]]:
    """A record's lines before its blank line and after it."""
    header, blank, turns = text.partition("\n\n")
    assert blank, "no blank line between the header and the turns"
    return header.splitlines(), turns.splitlines()


def test_the_rules_are_the_last_tag_then_a_blank_line() -> None:
    """Every header line is a tag, the rules tag last; a blank line, then the turns."""
    game = Game.from_moves(["d2-c2", "d3-d2", "c2-c3"])
    header, turns = header_and_turns(write_record(game, {"date": "2026.11.27"}))
    assert all(line.startswith("[") and line.endswith("]") for line in header)
    assert header[-1] == (
        "[rules:dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n "
        "start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]"
    )
    assert turns == ["1. d2-c2 d3-d2", "2. c2-c3"]


@pytest.mark.parametrize("name", list(RULESETS))
def test_every_turn_is_made_of_move_records(name: str) -> None:
    """Games of each preset, captures and all: every token after a turn number is an OTN move
    record (no '...' or '---'), and turns are numbered 1, 2, 3..."""
    for seed in range(4):
        game = random_game(seed, name)
        _header, turns = header_and_turns(write_record(game))
        for number, turn in enumerate(turns, start=1):
            label, *moves = turn.split(" ")
            assert label == f"{number}."
            assert 1 <= len(moves) <= 2
            assert all(MOVE_RECORD.fullmatch(move) for move in moves), turn


@pytest.mark.parametrize(
    ("moves", "end", "result"),
    [
        (["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"], None, "1"),
        (["d1-b1"], Side.ATTACKERS, "-1"),
        (["d1-b1"], None, "?"),
        (["d1-b1"], "abort", "?"),
        ([], "abort", "?"),
    ],
)
def test_the_result_tag_takes_the_specs_values(
    moves: list[str], end: Side | str | None, result: str
) -> None:
    """1 the attackers won, -1 the defenders, ? other: a game still open or aborted."""
    game = Game.from_moves(moves)
    if isinstance(end, Side):
        game.resign(end)
    elif end == "abort":
        game.abort()
    assert read_tags(write_record(game))["result"] == result


def test_an_aborted_game_without_moves_reads_back_aborted() -> None:
    """A set aborted before its first move: no turns, result ?, read back aborted."""
    game = Game()
    game.abort()
    text = write_record(game)
    assert text.endswith("]\n\n")
    assert read_record(text).outcome == Outcome(None, Reason.ABORTED)


def test_the_date_format_is_the_specs() -> None:
    """[date:YYYY.MM.DD]."""
    assert date(2026, 11, 27).strftime(DATE_FORMAT) == "2026.11.27"


def test_a_tag_value_cannot_close_its_tag_or_start_the_turns() -> None:
    """A name with brackets, or a number's dot and a space, is written so that no ']' ends the
    tag early and no '1. ' precedes the first turn; it reads back close to the original."""
    game = Game.from_moves(["d2-c2"])
    text = write_record(game, {"attackers": "Team 1. [A]", "defenders": "Clan 11. x"})
    header, _turns = header_and_turns(text)
    assert "1. " not in text.partition("\n\n")[0]
    assert all(line.count("]") == 1 for line in header)
    tags = read_tags(text)
    assert tags["attackers"] == "Team 1.\u00a0(A)"
    assert tags["defenders"] == "Clan 11.\u00a0x"
    assert read_record(text).records == game.records


def test_a_record_round_trips_with_the_exports_tags() -> None:
    """The tags /export writes read back as written, the rules among them, and the game as
    played."""
    game = Game.from_moves(["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"])
    tags = {
        "attackers": "alice",
        "defenders": "bob",
        "set": "1/2",
        "date": "2026.11.27",
        "game-id": "12",
    }
    text = write_record(game, tags)
    read = read_tags(text)
    assert {key: read[key] for key in tags} == tags
    assert read["termination"] == "king_captured"
    assert read["rules"] == rules_string(game.ruleset)
    back = read_record(text)
    assert back == game
    assert back.outcome == game.outcome


def test_an_old_two_set_file_splits_into_its_records() -> None:
    """A match file of the older form (two records, bare rules lines) gives both sets."""
    first, second = [read_record(text) for text in split_records(OLD_MATCH_FILE)]
    assert first.outcome == Outcome(Side.ATTACKERS, Reason.KING_CAPTURED)
    assert second.outcome == Outcome(None, Reason.ABORTED)
    assert second.ply == 0


def test_a_record_is_one_record_despite_its_blank_line() -> None:
    """The blank line inside a record does not split it; two records one after the other do
    split, even when the first has no turns."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    empty = Game()
    empty.abort()
    assert split_records(write_record(game)) == [write_record(game)]
    both = split_records(write_record(empty) + write_record(game))
    assert [read_record(text).ply for text in both] == [0, 2]
