"""SQL for the holds: the servers, threads and shards nobody can play in now, and since when
(schema 28's ``holds``; bot/holds.py keeps them, bot/services/held.py names them); and whether a
move's clock was given its whole time back once already (schema 29's ``given_back``: a
player's hold is held at most once a move, bot/player_holds.py)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.shards import EVERY, Shards
from bot.storage.connection import Connection


@dataclass(frozen=True)
class HoldRow:
    """One stored hold."""

    kind: str
    place_id: int
    guild_id: int | None
    shard_count: int | None
    since_us: int


async def held(db: Connection, shards: Shards = EVERY) -> list[HoldRow]:
    """The holds of the servers of ``shards`` (and of their threads), and every shard's."""
    rows = await db.fetch_all(
        "SELECT kind, place_id, guild_id, shard_count, since_us FROM holds "
        f"WHERE kind = 'shard' OR {shards.where('guild_id')} ORDER BY since_us, kind, place_id"
    )
    return [
        HoldRow(
            str(row[0]),
            int(row[1]),
            None if row[2] is None else int(row[2]),
            None if row[3] is None else int(row[3]),
            int(row[4]),
        )
        for row in rows
    ]


async def hold(
    db: Connection,
    kind: str,
    place_id: int,
    since_us: int,
    *,
    guild_id: int | None = None,
    shard_count: int | None = None,
) -> None:
    """Hold ``kind`` ``place_id`` from ``since_us``; one already held keeps its start."""
    await db.execute(
        "INSERT INTO holds (kind, place_id, guild_id, shard_count, since_us) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, place_id) DO NOTHING",
        (kind, place_id, guild_id, shard_count, since_us),
    )


async def release(db: Connection, kind: str, place_id: int) -> None:
    """``kind`` ``place_id`` is held no more."""
    await db.execute("DELETE FROM holds WHERE kind = ? AND place_id = ?", (kind, place_id))


async def given_whole(db: Connection, set_id: int, ply: int, from_us: int, until_us: int) -> bool:
    """Whether set ``set_id``'s clock for ``ply`` was given back, in one interval, the whole
    time from ``from_us`` (its turn's start) to ``until_us`` (its first deadline)."""
    row = await db.fetch_one(
        "SELECT 1 FROM given_back WHERE kind = 'set' AND target_id = ? AND ply = ? "
        "AND start_us <= ? AND end_us >= ?",
        (set_id, ply, from_us, until_us),
    )
    return row is not None
