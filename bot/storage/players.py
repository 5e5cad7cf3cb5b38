"""SQL for players (Discord user ids and their last known display names)."""

from __future__ import annotations

from datetime import datetime

from bot.storage.connection import Connection
from bot.storage.times import to_us


async def upsert(db: Connection, user_id: int, display_name: str, now: datetime) -> None:
    """Insert the player or update their display name."""
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
        "seen_us = excluded.seen_us",
        (user_id, display_name, to_us(now)),
    )


async def ensure(db: Connection, user_id: int, now: datetime) -> None:
    """Make sure a row exists for ``user_id`` (named by id until the bot tells its name)."""
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        (user_id, str(user_id), to_us(now)),
    )


async def name(db: Connection, user_id: int) -> str | None:
    """The stored display name of ``user_id``."""
    row = await db.fetch_one("SELECT display_name FROM players WHERE user_id = ?", (user_id,))
    return str(row[0]) if row else None


async def names(db: Connection, user_ids: list[int]) -> dict[int, str]:
    """Display names of the given users that are known."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    rows = await db.fetch_all(
        f"SELECT user_id, display_name FROM players WHERE user_id IN ({marks})", user_ids
    )
    return {int(row[0]): str(row[1]) for row in rows}
