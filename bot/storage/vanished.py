"""SQL for places that are gone: a deleted channel or thread, a server the bot was removed from.

The games there are aborted the usual way (bot/services/games.py); these statements find them
and close what would otherwise wait on the place, or post to it, for ever.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shards import EVERY, Shards
from bot.storage.connection import Connection, Params


async def threads_in_play(db: Connection, parent_channel_id: int) -> list[int]:
    """The threads of ``parent_channel_id`` with a game in progress (a match played in a
    thread records the channel the thread is in), by id."""
    # Ordered by the channel, so that SQLite too reads only the index of the games in progress.
    rows = await db.fetch_all(
        "SELECT g.channel_id FROM sets g JOIN matches m USING (match_id) "
        "WHERE g.status = 'active' AND m.parent_channel_id = ? ORDER BY g.channel_id",
        (parent_channel_id,),
    )
    return [int(row[0]) for row in rows]


async def guild_of_channel(db: Connection, channel_id: int) -> int | None:
    """The server of ``channel_id``, as its games, daily puzzle or challenges recorded it."""
    row = await db.fetch_one(
        "SELECT guild_id FROM sets WHERE channel_id = ? "
        "UNION SELECT guild_id FROM daily_puzzles WHERE channel_id = ? "
        "UNION SELECT guild_id FROM challenges WHERE channel_id = ? LIMIT 1",
        (channel_id, channel_id, channel_id),
    )
    return None if row is None else int(row[0])


async def guilds_served(db: Connection, shards: Shards = EVERY) -> list[int]:
    """The servers (of ``shards``) with a game in progress, a daily puzzle on or an open
    challenge."""
    rows = await db.fetch_all(
        "SELECT guild_id FROM sets "
        f"WHERE status = 'active' AND {shards.where('guild_id')} "
        "UNION SELECT guild_id FROM daily_puzzles "
        f"WHERE {shards.where('guild_id')} "
        "UNION SELECT guild_id FROM challenges "
        f"WHERE status = 'open' AND {shards.where('guild_id')} ORDER BY guild_id"
    )
    return [int(row[0]) for row in rows]


async def close_in_channels(db: Connection, channel_ids: Sequence[int], now_us: int) -> int:
    """Nothing in ``channel_ids`` is owed or waited for any more: see :func:`_close`.
    Returns how many open challenges it withdrew."""
    marks = ", ".join("?" * len(channel_ids))
    return await _close(db, f"channel_id IN ({marks})", tuple(channel_ids), now_us)


async def close_in_guild(db: Connection, guild_id: int, now_us: int) -> int:
    """Nothing in the server ``guild_id`` is owed or waited for any more: see :func:`_close`;
    nor is a match's result owed on its line there, as Discord refuses every edit in a server
    the bot left (a deleted channel's is tried until Discord answers Unknown Channel: a
    thread's line is in its parent, which may still be there). Returns how many open
    challenges it withdrew."""
    await db.execute(
        "DELETE FROM match_lines_owed WHERE set_id IN (SELECT set_id FROM sets WHERE guild_id = ?)",
        (guild_id,),
    )
    return await _close(db, "guild_id = ?", (guild_id,), now_us)


async def daily_puzzles_in_channels(db: Connection, channel_ids: Sequence[int]) -> list[int]:
    """The servers whose daily puzzle is posted in one of ``channel_ids``."""
    marks = ", ".join("?" * len(channel_ids))
    rows = await db.fetch_all(
        f"SELECT guild_id FROM daily_puzzles WHERE channel_id IN ({marks}) ORDER BY guild_id",
        tuple(channel_ids),
    )
    return [int(row[0]) for row in rows]


async def _close(db: Connection, place: str, params: Params, now_us: int) -> int:
    """The boards owed to the sets of ``place`` (a condition on ``channel_id`` or ``guild_id``,
    columns of sets, challenges and matches alike) are marked done without a message, its open
    challenges withdrawn (closed at ``now_us``, so that :mod:`bot.storage.pruning` deletes them
    a week on), its sets' open takeback requests lapsed (and no request's answer owed any
    more), and no thread of its matches is due to be archived. Returns how many open
    challenges it withdrew."""
    await db.execute(
        "UPDATE announcements SET delivered_us = ? WHERE delivered_us IS NULL AND EXISTS "
        f"(SELECT 1 FROM sets g WHERE g.set_id = announcements.set_id AND g.{place})",
        (now_us, *params),
    )
    withdrawn = await db.execute(
        "UPDATE challenges SET status = 'withdrawn', closed_us = ? "
        f"WHERE status = 'open' AND {place}",
        (now_us, *params),
    )
    await db.execute(
        "UPDATE takebacks SET status = 'lapsed', answered_us = ? WHERE status = 'open' AND EXISTS "
        f"(SELECT 1 FROM sets g WHERE g.set_id = takebacks.set_id AND g.{place})",
        (now_us, *params),
    )
    await db.execute(
        "DELETE FROM takeback_answers_owed WHERE takeback_id IN (SELECT t.takeback_id FROM "
        f"takebacks t JOIN sets g ON g.set_id = t.set_id WHERE g.{place})",
        params,
    )
    await db.execute(
        f"UPDATE matches SET archive_due_us = NULL WHERE archive_due_us IS NOT NULL AND {place}",
        params,
    )
    return withdrawn
