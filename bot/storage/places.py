"""SQL for where games are played: a set's channel (or thread) and, for a thread the bot
started from a challenge, the channel that thread is in."""

from __future__ import annotations

from bot.storage.connection import Connection


async def in_progress(db: Connection, guild_id: int) -> list[tuple[int, int | None]]:
    """The places of ``guild_id``'s games in progress."""
    rows = await db.fetch_all(
        "SELECT DISTINCT g.channel_id, m.parent_channel_id FROM sets g JOIN matches m "
        "USING (match_id) WHERE g.guild_id = ? AND g.status = 'active' ORDER BY g.channel_id",
        (guild_id,),
    )
    return [(int(row[0]), None if row[1] is None else int(row[1])) for row in rows]


async def of_set(db: Connection, set_id: int) -> tuple[int, int | None] | None:
    """Where the set ``set_id`` was played, if there is such a set."""
    row = await db.fetch_one(
        "SELECT g.channel_id, m.parent_channel_id FROM sets g JOIN matches m USING (match_id) "
        "WHERE g.set_id = ?",
        (set_id,),
    )
    return None if row is None else (int(row[0]), None if row[1] is None else int(row[1]))
