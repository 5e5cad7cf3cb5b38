"""Whole game records in OpenTafl notation, written and read back.

A record is one game: ``[tag:value]`` lines, the rules in the last tag, a blank line, then
numbered turns::

    [variant:brandubh]
    [attackers:Alice]
    [date:2026.11.27]
    [result:1]
    [termination:king_captured]
    [rules:dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n start:/3t3/3t3/3T3/ttTKTtt/...]

    1. d2-c2 d3-d2
    2. c2-c3xc4

This is the shape OpenTafl opens (``opentafl-notation-spec.txt``, "4. Game Records", and
``GameSerializer`` in jslater89/OpenTafl):

- The rules are the ``[rules:...]`` tag, the last tag: ``GameSerializer.loadGameRecord`` builds
  the game from ``RulesSerializer.loadRulesRecord(tagMap.get("rules"))`` and nothing else, so
  a record without that tag cannot be opened. Rules keys OpenTafl does not know (this
  project's ``kbt``, ``dbt``, ``dca``) are ignored there.
- One game per file: ``parseTags`` reads tags up to the first ``1.`` outside a tag and
  ``parseMoves`` reads turns numbered up from ``1.``; a second record would be read as part of
  the first.
- ``[date:YYYY.MM.DD]`` (:data:`DATE_FORMAT`); ``[result:...]`` is ``1`` (the attackers won),
  ``-1`` (the defenders won), ``0`` (a draw) or ``?`` ("other": an aborted or unfinished
  game); ``[termination:...]`` says how the game ended. A game lost by a player who left the
  server is written ``[termination:timeout]`` with a ``[left-server:...]`` tag of this bot's
  naming their side (:data:`LEFT_SERVER_TAG`): OpenTafl keeps tags it does not know.
- Every token of a turn must be a move record (``MoveSerializer``'s pattern), so a game the
  defenders begin (a set-up position) says so with the rules key ``atkf:n`` rather than a
  ``...`` placeholder, and a resignation is a tag, not ``---``.
- A tag ends at its first ``]`` and the turns start at the first ``1.`` followed by a space,
  so a tag value has its brackets written as parentheses and a no-break space after a
  number's dot (a player named ``Team 1. [A]`` is written ``Team 1.\u00a0(A)``).

The rules (:mod:`engine.rules_string`) carry every rule of the ruleset, so a record is
replayed under its own rules: when they differ from its variant's, the game gets a ruleset of
its own, and a record whose rules this engine cannot play is refused with a sentence. Records
written before the rules tag (the rules as a bare line, ``[to-move:defenders]`` and a
``1. ...`` first turn for a game the defenders began) are read too, as are files holding
several such records (:func:`split_records`). A record OpenTafl saved is read as its
``GameSerializer`` reads it: ``[first|second]`` comments after the turns, and tags of several
lines, are passed over; a ``[rules:...]`` tag of a record without a preset's variant tag takes
the spec's default for each rule it leaves out (:data:`engine.rules_string.SPEC_DEFAULTS`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from engine.errors import IllegalMoveError, PositionError
from engine.game import Game
from engine.layout import parse_position
from engine.outcome import Reason
from engine.rules import RULESETS, Ruleset
from engine.rules_string import read_rules_string, rules_string
from engine.squares import Side

_TAG = re.compile(r"^\[(?P<key>[A-Za-z0-9_-]+):(?P<value>.*)\]$")
_TAG_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_RESERVED_TAGS = frozenset({"variant", "result", "termination", "to-move", "rules", "position"})
_TURN_LOOKALIKE = re.compile(r"(?<=\d)\. ")
"""A number's dot and a space in a tag value: OpenTafl would start reading turns there."""
_BRACKETS = str.maketrans("[]", "()")
DATE_FORMAT = "%Y.%m.%d"
"""The ``[date:...]`` tag's format, OpenTafl's ``YYYY.MM.DD`` (``date.strftime(DATE_FORMAT)``)."""
LEFT_SERVER_TAG = "left-server"
"""A tag of this bot's: the side whose player had left the server and so lost the game
(``[left-server:defenders]``). Such a game is recorded as lost on time (``[termination:timeout]``,
a code OpenTafl knows); the tag, which OpenTafl keeps among the others and :func:`read_record`
passes over, says why."""
_TURN_NUMBER = re.compile(r"^\d+\.$")
_RESULT_LOSER = {"1": Side.DEFENDERS, "-1": Side.ATTACKERS}
"""The side that lost, by OpenTafl result tag (``1`` means the attackers won)."""


def result_tag(game: Game) -> str:
    """OpenTafl's result: ``1`` attackers won, ``-1`` defenders won, ``0`` a draw, ``?``
    "other": a game still open or aborted (nobody won, but it was no draw)."""
    outcome = game.outcome
    if outcome is None or outcome.reason is Reason.ABORTED:
        return "?"
    if outcome.winner is None:
        return "0"
    return "1" if outcome.winner is Side.ATTACKERS else "-1"


def write_record(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The whole game as one OpenTafl game record (``tags`` after the variant, the result,
    termination and rules tags last)."""
    lines = [f"[variant:{game.ruleset.name}]"]
    for key, value in (tags or {}).items():
        if key in _RESERVED_TAGS or not _TAG.match(f"[{key}:]"):
            raise ValueError(f"{key!r} cannot be a tag of a game record")
        lines.append(f"[{key}:{tag_value(value)}]")
    lines.append(f"[result:{result_tag(game)}]")
    if game.outcome is not None:
        lines.append(f"[termination:{game.outcome.reason.value}]")
    lines.append(f"[rules:{_rules_tag(game)}]")
    lines.append("")
    texts = [str(record) for record in game.records]
    for index in range(0, len(texts), 2):
        lines.append(f"{index // 2 + 1}. " + " ".join(texts[index : index + 2]))
    return "\n".join(lines) + "\n"


def tag_value(value: object) -> str:
    """``value`` as OpenTafl can read it back in a tag: on one line, brackets as parentheses,
    and no number's dot followed by a space (see the module's notes)."""
    flat = " ".join(str(value).split()).translate(_BRACKETS)
    return _TURN_LOOKALIKE.sub(".\u00a0", flat)


def _rules_tag(game: Game) -> str:
    """The rules string, with ``atkf:n`` after the board size when the defenders began."""
    rules = rules_string(game.ruleset, game.starting_position)
    if game.starting_side is Side.ATTACKERS:
        return rules
    size, rest = rules.split(" ", 1)
    return f"{size} atkf:n {rest}"


def read_tags(text: str) -> dict[str, str]:
    """The ``[key:value]`` tags of a record (``rules`` among them when it has the tag).

    As OpenTafl's ``GameSerializer.parseTags`` reads them: a tag ends at its first ``]``, on
    whichever line (OpenTafl's own records hold a ``[start-comment:...]`` of several lines),
    and the tags end where the turns begin, so a comment after a turn is no tag.
    """
    tags = {}
    turns = _first_turn(text)
    for begin, end in _bracketed(text):
        if begin >= turns:
            break
        key, colon, value = text[begin + 1 : end - 1].partition(":")
        if colon and _TAG_KEY.match(key):
            tags[key] = value
    return tags


def _bracketed(text: str) -> list[tuple[int, int]]:
    """Where each ``[...]`` of ``text`` begins and ends (past its ``]``): tags and OpenTafl's
    comments (``[first move's|second move's]`` after a turn) alike end at their first ``]``.
    One left open runs to the end of the text."""
    spans = []
    begin = text.find("[")
    while begin != -1:
        end = text.find("]", begin)
        end = len(text) if end == -1 else end + 1
        spans.append((begin, end))
        begin = text.find("[", end)
    return spans


def _unbracketed_lines(text: str) -> list[str]:
    """The lines of ``text`` with every ``[...]`` left out (a line inside one is empty), so
    that each line keeps its number."""
    parts = []
    last = 0
    for begin, end in _bracketed(text):
        parts.append(text[last:begin])
        parts.append("\n" * text.count("\n", begin, end))
        last = end
    parts.append(text[last:])
    return "".join(parts).split("\n")


def _first_turn(text: str) -> int:
    """Where the first turn (``1. d2-c2 ...``) outside any ``[...]`` begins, else the end."""
    offset = 0
    for raw, line in zip(text.split("\n"), _unbracketed_lines(text), strict=True):
        tokens = line.split()
        if tokens and _TURN_NUMBER.match(tokens[0]):
            return offset + len(raw) - len(raw.lstrip())
        offset += len(raw) + 1
    return len(text)


def split_records(text: str) -> list[str]:
    """The records of ``text``, one game each: a file this bot exported before it gave one
    file per set held a match's records one after the other.

    A record begins at a tag after the previous record's rules line or turns, or at a tag its
    record already has. A tag is a line of its own; a comment (``[...]`` after a turn, or of
    several lines) is neither a tag nor a turn, even one that reads like a tag: after the turns,
    a line holding OpenTafl's ``[first|second]`` comment (``[Xerxes: bold|]``) is a comment.
    """
    records: list[list[str]] = []
    keys: set[str] = set()
    body = False
    for raw, line in zip(text.split("\n"), _unbracketed_lines(text), strict=True):
        match = _TAG.match(raw.strip())
        if match and body and "|" in match["value"]:
            match = None  # a turn's comment, as OpenTafl writes it after the turns
        if match and (not records or body or match["key"] in keys):
            records.append([])
            keys, body = set(), False
        if match:
            keys.add(match["key"])
        elif line.strip():
            body = True
        if not records:
            records.append([])
        records[-1].append(raw)
    texts = ["\n".join(lines).strip("\n") + "\n" for lines in records]
    return [each for each in texts if each.strip()]


def read_record(text: str) -> Game:
    """Replay one record written by :func:`write_record` (or an older one of this bot's, or a
    plain OpenTafl move list, or a record OpenTafl saved, its comments passed over).

    A ``[termination:resigned]`` or ``timeout`` tag is applied to the loser named by the
    ``[result:...]`` tag (a player may resign on the opponent's turn), else to the side to move.
    A ``[position:...]`` tag is the position the game starts from (the notation spec's
    "position-tag"), instead of the rules' start.
    """
    spans = _bracketed(text)
    if spans and not text[: spans[-1][1]].endswith("]"):
        opened = text.count("\n", 0, spans[-1][0]) + 1
        raise PositionError(f"Line {opened} of the record opens a [ that no ] closes.")
    tags = read_tags(text)
    rules_line: str | None = tags.get("rules")
    move_texts: list[str] = []
    for number, raw in enumerate(_unbracketed_lines(text), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("dim:"):
            rules_line = tags.get("rules", line)  # the bare line of older records
            continue
        tokens = line.split()
        if not _TURN_NUMBER.match(tokens[0]):
            raise PositionError(f"Line {number} of the record is neither a tag, rules nor a turn.")
        move_texts.extend(token for token in tokens[1:] if token not in ("...", "---"))
    rules_line, first = _who_moves_first(rules_line)
    to_move = Side(tags["to-move"]) if "to-move" in tags else first
    ruleset, start = _record_rules(tags.get("variant"), rules_line, from_tag="rules" in tags)
    if "position" in tags:
        start = tags["position"].strip()
        size = parse_position(start)[0]
        if size != ruleset.size:
            raise PositionError(
                f"The record's rules say dim:{ruleset.size}, but its position tag is {size}x{size}."
            )
    game = Game.from_position(start, to_move=to_move, ruleset=ruleset)
    for index, move_text in enumerate(move_texts):
        try:
            game.play(move_text)
        except IllegalMoveError as error:
            raise PositionError(f"Move {index + 1} of the record, {move_text}: {error}") from None
    termination = tags.get("termination")
    if game.outcome is None and termination in (Reason.RESIGNED.value, Reason.TIMEOUT.value):
        loser = _RESULT_LOSER.get(tags.get("result", "?"), game.to_move)
        if termination == Reason.RESIGNED.value:
            game.resign(loser)
        else:
            game.time_out(loser)
    elif game.outcome is None and termination == Reason.ABORTED.value:
        game.abort()
    return game


def _who_moves_first(rules_line: str | None) -> tuple[str | None, Side]:
    """The rules without their ``atkf`` entry, and the side it says moves first (OpenTafl's
    default: the attackers). Who begins is the game's, not the ruleset's."""
    if rules_line is None:
        return None, Side.ATTACKERS
    first = Side.ATTACKERS
    kept = []
    for part in rules_line.split():
        key, _, value = part.partition(":")
        if key != "atkf":
            kept.append(part)
        elif value in ("y", "n"):
            first = Side.ATTACKERS if value == "y" else Side.DEFENDERS
        else:
            raise PositionError(
                f"atkf:{value} in the record's rules is not a value this bot knows."
            )
    return " ".join(kept), first


def _record_rules(
    variant: str | None, rules_line: str | None, *, from_tag: bool = False
) -> tuple[Ruleset, str]:
    """The ruleset a record is played under and its starting position.

    The rules line decides; keys it leaves out take the value of the ``[variant:...]`` preset
    (``brandubh`` without one), or, in a ``[rules:...]`` tag (``from_tag``) of a record without
    a preset's variant tag, the value OpenTafl's notation spec gives them. Without a variant
    tag, the first preset whose rules the line describes is taken.
    """
    fields: dict[str, Any] = {}
    start: str | None = None
    preset = variant is not None and variant.strip().lower() in RULESETS
    if rules_line is not None:
        # A rules tag of no preset of this bot's is read as OpenTafl writes it, leaving out
        # every rule at the spec's default; this bot's own records spell out every rule.
        fields, start = read_rules_string(rules_line, spec_defaults=from_tag and not preset)
    if variant is not None and preset:
        base = RULESETS[variant.strip().lower()]
    elif variant is not None and rules_line is None:
        raise PositionError(
            f"The record's variant '{variant}' is not a ruleset this bot plays, and the record "
            "has no rules line to play it by."
        )
    else:
        described = [
            p for p in RULESETS.values() if all(getattr(p, k) == v for k, v in fields.items())
        ]
        base = described[0] if described else RULESETS["brandubh"]
        if variant is not None:
            base = dataclasses.replace(base, name=variant, title=variant)
    ruleset = _with(base, fields, rules_line)
    if ruleset != base and start is not None and ruleset.size != base.size:
        ruleset = dataclasses.replace(ruleset, layout=start)
    if start is None:
        start = ruleset.layout
    size = parse_position(start)[0]
    if size != ruleset.size:
        raise PositionError(
            f"The record's rules say dim:{ruleset.size}, but its start position is {size}x{size}."
        )
    return ruleset, start


def _with(base: Ruleset, fields: dict[str, Any], rules_line: str | None) -> Ruleset:
    """``base`` changed by the rules line's ``fields`` (``base`` itself when nothing changes)."""
    changes = {key: value for key, value in fields.items() if getattr(base, key) != value}
    if not changes:
        return base
    try:
        return dataclasses.replace(
            base,
            title=f"{base.title}, by the record's rules",
            summary=f"The rules of a game record: {rules_line}",
            **changes,
        )
    except ValueError as error:
        raise PositionError(f"The record's rules cannot be played: {error}.") from None
