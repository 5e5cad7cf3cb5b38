"""SQL for players (Discord user ids and their last known display names)."""

from __future__ import annotations

from datetime import datetime

import aiosqlite

from bot.storage.times import to_us


async def upsert(db: aiosqlite.Connection, user_id: int, display_name: str, now: datetime) -> None:
    """Insert the player or update their display name."""
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
        "seen_us = excluded.seen_us",
        (user_id, display_name, to_us(now)),
    )


async def ensure(db: aiosqlite.Connection, user_id: int, now: datetime) -> None:
    """Make sure a row exists for ``user_id`` (named by id until the bot tells its name)."""
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        (user_id, str(user_id), to_us(now)),
    )


async def name(db: aiosqlite.Connection, user_id: int) -> str | None:
    """The stored display name of ``user_id``."""
    cursor = await db.execute("SELECT display_name FROM players WHERE user_id = ?", (user_id,))
    row = await cursor.fetchone()
    return str(row[0]) if row else None


async def names(db: aiosqlite.Connection, user_ids: list[int]) -> dict[int, str]:
    """Display names of the given users that are known."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    cursor = await db.execute(
        f"SELECT user_id, display_name FROM players WHERE user_id IN ({marks})", user_ids
    )
    return {int(row[0]): str(row[1]) for row in await cursor.fetchall()}
