"""Rulesets: one frozen dataclass of parameters, and the presets of ``docs/rules.md``.

A variant is data, not code: the board, the move generator and the capture rules read these
fields and nothing else.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from engine.errors import UnknownRulesetError
from engine.translation import N_


class Escape(enum.Enum):
    """Where the king must go to win."""

    CORNERS = "corners"
    EDGE = "edge"


@dataclass(frozen=True)
class Ruleset:
    """Every parameter in which the tafl games this engine plays differ."""

    name: str
    title: str
    size: int
    layout: str
    """Starting position as an OpenTafl position string (first row listed is rank 1)."""
    layout_source: str
    summary: str
    throne: bool = True
    """The centre square is a throne: restricted, hostile to attackers, to defenders when empty."""
    corners_restricted: bool = True
    """The four corners are restricted (king only) and hostile to every piece, the king too."""
    escape: Escape = Escape.CORNERS
    king_armed: bool = True
    """The king can be a jaw of a capture."""
    king_sides_beside_throne: int = 2
    """Attackers needed around a king next to the throne: 2 (along the other line) or 3."""
    defender_captured_against_besieged_throne: bool = False
    """A defender beside the occupied throne falls against it if attackers hold its other sides."""
    defenders_win_by_capturing_all: bool = False
    throne_passable: bool = True
    """Pieces other than the king may pass over the empty throne."""

    def __post_init__(self) -> None:
        if not 5 <= self.size <= 15 or self.size % 2 == 0:
            raise ValueError(f"a ruleset needs an odd board size from 5 to 15, not {self.size}")
        if self.king_sides_beside_throne not in (2, 3):
            raise ValueError("king_sides_beside_throne is 2 or 3")

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        """Code that rebuilds this ruleset (with ``Ruleset`` and ``Escape`` in scope)."""
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            text = f"Escape.{value.name}" if isinstance(value, Escape) else repr(value)
            parts.append(f"{field.name}={text}")
        return f"Ruleset({', '.join(parts)})"


_BRANDUBH_LAYOUT = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
_BRANDUBH_SOURCE = "World Tafl Federation brandubh rules; drawn in docs/rules.md"

BRANDUBH = Ruleset(
    name="brandubh",
    title=N_("Brandubh (World Tafl Federation)"),
    size=7,
    layout=_BRANDUBH_LAYOUT,
    layout_source=_BRANDUBH_SOURCE,
    summary=N_(
        "The king escapes to a corner; the attackers capture him (four sides on the throne, two "
        "elsewhere) or encircle every defender. The throne and corners are for the king only, "
        "and hostile. The king is armed: he can help capture."
    ),
)

BRANDUBH_CLASSIC = Ruleset(
    name="brandubh-classic",
    title=N_("Brandubh (classic castle rules)"),
    size=7,
    layout=_BRANDUBH_LAYOUT,
    layout_source=_BRANDUBH_SOURCE,
    summary=N_(
        "As Brandubh, but a king beside the throne needs attackers on his three free sides, a "
        "defender beside the besieged throne can be taken against it, and the defenders also "
        "win by capturing every attacker."
    ),
    king_sides_beside_throne=3,
    defender_captured_against_besieged_throne=True,
    defenders_win_by_capturing_all=True,
)

BRANDUBH_HISTORICAL = Ruleset(
    name="brandubh-historical",
    title=N_("Brandubh (historical hnefatafl rules)"),
    size=7,
    layout=_BRANDUBH_LAYOUT,
    layout_source=_BRANDUBH_SOURCE,
    summary=N_(
        "As Brandubh, but a king beside the throne needs attackers on his three free sides."
    ),
    king_sides_beside_throne=3,
)

ARD_RI = Ruleset(
    name="ard-ri",
    title=N_("Ard Rí"),
    size=7,
    # The Ard Rí layout of Damian Walker (tafl.cyningstan.com) and aagenielsen.dk: the king
    # ringed by eight defenders, three attackers on each edge with a fourth in front of them.
    layout="/2ttt2/3t3/t1TTT1t/ttTKTtt/t1TTT1t/3t3/2ttt2/",
    layout_source="Ard Rí layout of tafl.cyningstan.com / aagenielsen.dk historical hnefatafl",
    summary=N_(
        "No restricted squares; the king escapes on any edge square and is captured like any "
        "piece. Sixteen attackers against the king and eight defenders."
    ),
    throne=False,
    corners_restricted=False,
    escape=Escape.EDGE,
)

_HISTORICAL_SUMMARY = N_(
    "The king escapes on any edge square. He is captured by four attackers on the throne, three "
    "beside it and two elsewhere. Only the throne is restricted."
)

TABLUT = Ruleset(
    name="tablut",
    title=N_("Tablut (9x9)"),
    size=9,
    # Linnaeus' Tablut as reconstructed in the OpenTafl notation spec (its "Sea Battle 9x9"
    # record uses the same layout) and aagenielsen.dk.
    layout="/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
    layout_source="Linnaeus' Tablut, as in the OpenTafl notation spec and aagenielsen.dk",
    summary=_HISTORICAL_SUMMARY,
    corners_restricted=False,
    escape=Escape.EDGE,
    king_sides_beside_throne=3,
)

HNEFATAFL = Ruleset(
    name="hnefatafl",
    title=N_("Hnefatafl (11x11)"),
    size=11,
    # The Fetlar/Copenhagen diamond, from the OpenTafl notation spec.
    layout=("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"),
    layout_source="Fetlar/Copenhagen diamond layout, OpenTafl notation spec",
    summary=_HISTORICAL_SUMMARY,
    corners_restricted=False,
    escape=Escape.EDGE,
    king_sides_beside_throne=3,
)

HNEFATAFL_13 = Ruleset(
    name="hnefatafl-13",
    title=N_("Hnefatafl (13x13)"),
    size=13,
    # The 11x11 diamond widened to 13x13 as in the historical-hnefatafl diagrams of
    # aagenielsen.dk: five attackers on each edge plus one in front, twelve defenders in a cross.
    layout=("/4ttttt4/6t6/13/13/t5T5t/t4TTT4t/tt2TTKTT2tt/t4TTT4t/t5T5t/13/13/6t6/4ttttt4/"),
    layout_source="13x13 historical hnefatafl layout after aagenielsen.dk",
    summary=_HISTORICAL_SUMMARY,
    corners_restricted=False,
    escape=Escape.EDGE,
    king_sides_beside_throne=3,
)

HNEFATAFL_15 = Ruleset(
    name="hnefatafl-15",
    title=N_("Hnefatafl (15x15)"),
    size=15,
    # 15x15 historical hnefatafl after aagenielsen.dk: seven attackers on each edge plus one in
    # front (32), sixteen defenders in a cross around the king.
    layout=(
        "/4ttttttt4/7t7/15/15/t6T6t/t6T6t/t5TTT5t/tt2TTTKTTT2tt/t5TTT5t/t6T6t/t6T6t/15/15/"
        "7t7/4ttttttt4/"
    ),
    layout_source="15x15 historical hnefatafl layout after aagenielsen.dk",
    summary=_HISTORICAL_SUMMARY,
    corners_restricted=False,
    escape=Escape.EDGE,
    king_sides_beside_throne=3,
)

RULESETS: dict[str, Ruleset] = {
    r.name: r
    for r in (
        BRANDUBH,
        BRANDUBH_CLASSIC,
        BRANDUBH_HISTORICAL,
        ARD_RI,
        TABLUT,
        HNEFATAFL,
        HNEFATAFL_13,
        HNEFATAFL_15,
    )
}


def get_ruleset(ruleset: str | Ruleset) -> Ruleset:
    """The preset called ``ruleset`` (or ``ruleset`` itself), else ``UnknownRulesetError``."""
    if isinstance(ruleset, Ruleset):
        return ruleset
    try:
        return RULESETS[ruleset.strip().lower()]
    except KeyError:
        names = ", ".join(RULESETS)
        raise UnknownRulesetError(
            f"There is no ruleset called '{ruleset}': choose one of {names}."
        ) from None
