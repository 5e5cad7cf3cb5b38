"""Whole game records in OpenTafl notation, written and read back.

A record is a few ``[tag:value]`` lines, an OpenTafl rules string, then numbered turns::

    [variant:brandubh]
    [attackers:Alice]
    [result:1]
    dim:7 esc:c ka:y ks:n tfr:l start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/
    1. d2-c2 d3-d2
    2. c2-c3xc4 ...

Turns with the defenders to move first (a game set up from a position) open with ``...``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.errors import IllegalMoveError, PositionError
from engine.game import Game
from engine.outcome import Reason
from engine.rules import Escape, Ruleset, get_ruleset
from engine.squares import Side

_TAG = re.compile(r"^\[(?P<key>[A-Za-z0-9_-]+):(?P<value>.*)\]$")
_RESERVED_TAGS = frozenset({"variant", "result", "termination", "to-move"})
_TURN_NUMBER = re.compile(r"^\d+\.$")
_RESULT_LOSER = {"1": Side.DEFENDERS, "-1": Side.ATTACKERS}
"""The side that lost, by OpenTafl result tag (``1`` means the attackers won)."""


def rules_string(rules: Ruleset, start: str | None = None) -> str:
    """An OpenTafl rules string describing ``rules``."""
    parts = [
        f"dim:{rules.size}",
        f"esc:{'c' if rules.escape is Escape.CORNERS else 'e'}",
        f"ka:{'y' if rules.king_armed else 'n'}",
        "ks:n",
        "tfr:l",
    ]
    if not rules.throne:
        parts.append("cen:")
    if not rules.corners_restricted:
        parts.append("cor:")
    parts.append(f"start:{start or rules.layout}")
    return " ".join(parts)


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
    ruleset = get_ruleset(tags.get("variant", "brandubh"))
    start = ruleset.layout
    to_move = Side(tags.get("to-move", Side.ATTACKERS.value))
    move_texts: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or _TAG.match(line):
            continue
        if line.startswith("dim:"):
            for part in line.split():
                if part.startswith("start:"):
                    start = part[len("start:") :]
            continue
        tokens = line.split()
        if not _TURN_NUMBER.match(tokens[0]):
            raise PositionError(f"Line {number} of the record is neither a tag, rules nor a turn.")
        move_texts.extend(token for token in tokens[1:] if token not in ("...", "---"))
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
