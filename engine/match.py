"""Scoring a match of two sets (docs/rules.md §11), as a pure function."""

from __future__ import annotations

import enum
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

PlayerT = TypeVar("PlayerT", bound=Hashable)


class MatchReason(enum.Enum):
    """How a match was decided."""

    MORE_WINS = "more_wins"
    """Two wins out of two, or the only set that had a winner."""
    FEWER_MOVES = "fewer_moves"
    """One win each: the player who won their set in fewer moves."""
    EQUAL_MOVES = "equal_moves"
    """One win each in the same number of moves: a drawn match."""
    NO_WINS = "no_wins"
    """No set had a winner (aborted sets): a drawn match."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SetResult(Generic[PlayerT]):
    """One finished set: who won it (``None`` if nobody) and its moves, both sides counted.

    A set lost by resignation or timeout is a win for the other player in the moves played.
    """

    winner: PlayerT | None
    moves: int


@dataclass(frozen=True)
class MatchResult(Generic[PlayerT]):
    """The match winner (``None`` for a drawn match), how it was decided and the set wins."""

    winner: PlayerT | None
    reason: MatchReason
    wins: dict[PlayerT, int]


def score_match(
    players: Sequence[PlayerT], sets: Sequence[SetResult[PlayerT]]
) -> MatchResult[PlayerT]:
    """The result of a match between ``players`` (two of them) over its finished ``sets`` (one
    or two; none when no set has finished).

    >>> score_match(("Aoife", "Brian"), [SetResult("Aoife", 31), SetResult("Brian", 24)]).winner
    'Brian'
    """
    if len(players) != 2 or players[0] == players[1]:
        raise ValueError("a match has two different players")
    if len(sets) > 2:
        raise ValueError(f"a match has one or two sets, not {len(sets)}")
    wins = {player: 0 for player in players}
    moves: dict[PlayerT, int] = {}
    for result in sets:
        if result.winner is None:
            continue
        if result.winner not in wins:
            raise ValueError(f"{result.winner!r} is not a player of this match")
        wins[result.winner] += 1
        moves[result.winner] = result.moves
    first, second = players
    for winner, loser in ((first, second), (second, first)):
        if wins[winner] > wins[loser]:
            return MatchResult(winner, MatchReason.MORE_WINS, wins)
    if wins[first] == 0:
        return MatchResult(None, MatchReason.NO_WINS, wins)
    # One win each (docs/rules.md §11): the set won in fewer moves takes the match.
    for winner, loser in ((first, second), (second, first)):
        if moves[winner] < moves[loser]:
            return MatchResult(winner, MatchReason.FEWER_MOVES, wins)
    return MatchResult(None, MatchReason.EQUAL_MOVES, wins)
