"""SQL for the outbox of announcements: the boards that must be posted after stored moves."""

from __future__ import annotations

from dataclasses import dataclass

import aiosqlite


@dataclass(frozen=True)
class AnnouncementRow:
    """A board to post: the set ``game_id`` as it stood at ``ply``, in ``channel_id``."""

    game_id: int
    ply: int
    channel_id: int
    attempts: int


GRACE_US = 10_000_000
"""The normal path has this long (µs) to post a board before the timer posts it (as schema 7's
trigger gives a move's board)."""


async def owed(
    db: aiosqlite.Connection, game_id: int, ply: int, channel_id: int, now_us: int
) -> None:
    """The set ended without a move (time, resignation, abort): its last board is owed anew."""
    await db.execute(
        "INSERT OR REPLACE INTO announcements (game_id, ply, channel_id, created_us, next_try_us) "
        "VALUES (?, ?, ?, ?, ?)",
        (game_id, ply, channel_id, now_us, now_us + GRACE_US),
    )


async def delivered(
    db: aiosqlite.Connection, game_id: int, ply: int, message_id: int | None, now_us: int
) -> None:
    """The board of ``game_id`` at ``ply`` is posted (or superseded): never post it again."""
    await db.execute(
        "UPDATE announcements SET delivered_us = ?, message_id = ? "
        "WHERE game_id = ? AND ply = ? AND delivered_us IS NULL",
        (now_us, message_id, game_id, ply),
    )


async def due(db: aiosqlite.Connection, now_us: int, limit: int) -> list[AnnouncementRow]:
    """Undelivered announcements whose next try has come, oldest first."""
    cursor = await db.execute(
        "SELECT game_id, ply, channel_id, attempts FROM announcements "
        "WHERE delivered_us IS NULL AND next_try_us <= ? ORDER BY created_us, game_id, ply "
        "LIMIT ?",
        (now_us, limit),
    )
    return [AnnouncementRow(*row) for row in await cursor.fetchall()]


async def failed(db: aiosqlite.Connection, game_id: int, ply: int, next_try_us: int) -> None:
    """Posting failed: try again at ``next_try_us``."""
    await db.execute(
        "UPDATE announcements SET attempts = attempts + 1, next_try_us = ? "
        "WHERE game_id = ? AND ply = ? AND delivered_us IS NULL",
        (next_try_us, game_id, ply),
    )
