"""The king's strength in an exported record, as OpenTafl replays it: for each preset, the king
flanked on and beside the throne (and elsewhere) falls in OpenTafl, reading the export's rules
keys, exactly when he falls here, or, for World Tafl Federation brandubh, which OpenTafl has no
king strength for, but in the two places the README names.

``opentafl_takes_king`` is OpenTafl's king capture as its code reads the rules tag
(jslater89/OpenTafl, the files named in its docstring), written out once so that each preset's
keys are checked against it rather than against what this bot means by them.
"""

from __future__ import annotations

import itertools

import pytest

from engine import (
    RULESETS,
    Game,
    Piece,
    Reason,
    Ruleset,
    Square,
    get_ruleset,
    read_record,
    write_record,
)
from engine.layout import format_position
from engine.rules_string import read_rules_string, rules_string
from engine.squares import square, square_name

_KING_MODES = {"s": "strong", "y": "strong", "c": "center", "m": "middleweight", "w": "weak"}
_DEFAULTS = {"ks": "s", "cenhe": "tcnkTCNK", "corh": "tcnkTCNK"}


def opentafl_keys(line: str) -> dict[str, str]:
    """The ``key:value`` entries of a rules string, as RulesSerializer.getRulesMap splits them."""
    entries = (part.partition(":") for part in line.split())
    return {key: value for key, _, value in entries}


def opentafl_takes_king(
    size: int, pieces: dict[Square, Piece], king: Square, mover: Square, keys: dict[str, str]
) -> bool:
    """Whether OpenTafl takes the king on ``king`` when an attacker has just moved to ``mover``
    (``pieces`` is the board after the move), under the rules keys ``keys``.

    jslater89/OpenTafl, src/com/manywords/softworks/tafl/notation/RulesSerializer.java::

        if(kingMode.equals("s") || kingMode.equals("y")) return Rules.KING_STRONG;
        if(kingMode.equals("c")) return Rules.KING_STRONG_CENTER;
        if(kingMode.equals("w") || kingMode.equals("n")) return Rules.KING_WEAK;

    src/com/manywords/softworks/tafl/rules/Rules.java: ``KING_STRONG_CENTER`` "The king is strong
    when on or adjacent to the throne, and weak elsewhere"; its evaluator
    (src/com/manywords/softworks/tafl/engine/ai/evaluators/FishyEvaluator.java) spells it out::

        if(board.getCenterAndAdjacentSpaces().contains(taflmanCoord)) {
            currentKingStrength = Rules.KING_STRONG;
        }
        else currentKingStrength = Rules.KING_WEAK;

    src/com/manywords/softworks/tafl/rules/Taflman.java, ``isCapturedBy``: a strong king falls
    when all four squares around him are hostile, else a piece falls between two::

        } else if (board.isSpaceHostileTo(space, taflman)) {
            hostileAdjacentSpaces++;
        ...
        } else if (hostileAdjacentSpaces == 4) {
            return true;

    and, for the sandwich, "If we're at the top or bottom of the board, we can't be captured by
    sandwich". BoardImpl.isSpaceHostileTo: a square holding a piece of the other side is hostile,
    else the rules say. src/com/manywords/softworks/tafl/rules/GenericRules.java (the rules a
    rules tag loads), ``isSpaceHostileToSide``, asks only for the side, so the king is hostile
    to what a defender is::

        hostilityArray = (centerOccupier == Taflman.EMPTY ? emptyCenterHostileTo : centerHostileTo);
        ...
        else {
            return hostilityArray[TaflmanCodes.T];
    """
    mode = _KING_MODES.get(keys.get("ks", _DEFAULTS["ks"]), "weak")  # "n": weak as "w"
    last = size - 1
    centre = square(size // 2, size // 2)
    centres = set() if keys.get("cen") == "" else {centre}
    corners = (
        set() if keys.get("cor") == "" else {square(f, r) for f in (0, last) for r in (0, last)}
    )

    def around(sq: Square) -> list[Square]:
        f, r = sq & 15, sq >> 4
        steps = ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1))
        return [square(x, y) for x, y in steps if 0 <= x <= last and 0 <= y <= last]

    def hostile(sq: Square) -> bool:
        occupier = pieces.get(sq)
        if occupier is Piece.ATTACKER:
            return True
        if sq in centres:
            key = "cenhe" if occupier is None else "cenh"
            return "T" in keys.get(key, _DEFAULTS.get(key, "tcnk"))
        if sq in corners:
            return "T" in keys.get("corh", _DEFAULTS["corh"])
        return False

    near_throne = centres | {sq for c in centres for sq in around(c)}
    if mode == "strong" or (mode == "center" and king in near_throne):
        return sum(hostile(sq) for sq in around(king)) == 4
    f, r = king & 15, king >> 4
    if (mover & 15) == f:  # along the king's file
        if r in (0, last):
            return False
        return hostile(square(f, r - 1)) and hostile(square(f, r + 1))
    if f in (0, last):
        return False
    return hostile(square(f - 1, r)) and hostile(square(f + 1, r))


_CASES = {
    # name: (king, attackers standing, mover's move), as file/rank offsets from the centre
    "on the throne, two attackers": ((0, 0), [(-1, 0)], ((1, 2), (1, 0))),
    "on the throne, four attackers": ((0, 0), [(-1, 0), (0, -1), (0, 1)], ((1, 2), (1, 0))),
    "beside the throne, one against it": ((0, 1), [], ((2, 2), (0, 2))),
    "beside the throne, two across": ((0, 1), [(-1, 1)], ((1, 3), (1, 1))),
    "beside the throne, three": ((0, 1), [(-1, 1), (0, 2)], ((1, 3), (1, 1))),
    "beside the throne, three, the last against it": ((0, 1), [(-1, 1), (1, 1)], ((1, 2), (0, 2))),
    "two squares off, two attackers": ((-2, 0), [(-2, -1)], ((-1, 1), (-2, 1))),
}
"""Where the king stands, flanked, and the attacker's move that may take him."""


def play_case(ruleset: Ruleset, case: str, keys: dict[str, str] | None = None) -> tuple[bool, bool]:
    """Whether this engine, and OpenTafl reading ``keys`` (``ruleset``'s exported rules unless
    given), take the king."""
    m = ruleset.size // 2
    (kf, kr), standing, ((ff, fr), (tf, tr)) = _CASES[case]
    king, frm, to = square(m + kf, m + kr), square(m + ff, m + fr), square(m + tf, m + tr)
    pieces = {square(m + f, m + r): Piece.ATTACKER for f, r in standing}
    return play_move(ruleset, king, pieces, frm, to, keys)


def play_move(
    ruleset: Ruleset,
    king: Square,
    pieces: dict[Square, Piece],
    frm: Square,
    to: Square,
    keys: dict[str, str] | None = None,
) -> tuple[bool, bool]:
    """Whether this engine, and OpenTafl reading ``keys``, take the king on ``king`` (among
    ``pieces``) when an attacker moves from ``frm`` to ``to``."""
    pieces = {**pieces, king: Piece.KING}
    start = format_position(ruleset.size, {**pieces, frm: Piece.ATTACKER})
    game = Game.from_position(start, ruleset=ruleset)
    game.play(f"{square_name(frm)}-{square_name(to)}")
    taken_here = game.outcome is not None and game.outcome.reason is Reason.KING_CAPTURED
    after = {**pieces, to: Piece.ATTACKER}
    keys = opentafl_keys(rules_string(ruleset)) if keys is None else keys
    return taken_here, opentafl_takes_king(ruleset.size, after, king, to, keys)


EXACT = [name for name in RULESETS if name != "brandubh"]


@pytest.mark.parametrize("case", list(_CASES))
@pytest.mark.parametrize("name", EXACT)
def test_opentafl_takes_the_king_where_this_bot_does(name: str, case: str) -> None:
    """Every preset but WTF brandubh: OpenTafl, reading the export, takes the king as here."""
    taken_here, taken_there = play_case(get_ruleset(name), case)
    assert taken_there == taken_here


def test_the_cases_take_and_spare_the_king_here() -> None:
    """The positions are the rule's triggers and near misses: the kbt:3 king falls in three."""
    taken = {case: play_case(get_ruleset("tablut"), case)[0] for case in _CASES}
    assert [case for case, fell in taken.items() if fell] == [
        "on the throne, four attackers",
        "beside the throne, three",
        "beside the throne, three, the last against it",
        "two squares off, two attackers",
    ]


@pytest.mark.parametrize(
    ("name", "strength"),
    [(name, "c" if get_ruleset(name).throne else "n") for name in RULESETS],
)
def test_the_presets_with_a_throne_export_opentafls_strong_centre_king(
    name: str, strength: str
) -> None:
    """ks:c wherever there is a throne (brandubh's kbt:2 too), ks:n without one (ard-ri)."""
    assert opentafl_keys(rules_string(get_ruleset(name)))["ks"] == strength


def test_wtf_brandubh_differs_in_opentafl_only_where_the_readme_says() -> None:
    """ks:c for WTF brandubh: beside the throne OpenTafl misses two across (which end the game
    here) and takes a king between two when a third closes against the throne."""
    brandubh = get_ruleset("brandubh")
    differ = {case: play_case(brandubh, case) for case in _CASES}
    assert {case: taken for case, taken in differ.items() if len(set(taken)) == 2} == {
        "beside the throne, two across": (True, False),
        "beside the throne, three, the last against it": (False, True),
    }


Difference = tuple[Square, Square, bool, bool]
"""The king's square, the attacker's, and whether this engine and OpenTafl take him."""


def sweep(ruleset: Ruleset, keys: dict[str, str] | None = None) -> list[Difference]:
    """Every flanking of a king on, beside and two squares off the throne (each square around him
    an attacker or empty, an attacker moving onto one of the empty ones from beyond) on which
    OpenTafl, reading ``keys`` (the export's unless given), and this engine disagree."""
    m, last = ruleset.size // 2, ruleset.size - 1
    differences = []
    for df, dr in itertools.product(range(-2, 3), repeat=2):
        if abs(df) + abs(dr) > 2:
            continue
        kf, kr = m + df, m + dr
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        for held in itertools.product((False, True), repeat=4):
            pieces = {
                square(kf + sf, kr + sr): Piece.ATTACKER
                for (sf, sr), attacker in zip(steps, held, strict=True)
                if attacker and (df + sf, dr + sr) != (0, 0)
            }
            for (sf, sr), attacker in zip(steps, held, strict=True):
                tf, tr, ff, fr = kf + sf, kr + sr, kf + 2 * sf, kr + 2 * sr
                off_board = not (0 <= ff <= last and 0 <= fr <= last)
                if attacker or off_board or (m, m) in ((tf, tr), (ff, fr)):
                    continue
                king, frm, to = square(kf, kr), square(ff, fr), square(tf, tr)
                here, there = play_move(ruleset, king, pieces, frm, to, keys)
                if here != there:
                    differences.append((king, to, here, there))
    return differences


@pytest.mark.parametrize("name", list(RULESETS))
def test_opentafl_never_takes_the_king_where_this_bot_does_not(name: str) -> None:
    """Every flanking near the throne: the exact presets agree, and WTF brandubh differs only
    on the two across beside the throne and on a third closing against it."""
    ruleset = get_ruleset(name)
    differences = sweep(ruleset)
    if name in EXACT:
        assert differences == []
        return
    m = ruleset.size // 2
    throne = square(m, m)
    kinds = set()
    for king, to, here, there in differences:
        against_the_throne = to - king == king - throne
        kinds.add((here, there, against_the_throne))
    assert kinds == {(True, False, False), (False, True, True)}


def test_ks_c_takes_brandubhs_king_early_only_where_ks_n_did() -> None:
    """Where OpenTafl ends a WTF brandubh game the bot went on with, ks:c is a few of ks:n's."""
    brandubh = get_ruleset("brandubh")
    ks_n = {**opentafl_keys(rules_string(brandubh)), "ks": "n"}
    early_c = {(king, to) for king, to, here, _ in sweep(brandubh) if not here}
    early_n = {(king, to) for king, to, here, _ in sweep(brandubh, ks_n) if not here}
    assert early_c < early_n
    assert len(early_c) == 4


def test_no_opentafl_king_strength_is_wtf_brandubhs() -> None:
    """Of OpenTafl's king strengths under brandubh's other keys, none takes the king as here."""
    brandubh = get_ruleset("brandubh")
    for strength in ("s", "c", "m", "w"):
        keys = {**opentafl_keys(rules_string(brandubh)), "ks": strength}
        misses = [case for case in _CASES if len(set(play_case(brandubh, case, keys))) == 2]
        assert misses, f"ks:{strength} would take the king as brandubh does"


STRONG_CENTRE = [name for name in RULESETS if "ks:c" in rules_string(RULESETS[name])]


@pytest.mark.parametrize("name", STRONG_CENTRE)
def test_a_ks_c_rules_line_round_trips(name: str) -> None:
    """The new rules line reads back as its preset; without kbt, ks:c alone says kbt:3."""
    ruleset = get_ruleset(name)
    line = rules_string(ruleset)
    assert read_record(f"[rules:{line}]\n\n").ruleset is ruleset
    fields, _ = read_rules_string(line.replace(f" kbt:{ruleset.king_sides_beside_throne}", ""))
    assert fields["king_sides_beside_throne"] == 3


@pytest.mark.parametrize("name", STRONG_CENTRE)
def test_a_record_written_with_ks_n_still_reads_as_its_game(name: str) -> None:
    """Records exported before (ks:n kbt:3) replay to the same game as the new ks:c ones."""
    ruleset = get_ruleset(name)
    game = Game(ruleset)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    new = write_record(game, {"date": "2026.11.29"})
    old = new.replace(" ks:c ", " ks:n ")
    assert old != new
    assert read_record(old) == read_record(new) == game


def test_ks_c_with_kbt_2_reads_as_wtf_brandubhs_king() -> None:
    """Our own kbt wins over ks:c: ks:c kbt:2 is WTF brandubh's king, two beside the throne."""
    fields, _ = read_rules_string("dim:7 ks:c kbt:2")
    assert fields["king_sides_beside_throne"] == 2


def test_ks_c_without_a_throne_is_the_weak_king() -> None:
    """OpenTafl's strong-centre king on a board with no throne is weak everywhere (as ard-ri's)."""
    assert read_rules_string("dim:7 ks:c cen: cor:")[0] == {
        "size": 7,
        "throne": False,
        "corners_restricted": False,
    }
