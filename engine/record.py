"""Whole game records in OpenTafl notation, written and read back.

A record is a few ``[tag:value]`` lines, an OpenTafl rules string, then numbered turns::

    [variant:brandubh]
    [attackers:Alice]
    [result:1]
    dim:7 esc:c ka:y ks:n tfr:l cenhe:tT kbt:2 dbt:n dca:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/
    1. d2-c2 d3-d2
    2. c2-c3xc4 ...

The rules line (:mod:`engine.rules_string`) carries every rule of the ruleset, so a record is
replayed under its own rules: when they differ from its variant's, the game gets a ruleset of
its own, and a record whose rules this engine cannot play is refused with a sentence. Turns with
the defenders to move first (a game set up from a position) open with ``...``.
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
_RESERVED_TAGS = frozenset({"variant", "result", "termination", "to-move"})
_TURN_NUMBER = re.compile(r"^\d+\.$")
_RESULT_LOSER = {"1": Side.DEFENDERS, "-1": Side.ATTACKERS}
"""The side that lost, by OpenTafl result tag (``1`` means the attackers won)."""


def result_tag(game: Game) -> str:
    """OpenTafl's result: ``1`` attackers won, ``-1`` defenders won, ``0`` draw, ``?`` open."""
    outcome = game.outcome
    if outcome is None:
        return "?"
    if outcome.winner is None:
        return "0"
    return "1" if outcome.winner is Side.ATTACKERS else "-1"


def write_record(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The whole game as an OpenTafl game record."""
    lines = [f"[variant:{game.ruleset.name}]"]
    for key, value in (tags or {}).items():
        if key in _RESERVED_TAGS or not _TAG.match(f"[{key}:]"):
            raise ValueError(f"{key!r} cannot be a tag of a game record")
        flat = " ".join(str(value).split())
        lines.append(f"[{key}:{flat}]")
    lines.append(f"[result:{result_tag(game)}]")
    if game.outcome is not None:
        lines.append(f"[termination:{game.outcome.reason.value}]")
    if game.starting_side is not Side.ATTACKERS:
        lines.append(f"[to-move:{game.starting_side.value}]")
    lines.append(rules_string(game.ruleset, game.starting_position))
    texts = [str(record) for record in game.records]
    if game.starting_side is Side.DEFENDERS:
        texts.insert(0, "...")
    for index in range(0, len(texts), 2):
        lines.append(f"{index // 2 + 1}. " + " ".join(texts[index : index + 2]))
    return "\n".join(lines) + "\n"


def read_tags(text: str) -> dict[str, str]:
    """The ``[key:value]`` tags of a record."""
    tags = {}
    for line in text.splitlines():
        match = _TAG.match(line.strip())
        if match:
            tags[match["key"]] = match["value"]
    return tags


def read_record(text: str) -> Game:
    """Replay a record written by :func:`write_record` (or a plain OpenTafl move list).

    A ``[termination:resigned]`` or ``timeout`` tag is applied to the loser named by the
    ``[result:...]`` tag (a player may resign on the opponent's turn), else to the side to move.
    """
    tags = read_tags(text)
    rules_line: str | None = None
    to_move = Side(tags.get("to-move", Side.ATTACKERS.value))
    move_texts: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or _TAG.match(line):
            continue
        if line.startswith("dim:"):
            rules_line = line
            continue
        tokens = line.split()
        if not _TURN_NUMBER.match(tokens[0]):
            raise PositionError(f"Line {number} of the record is neither a tag, rules nor a turn.")
        move_texts.extend(token for token in tokens[1:] if token not in ("...", "---"))
    ruleset, start = _record_rules(tags.get("variant"), rules_line)
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


def _record_rules(variant: str | None, rules_line: str | None) -> tuple[Ruleset, str]:
    """The ruleset a record is played under and its starting position.

    The rules line decides; keys it leaves out take the value of the ``[variant:...]`` preset
    (``brandubh`` without one). Without a variant tag, the first preset whose rules the line
    describes is taken.
    """
    fields: dict[str, Any] = {}
    start: str | None = None
    if rules_line is not None:
        fields, start = read_rules_string(rules_line)
    if variant is not None and variant.strip().lower() in RULESETS:
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
