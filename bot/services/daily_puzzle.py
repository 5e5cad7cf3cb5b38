"""The daily puzzle's values: a server's setting (channel, hour, next post), why it was switched
off when no admin did it, a post to make, and the pauses and hours of its timer."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from bot.storage import puzzles
from bot.storage.puzzles import DailyPostRow
from engine.puzzles import Puzzle

DAILY_RETRY = timedelta(minutes=1)
"""A claimed daily post Discord refused is tried again after this, the pause doubling with
each refusal up to :data:`DAILY_RETRY_MAX` (a channel the bot may not post in stays so until
an admin acts: the bot keeps trying, without a warning a minute)."""
DAILY_RETRY_MAX = timedelta(hours=1)


@dataclass(frozen=True)
class DailySetting:
    """A server's daily puzzle: the channel it is posted in, its hour (UTC) and the next post."""

    guild_id: int
    channel_id: int
    hour: int
    next_post: datetime


class DailyStop(enum.Enum):
    """Why a daily puzzle was switched off when no admin did it (the value is stored)."""

    LEFT_SERVER = puzzles.LEFT_SERVER
    """The bot was removed from the server."""
    CHANNEL_DELETED = puzzles.CHANNEL_DELETED
    """The channel it was posted in was deleted."""


DEFAULT_DAILY_HOUR = 12
"""The daily puzzle's hour (UTC) when an admin names only a channel the first time."""


@dataclass(frozen=True)
class DailyPost:
    """A daily post to make: the server, day, channel, puzzle and yesterday's solvers."""

    guild_id: int
    day: str
    channel_id: int
    puzzle: Puzzle
    previous: DailyPostRow | None
    previous_solvers: tuple[int, ...]


def next_at(moment: datetime, hour: int) -> datetime:
    """The first ``hour``:00 UTC at or after ``moment``."""
    today = datetime.combine(moment.astimezone(UTC).date(), time(hour), tzinfo=UTC)
    return today if today >= moment else today + timedelta(days=1)
