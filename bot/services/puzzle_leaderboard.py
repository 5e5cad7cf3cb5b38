"""A server's puzzle leaderboard: the period it counts, a solver's line and a page of it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage.puzzles import SolverRow


class Period(enum.Enum):
    """Which finished attempts a puzzle leaderboard counts (the value is the command's choice
    and goes into the page buttons' ids)."""

    ALL_TIME = "all"
    LAST_30_DAYS = "30d"

    def since(self, now: datetime) -> datetime | None:
        """The earliest finish that counts (None: every one)."""
        return now - RECENT if self is Period.LAST_30_DAYS else None


RECENT = timedelta(days=30)
"""The span of the "last 30 days" leaderboard, back from the moment it is asked for."""


BOARD_PAGE_MAX = 100
"""The most players a page of the puzzle leaderboard holds (as /leaderboard's)."""


@dataclass(frozen=True)
class SolverStanding:
    """A player's line on a server's puzzle leaderboard."""

    rank: int
    user_id: int
    display_name: str | None
    """The last known display name (None: the bot never learned it)."""
    solved: int
    attempted: int
    """Puzzles finished: solved or failed (one still being played does not count yet)."""
    reached_us: int = 0
    """When the count was reached (microseconds): the tie-break, kept for the row's key."""
    username: str | None = None
    """The account's username: it follows the name when another line reads alike."""

    @property
    def percent(self) -> int:
        """The solve rate in whole percent, rounded down as /puzzle stats shows it."""
        return self.solved * 100 // self.attempted


@dataclass(frozen=True)
class SolverKey:
    """Where a line stands in the puzzle leaderboard's order: more solved first, then the
    higher rate, then whoever reached the count first, then the lower user id (no two lines
    share one). A page turned from a line starts strictly after (or ends strictly before) it,
    so a puzzle finished between two presses neither repeats a player nor skips one."""

    solved: int
    attempted: int
    reached_us: int
    user_id: int

    @classmethod
    def of(cls, row: SolverStanding) -> SolverKey:
        """The key of a line as it was shown."""
        return cls(row.solved, row.attempted, row.reached_us, row.user_id)


@dataclass(frozen=True)
class SolverBoard:
    """A page of a server's puzzle leaderboard, and the viewer's own line when it is not on it."""

    guild_id: int
    period: Period
    viewer_id: int
    offset: int
    limit: int
    total: int
    """Players who finished a puzzle in the server in the period."""
    rows: tuple[SolverStanding, ...]
    viewer: SolverStanding | None
    """The viewer's line when it is not on the page (None: on it, or no puzzle finished here)."""


def solver_standing(row: SolverRow) -> SolverStanding:
    """A stored solver's line on the puzzle leaderboard (the puzzle service pages them)."""
    return SolverStanding(
        row.place,
        row.user_id,
        row.display_name,
        row.solved,
        row.attempted,
        row.reached_us,
        row.username,
    )
