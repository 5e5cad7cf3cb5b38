"""SQL for the holds: the servers, threads and shards nobody can play in now, and since when
(schema 28's ``holds``; bot/holds.py keeps them, bot/services/held.py names them); the game
channels held for their player to move, whom a moderator shut out (schema 36's ``player_holds``,
bot/player_holds.py; schema 38 notes why, while the line saying so is owed); and whether a
player's hold gave a move's clock its time back already (schema 34's ``player_holds_given``: a
move is held so at most once; schema 39 notes the line that give-back owes, until posted)."""

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


PLAYER = "player"
"""The kind of a player's hold (bot/services/held.py ``HoldKind.PLAYER``), kept in
``player_holds``."""


async def release(db: Connection, kind: str, place_id: int) -> None:
    """``kind`` ``place_id`` is held no more (a ``player`` hold's place is its channel)."""
    if kind == PLAYER:
        await db.execute("DELETE FROM player_holds WHERE channel_id = ?", (place_id,))
    else:
        await db.execute("DELETE FROM holds WHERE kind = ? AND place_id = ?", (kind, place_id))


@dataclass(frozen=True)
class PlayerHoldRow:
    """One stored player's hold: the game's channel held for its player to move."""

    channel_id: int
    set_id: int
    ply: int
    guild_id: int
    player_id: int
    since_us: int
    line_owed: str | None = None
    """Why they are held (``ShutOut``'s value), while the line saying so is not yet posted."""


async def players_held(db: Connection, shards: Shards = EVERY) -> list[PlayerHoldRow]:
    """The players' holds of the servers of ``shards``, oldest first."""
    rows = await db.fetch_all(
        "SELECT channel_id, set_id, ply, guild_id, player_id, since_us, line_owed "
        f"FROM player_holds WHERE {shards.where('guild_id')} ORDER BY since_us, channel_id"
    )
    return [
        PlayerHoldRow(
            int(row[0]),
            int(row[1]),
            int(row[2]),
            int(row[3]),
            int(row[4]),
            int(row[5]),
            None if row[6] is None else str(row[6]),
        )
        for row in rows
    ]


async def hold_player(db: Connection, hold: PlayerHoldRow) -> None:
    """Hold ``hold.channel_id`` for its player to move; one already held keeps its hold."""
    await db.execute(
        "INSERT INTO player_holds "
        "(channel_id, set_id, ply, guild_id, player_id, since_us, line_owed) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (channel_id) DO NOTHING",
        (
            hold.channel_id,
            hold.set_id,
            hold.ply,
            hold.guild_id,
            hold.player_id,
            hold.since_us,
            hold.line_owed,
        ),
    )


async def player_line_posted(db: Connection, channel_id: int) -> None:
    """The line saying ``channel_id`` is held for its player was posted: no longer owed."""
    await db.execute("UPDATE player_holds SET line_owed = NULL WHERE channel_id = ?", (channel_id,))


async def player_hold_given(
    db: Connection, channel_id: int, since_us: int, line_owed: str | None = None
) -> None:
    """A player's hold of ``channel_id`` (bot/player_holds.py) gave its game's clock back its
    time from ``since_us``, the turn's start: that move (the set's ply now) was held so once;
    ``line_owed``: the line it owes the channel (which, as bot/player_holds.py names it; None:
    none), until :func:`player_back_line_posted`."""
    await db.execute(
        "INSERT INTO player_holds_given (set_id, ply, since_us, line_owed) "
        "SELECT set_id, ply, ?, ? FROM sets WHERE channel_id = ? AND status = 'active' "
        "ON CONFLICT (set_id) DO UPDATE SET ply = excluded.ply, since_us = excluded.since_us, "
        "line_owed = excluded.line_owed",
        (since_us, line_owed, channel_id),
    )


@dataclass(frozen=True)
class BackLineRow:
    """A line a player's hold owes since it gave their time back (:func:`player_hold_given`)."""

    set_id: int
    ply: int
    """The move it gave its time back to."""
    channel_id: int
    line: str


async def player_back_lines_owed(db: Connection, shards: Shards = EVERY) -> list[BackLineRow]:
    """The lines owed by players' holds that gave their time back, in the servers of
    ``shards``, by set."""
    rows = await db.fetch_all(
        "SELECT g.set_id, g.ply, s.channel_id, g.line_owed FROM player_holds_given g "
        "JOIN sets s ON s.set_id = g.set_id "
        f"WHERE g.line_owed IS NOT NULL AND {shards.where('s.guild_id')} ORDER BY g.set_id"
    )
    return [BackLineRow(int(row[0]), int(row[1]), int(row[2]), str(row[3])) for row in rows]


async def player_back_line_posted(db: Connection, set_id: int, ply: int) -> None:
    """The line the hold of set ``set_id``'s move ``ply`` owed was posted (or is not to be:
    the game moved on): no longer owed."""
    await db.execute(
        "UPDATE player_holds_given SET line_owed = NULL WHERE set_id = ? AND ply = ?",
        (set_id, ply),
    )


async def player_held(db: Connection, set_id: int, ply: int, turn_began_us: int) -> bool:
    """Whether a player's hold gave set ``set_id``'s clock for ``ply`` its time back since
    ``turn_began_us`` (this turn: a takeback back to ``ply`` begins a new one)."""
    row = await db.fetch_one(
        "SELECT 1 FROM player_holds_given WHERE set_id = ? AND ply = ? AND since_us >= ?",
        (set_id, ply, turn_began_us),
    )
    return row is not None
