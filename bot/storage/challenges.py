"""SQL for challenges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiosqlite


@dataclass(frozen=True)
class ChallengeRow:
    """A stored challenge."""

    challenge_id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int
    ruleset: str
    sets_total: int
    challenger_side: str
    time_per_move_us: int
    created_us: int
    expires_us: int
    status: str
    message_id: int | None
    match_id: int | None


_SELECT = (
    "SELECT challenge_id, guild_id, channel_id, challenger_id, opponent_id, ruleset, sets_total, "
    "challenger_side, time_per_move_us, created_us, expires_us, status, message_id, match_id "
    "FROM challenges"
)


def _row(row: Any) -> ChallengeRow:
    return ChallengeRow(*row)


async def insert(
    db: aiosqlite.Connection,
    *,
    guild_id: int,
    channel_id: int,
    challenger_id: int,
    opponent_id: int,
    ruleset: str,
    sets_total: int,
    challenger_side: str,
    time_per_move_us: int,
    created_us: int,
    expires_us: int,
) -> int:
    """Store an open challenge and return its id."""
    cursor = await db.execute(
        "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, ruleset, "
        "sets_total, challenger_side, time_per_move_us, created_us, expires_us) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            guild_id,
            channel_id,
            challenger_id,
            opponent_id,
            ruleset,
            sets_total,
            challenger_side,
            time_per_move_us,
            created_us,
            expires_us,
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


async def get(db: aiosqlite.Connection, challenge_id: int) -> ChallengeRow | None:
    """The challenge with this id."""
    cursor = await db.execute(f"{_SELECT} WHERE challenge_id = ?", (challenge_id,))
    row = await cursor.fetchone()
    return _row(row) if row else None


async def close(
    db: aiosqlite.Connection, challenge_id: int, status: str, match_id: int | None = None
) -> bool:
    """Close an open challenge with ``status``; False if it was no longer open."""
    cursor = await db.execute(
        "UPDATE challenges SET status = ?, match_id = ? WHERE challenge_id = ? AND status = 'open'",
        (status, match_id, challenge_id),
    )
    return cursor.rowcount == 1


async def set_message(db: aiosqlite.Connection, challenge_id: int, message_id: int) -> bool:
    """Remember the message showing the challenge; False if there is no such challenge."""
    cursor = await db.execute(
        "UPDATE challenges SET message_id = ? WHERE challenge_id = ?", (message_id, challenge_id)
    )
    return cursor.rowcount == 1


async def open_count(db: aiosqlite.Connection, challenger_id: int, now_us: int) -> int:
    """How many unexpired challenges ``challenger_id`` has open."""
    cursor = await db.execute(
        "SELECT count(*) FROM challenges WHERE challenger_id = ? AND status = 'open' "
        "AND expires_us > ?",
        (challenger_id, now_us),
    )
    row = await cursor.fetchone()
    return 0 if row is None else int(row[0])


async def open_in_channel(db: aiosqlite.Connection, channel_id: int) -> list[ChallengeRow]:
    """The open challenges posted in ``channel_id``, oldest first."""
    cursor = await db.execute(
        f"{_SELECT} WHERE status = 'open' AND channel_id = ? ORDER BY challenge_id", (channel_id,)
    )
    return [_row(row) for row in await cursor.fetchall()]


async def open_challenges(db: aiosqlite.Connection) -> list[ChallengeRow]:
    """Every open challenge, oldest first."""
    cursor = await db.execute(f"{_SELECT} WHERE status = 'open' ORDER BY expires_us, challenge_id")
    return [_row(row) for row in await cursor.fetchall()]


async def due(db: aiosqlite.Connection, now_us: int) -> list[ChallengeRow]:
    """Open challenges whose expiry is at or before ``now_us``."""
    cursor = await db.execute(
        f"{_SELECT} WHERE status = 'open' AND expires_us <= ? ORDER BY expires_us, challenge_id",
        (now_us,),
    )
    return [_row(row) for row in await cursor.fetchall()]
