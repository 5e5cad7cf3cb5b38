"""OpenTafl rules strings: a ruleset written as one line of ``key:value`` entries, and read back.

Every rule in which this engine's rulesets differ is written, so a record carries its own rules
(docs/rules.md names the rules; OpenTafl's notation names the keys)::

    dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/

=========  =======================================================================================
``dim``    the board's size (7 for 7x7)
``esc``    where the king escapes: ``c`` a corner, ``e`` any edge square (§7)
``ka``     ``y`` when the king is armed, a jaw of captures (§4)
``ks``     the king's strength in OpenTafl's terms: ``c`` with a throne (strong on and beside it,
           which ``kbt`` says more exactly here), ``n`` without one: a weak king (§6)
``tfr``    ``l``: the player who makes a position for the third time loses (§9)
``cen``    empty when the board has no throne; ``cor`` empty when corners are ordinary squares
``cenhe``  ``tT``: the empty throne is hostile to attackers and defenders (§5); here never to the
           king, whom OpenTafl counts with the defenders (so ``ks:c`` takes him with three)
``cenp``   ``K`` when only the king may pass over the throne (others may by default, §3)
``kbt``    attackers needed around a king beside the throne: 2 (along a line) or 3 (§6)
``dbt``    ``y``: a defender beside the king on his besieged throne is taken against it
``dca``    ``y``: the defenders also win by capturing every attacker
``start``  the starting position
=========  =======================================================================================

``kbt``, ``dbt`` and ``dca`` are this project's additions to OpenTafl's keys; OpenTafl ignores
them, and ``ks`` says what it can of the king's strength (:func:`opentafl_king_strength`). Reading
takes the other OpenTafl keys too, and refuses with a sentence any value this engine cannot play (a
strong king, shieldwalls, draws by repetition...): a game is never replayed under other rules
than its record's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import PositionError
from engine.rules import Escape, Ruleset
from engine.squares import square, square_name

_YES_NO = {"y": True, "n": False}

_Reader = Callable[[dict[str, Any], str, int], None]
"""Reads one key's value into the ruleset's fields (given the board size), or refuses it."""


def rules_string(rules: Ruleset, start: str | None = None) -> str:
    """The OpenTafl rules string of ``rules``, starting from ``start`` (its layout if ``None``).

    >>> from engine.rules import get_ruleset
    >>> rules_string(get_ruleset("ard-ri"), start="/7/7/7/3K3/7/7/7/")
    'dim:7 esc:e ka:y ks:n tfr:l cen: cor: kbt:2 dbt:n dca:n start:/7/7/7/3K3/7/7/7/'
    """
    parts = [
        f"dim:{rules.size}",
        f"esc:{'c' if rules.escape is Escape.CORNERS else 'e'}",
        f"ka:{'y' if rules.king_armed else 'n'}",
        f"ks:{opentafl_king_strength(rules)}",
        "tfr:l",
    ]
    if rules.throne:
        parts.append("cenhe:tT")
        if not rules.throne_passable:
            parts.append("cenp:K")
    else:
        parts.append("cen:")
    if not rules.corners_restricted:
        parts.append("cor:")
    parts += [
        f"kbt:{rules.king_sides_beside_throne}",
        f"dbt:{'y' if rules.defender_captured_against_besieged_throne else 'n'}",
        f"dca:{'y' if rules.defenders_win_by_capturing_all else 'n'}",
        f"start:{start or rules.layout}",
    ]
    return " ".join(parts)


def opentafl_king_strength(rules: Ruleset) -> str:
    """OpenTafl's ``ks`` value for the king of ``rules``: ``c`` on a board with a throne, else
    ``n`` (README, "Game records", says where OpenTafl's king still differs).

    OpenTafl (jslater89/OpenTafl, ``Rules.java``) has ``KING_STRONG_CENTER`` ("strong when on or
    adjacent to the throne, and weak elsewhere"): strong, he falls when all four squares around
    him are hostile, the empty throne among them as it is to defenders (``cenhe:tT``). That is
    four attackers on the throne and three beside it, this engine's ``kbt:3``. OpenTafl has no
    king who needs four on the throne but two beside it (``kbt:2``, World Tafl Federation
    brandubh); its weak king (``ks:n``) falls to two on the throne too, and to one against the
    empty throne, so ``c`` is the nearer: OpenTafl misses the two across beside the throne, which
    end the game, and takes a king who walked in between two there when a third closes against
    the throne. Without a throne both are the weak king: ``n``.

    >>> from engine.rules import get_ruleset
    >>> [opentafl_king_strength(get_ruleset(name)) for name in ("tablut", "brandubh", "ard-ri")]
    ['c', 'c', 'n']
    """
    return "c" if rules.throne else "n"


def read_rules_string(
    line: str, *, spec_defaults: bool = False
) -> tuple[dict[str, Any], str | None]:
    """The :class:`Ruleset` fields a rules string sets, and its ``start`` position (or ``None``).

    Keys left out are not in the result (the caller takes them from the record's variant), or,
    with ``spec_defaults``, take the values OpenTafl's notation spec gives them
    (:data:`SPEC_DEFAULTS`: a record OpenTafl wrote leaves out every rule at its default).
    Keys about the throne say nothing when the line has none (``cen:``), nor keys about the
    corners when they are ordinary squares (``cor:``). ``ks:c`` without ``kbt`` is a king who
    needs three attackers beside the throne (``kbt:3``); a ``kbt`` of the line says it more
    exactly (``ks:c kbt:2`` is World Tafl Federation brandubh's king, as this bot writes it);
    ``ks:n``, as this bot wrote every record before, leaves that to ``kbt`` or the variant. A
    value this engine cannot play raises :class:`PositionError` saying which rule it is.

    >>> read_rules_string("dim:9 esc:e ka:n start:/9/9/9/9/4K4/9/9/9/9/")
    ({'size': 9, 'escape': <Escape.EDGE: 'edge'>, 'king_armed': False}, '/9/9/9/9/4K4/9/9/9/9/')
    >>> read_rules_string("dim:11 sw:s start:/11/")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.PositionError: The record's rules ask for shieldwall captures (sw:s), which ...
    """
    fields: dict[str, Any] = {}
    start: str | None = None
    entries: dict[str, str] = {}
    for part in line.split():
        key, colon, value = part.partition(":")
        if not colon:
            raise PositionError(f"'{part}' in the record's rules line is not a key:value entry.")
        if key == "start":
            start = value
        else:
            entries[key] = value
    size = 0
    if "dim" in entries:
        value = entries.pop("dim")
        if not value.isdigit():
            raise PositionError(f"dim:{value} in the record's rules is not a board size.")
        size = fields["size"] = int(value)
    left_out = {
        key: value for key, value in SPEC_DEFAULTS.items() if spec_defaults and key not in entries
    }
    entries = {**entries, **left_out}  # the line's own rules are named first
    for key, value in entries.items():
        if (entries.get("cen") == "" and key.startswith("cen") and key != "cen") or (
            entries.get("cor") == "" and key.startswith("cor") and key != "cor"
        ):
            continue  # a rule of squares the board does not have
        reader = _READERS.get(key)
        if reader is None:
            raise PositionError(
                f"The record's rules line has {key}:{value}, a rule this bot does not know."
            )
        try:
            reader(fields, value, size)
        except PositionError as error:
            if key not in left_out:
                raise
            said = str(error).replace(f"({key}:{value})", f"({key}:{value}, {_LEFT_OUT})")
            raise PositionError(said) from None
    if entries.get("ks") == "c" and entries.get("cen") != "" and "kbt" not in entries:
        fields["king_sides_beside_throne"] = 3  # OpenTafl's own line: its strong-centre king
    return fields, start


_LEFT_OUT = "OpenTafl's default for a rule the line leaves out"

SPEC_DEFAULTS = {
    "esc": "c",
    "surf": "y",
    "tfr": "d",
    "ka": "y",
    "ks": "y",
    "kj": "n",
    "cor": "default",
    "cen": "default",
    "corh": "tcnkTCNK",
    "cenh": "tcnk",
    "cenhe": "tcnkTCNK",
    "cenp": "tcnkTCNK",
    "cors": "K",
    "cens": "K",
    "sw": "n",
    "efe": "n",
    "ber": "n",
}
"""The value OpenTafl's notation spec ("3. Rules Records", its explanatory notes) gives each
key a rules string leaves out, for the keys whose value this engine reads (``atkf``, the side
that begins, is read with the game: the attackers by default)."""


def _refuse(key: str, value: str, what: str) -> PositionError:
    return PositionError(
        f"The record's rules ask for {what} ({key}:{value}), which this bot does not play."
    )


def _pieces(value: str) -> frozenset[str]:
    """The attacker ``t``, defender ``T`` and king ``K`` of an OpenTafl piece list (knights,
    commanders and mercenaries are not in this game, so their letters say nothing)."""
    return frozenset(value) & {"t", "T", "K"}


def _choice(field: str, key: str, values: dict[str, object], refusals: dict[str, str]) -> _Reader:
    """A reader for a key whose value is one of ``values``; ``refusals`` name the others."""

    def read(fields: dict[str, Any], value: str, size: int) -> None:
        if value in values:
            if field:
                fields[field] = values[value]
            return
        if value in refusals:
            raise _refuse(key, value, refusals[value])
        raise PositionError(f"{key}:{value} in the record's rules is not a value this bot knows.")

    return read


def _only(key: str, allowed: frozenset[str], what: str) -> _Reader:
    """A reader for a piece list this engine has one answer to (``allowed``, among t/T/K)."""

    def read(fields: dict[str, Any], value: str, size: int) -> None:
        if _pieces(value) != allowed:
            raise _refuse(key, value, what)

    return read


def _anything(fields: dict[str, Any], value: str, size: int) -> None:
    """A key about pieces or squares this game does not have: nothing to honour."""


def _throne(fields: dict[str, Any], value: str, size: int) -> None:
    middle = size // 2
    if value == "":
        fields["throne"] = False
    elif value == "default" or (size and value.strip(",") == square_name(square(middle, middle))):
        fields["throne"] = True
    else:
        raise _refuse("cen", value, "a throne elsewhere than the centre")


def _corners(fields: dict[str, Any], value: str, size: int) -> None:
    last = size - 1
    corners = {square_name(square(f, r)) for f in (0, last) for r in (0, last)}
    if value == "":
        fields["corners_restricted"] = False
    elif value == "default" or (size and set(value.strip(",").split(",")) == corners):
        fields["corners_restricted"] = True
    else:
        raise _refuse("cor", value, "corner squares other than the four corners")


def _throne_passable(fields: dict[str, Any], value: str, size: int) -> None:
    pieces = _pieces(value)
    if "K" in pieces and ("t" in pieces) == ("T" in pieces):
        fields["throne_passable"] = "t" in pieces
    else:
        raise _refuse("cenp", value, "a throne that only some pieces may pass over")


def _speed_limits(fields: dict[str, Any], value: str, size: int) -> None:
    """``spd``, how far pieces may move: ``-1`` (OpenTafl's default) is as far as the line is
    free, the only way pieces move here."""
    if value != "-1":
        raise _refuse("spd", value, "pieces that move only a few squares")


def _king_returns(fields: dict[str, Any], value: str, size: int) -> None:
    """``cenre``, the pieces that may come back to the throne after leaving it: the king may,
    and no other piece stops there (``cens``)."""
    if "K" not in _pieces(value):
        raise _refuse("cenre", value, "a king who may not come back to the throne")


_READERS: dict[str, _Reader] = {
    "esc": _choice(
        "escape",
        "esc",
        {"c": Escape.CORNERS, "e": Escape.EDGE},
        {},
    ),
    "ka": _choice(
        "king_armed",
        "ka",
        dict(_YES_NO),
        {"h": "a king who captures only by moving", "a": "a king who captures only standing"},
    ),
    # OpenTafl writes a weak king "w" (its RulesSerializer), the spec "n"; "c" is read with
    # the throne keys and kbt (read_rules_string).
    "ks": _choice(
        "",
        "ks",
        {"n": None, "w": None, "c": None},
        {
            "y": "a king taken only when surrounded on four sides",
            "s": "a king taken only when surrounded on four sides",
            "m": "a king taken only when every square around him is hostile",
        },
    ),
    "tfr": _choice(
        "",
        "tfr",
        {"l": None},
        {
            "d": "a draw on the third repetition",
            "w": "a win for the player who repeats a position",
            "i": "repetitions being ignored",
        },
    ),
    "surf": _choice("", "surf", {"y": None}, {"n": "no win by encircling the defenders"}),
    "atkf": _choice("", "atkf", {"y": None}, {"n": "the defenders moving first"}),
    "kj": _choice("", "kj", {"n": None}, {jump: "the king jumping" for jump in ("r", "j", "c")}),
    "sw": _choice("", "sw", {"n": None}, {"w": "shieldwall captures", "s": "shieldwall captures"}),
    "efe": _choice("", "efe", {"n": None}, {"y": "the king escaping through an edge fort"}),
    "ber": _choice("", "ber", {"n": None}, {"c": "berserk moves", "m": "berserk moves"}),
    "afor": _choice("", "afor", {"": None}, {}),
    "dfor": _choice("", "dfor", {"": None}, {}),
    "spd": _speed_limits,
    "kbt": _choice("king_sides_beside_throne", "kbt", {"2": 2, "3": 3}, {}),
    "dbt": _choice("defender_captured_against_besieged_throne", "dbt", dict(_YES_NO), {}),
    "dca": _choice("defenders_win_by_capturing_all", "dca", dict(_YES_NO), {}),
    "cen": _throne,
    "cor": _corners,
    "cenp": _throne_passable,
    "cenh": _only("cenh", frozenset("t"), "a throne hostile to other pieces than attackers"),
    "cenhe": _only("cenhe", frozenset("tT"), "an empty throne hostile to other pieces"),
    "corh": _only("corh", frozenset("tTK"), "corners hostile to only some pieces"),
    "cens": _only("cens", frozenset("K"), "other pieces than the king stopping on the throne"),
    "cors": _only("cors", frozenset("K"), "other pieces than the king stopping on a corner"),
    "cenre": _king_returns,
    # The name OpenTafl's RulesSerializer writes after the size (``name:Brandub``) says no rule.
    "name": _anything,
    # Corners end every line, so passing over one cannot happen, nor can leaving one and coming
    # back (``corre``); the rest concern pieces (knights, commanders) and fortresses this game
    # does not have.
    "corp": _anything,
    "corre": _anything,
    "aforre": _anything,
    "dforre": _anything,
    "nj": _anything,
    "cj": _anything,
    "swf": _anything,
    "aforh": _anything,
    "dforh": _anything,
    "aforp": _anything,
    "dforp": _anything,
    "afors": _anything,
    "dfors": _anything,
}
