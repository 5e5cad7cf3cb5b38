"""How a game ends: the reason, the winner and a sentence for players."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.squares import Side


class Reason(enum.Enum):
    """Why a game ended."""

    KING_CAPTURED = "king_captured"
    KING_ESCAPED = "king_escaped"
    ENCIRCLED = "encircled"
    REPETITION = "repetition"
    NO_MOVES = "no_moves"
    ALL_CAPTURED = "all_captured"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ABORTED = "aborted"

    def __str__(self) -> str:
        return self.value

    @property
    def from_outside(self) -> bool:
        """Whether a game ends this way by being told so (resigned, out of time, aborted),
        after its last move rather than by it."""
        return self in (Reason.RESIGNED, Reason.TIMEOUT, Reason.ABORTED)


_EXPLANATIONS = {
    Reason.KING_CAPTURED: "the king was captured",
    Reason.KING_ESCAPED: "the king escaped",
    Reason.ENCIRCLED: "the attackers encircled the king and every defender",
    Reason.REPETITION: "the {loser} repeated a position for the third time",
    Reason.NO_MOVES: "the {loser} had no legal move",
    Reason.ALL_CAPTURED: "every attacker was captured",
    Reason.RESIGNED: "the {loser} resigned",
    Reason.TIMEOUT: "the {loser} ran out of time",
    Reason.ABORTED: "the game was aborted",
}


@dataclass(frozen=True)
class Outcome:
    """The end of a game: ``winner`` is ``None`` when nobody won (an aborted game)."""

    winner: Side | None
    reason: Reason

    @property
    def explanation(self) -> str:
        """Why the game ended, as a clause: "the king escaped"."""
        loser = self.winner.opponent.value if self.winner else "players"
        return _EXPLANATIONS[self.reason].format(loser=loser)

    def __str__(self) -> str:
        if self.winner is None:
            return f"No winner: {self.explanation}."
        return f"The {self.winner.value} win: {self.explanation}."
