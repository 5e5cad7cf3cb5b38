"""SQL for per-server settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from bot.storage.connection import Connection
from bot.storage.times import duration, duration_us


@dataclass(frozen=True)
class SettingsRow:
    """A server's stored settings."""

    guild_id: int
    default_ruleset: str
    time_per_move: timedelta
    allowed_channel_ids: frozenset[int]
    threads: bool = True
    language: str | None = None
    """The public messages' language tag (``pt_BR``); ``None`` follows the server's own."""
    open_challenge_role_id: int | None = None
    """The role challenges open to anyone ping, if any."""


async def load(db: Connection, guild_id: int) -> SettingsRow | None:
    """The stored settings of ``guild_id``, or ``None`` if it never saved any."""
    row = await db.fetch_one(
        "SELECT default_ruleset, time_per_move_us, threads, language, open_challenge_role_id "
        "FROM guild_settings WHERE guild_id = ?",
        (guild_id,),
    )
    if row is None:
        return None
    rows = await db.fetch_all(
        "SELECT channel_id FROM allowed_channels WHERE guild_id = ?", (guild_id,)
    )
    channels = frozenset(int(r[0]) for r in rows)
    language = None if row[3] is None else str(row[3])
    role = None if row[4] is None else int(row[4])
    return SettingsRow(
        guild_id, str(row[0]), duration(int(row[1])), channels, bool(row[2]), language, role
    )


async def save(db: Connection, row: SettingsRow) -> None:
    """Store ``row`` as the server's settings (replacing the allowed channels)."""
    await db.execute(
        "INSERT INTO guild_settings "
        "(guild_id, default_ruleset, time_per_move_us, threads, language, "
        "open_challenge_role_id) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
        "default_ruleset = excluded.default_ruleset, "
        "time_per_move_us = excluded.time_per_move_us, threads = excluded.threads, "
        "language = excluded.language, open_challenge_role_id = excluded.open_challenge_role_id",
        (
            row.guild_id,
            row.default_ruleset,
            duration_us(row.time_per_move),
            int(row.threads),
            row.language,
            row.open_challenge_role_id,
        ),
    )
    await db.execute("DELETE FROM allowed_channels WHERE guild_id = ?", (row.guild_id,))
    await db.execute_many(
        "INSERT INTO allowed_channels (guild_id, channel_id) VALUES (?, ?)",
        [(row.guild_id, channel) for channel in sorted(row.allowed_channel_ids)],
    )


async def drop_allowed_channel(db: Connection, guild_id: int, channel_id: int) -> bool:
    """Take ``channel_id`` off the server's allowed channels, unless it is the only one (an
    empty list would allow every channel); whether it was taken off. One statement: a change
    of the list made meanwhile is kept."""
    dropped = await db.execute(
        "DELETE FROM allowed_channels WHERE guild_id = ? AND channel_id = ? AND EXISTS "
        "(SELECT 1 FROM allowed_channels AS other WHERE other.guild_id = ? "
        "AND other.channel_id <> ?)",
        (guild_id, channel_id, guild_id, channel_id),
    )
    return dropped > 0
