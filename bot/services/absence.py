"""The bot's absence: what a start-up gives back for the time the bot was down.

Nobody can move, accept a challenge or answer a takeback request while the bot is down, so the
deadlines that run out for want of an answer stand still then: at start-up the time since the
timers last ran is given back to every move clock that was running, and to the expiry of every
challenge and takeback request that was open — never more than each had run.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.shards import Shards
from bot.storage import clocks
from bot.storage.connection import Connection
from bot.storage.times import from_us


class Expiring(enum.Enum):
    """What waits for an answer until an expiry."""

    CHALLENGE = "challenge"
    TAKEBACK = "takeback request"


@dataclass(frozen=True)
class MovedExpiry:
    """An open challenge or takeback request whose expiry a start-up moved on: its message
    still shows the old time until it is edited."""

    kind: Expiring
    row_id: int
    """The challenge's or takeback's id."""
    channel_id: int
    message_id: int | None
    """The message asking for the answer (None if it was never posted)."""
    expires_at: datetime


@dataclass(frozen=True)
class Resumed:
    """What a start-up gave back for the bot's absence."""

    away: timedelta
    """How long the timers had not run (zero on the very first start)."""
    clocks: list[tuple[int, int, datetime]]
    """``(set_id, channel_id, new deadline)`` of each set whose clock was given time."""
    expiries: list[MovedExpiry]
    """The challenges and takeback requests whose expiry was moved on."""


async def give_time_back(
    db: Connection,
    last_us: int | None,
    now_us: int,
    shards: Shards,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> Resumed:
    """Give the time from ``last_us`` (when timers that drove the servers of ``shards`` last
    ran, or when ``guild_id`` or ``channel_id`` was closed to its players; None if never) to
    ``now_us`` back to the clocks, challenges and takeback requests still running at
    ``last_us`` (only ``guild_id``'s, or ``channel_id``'s, if given), each capped at the time
    it had run; in the caller's transaction."""
    if last_us is None or last_us >= now_us:
        return Resumed(timedelta(0), [], [])
    place = {"guild_id": guild_id, "channel_id": channel_id}
    moved = await clocks.give_back(db, last_us, now_us, shards, **place)
    challenges = await clocks.give_back_challenges(db, last_us, now_us, shards, **place)
    takebacks = await clocks.give_back_takebacks(db, last_us, now_us, shards, **place)
    expiries = [
        MovedExpiry(kind, row_id, channel, message_id, from_us(expires))
        for kind, rows in ((Expiring.CHALLENGE, challenges), (Expiring.TAKEBACK, takebacks))
        for row_id, channel, message_id, expires in rows
    ]
    return Resumed(
        timedelta(microseconds=now_us - last_us),
        [(set_id, channel, from_us(deadline)) for set_id, channel, deadline in moved],
        expiries,
    )
