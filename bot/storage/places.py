"""SQL for where games are played and shown: a set's channel (or thread); for a thread the bot
started, the channel that thread is in, the message there that links it and when the thread is
archived; and the board with buttons in each channel."""

from __future__ import annotations

from bot.shards import EVERY, Shards
from bot.storage.connection import Connection, Dialect
from bot.storage.sets import stands_at


async def in_progress(db: Connection, guild_id: int) -> list[tuple[int, int | None]]:
    """The places of ``guild_id``'s games in progress."""
    rows = await db.fetch_all(
        "SELECT DISTINCT g.channel_id, m.parent_channel_id FROM sets g JOIN matches m "
        "USING (match_id) WHERE g.guild_id = ? AND g.status = 'active' ORDER BY g.channel_id",
        (guild_id,),
    )
    return [(int(row[0]), None if row[1] is None else int(row[1])) for row in rows]


async def of_set(db: Connection, set_id: int, guild_id: int) -> tuple[int, int | None] | None:
    """Where the set ``set_id`` was played, if there is such a set in ``guild_id``."""
    row = await db.fetch_one(
        "SELECT g.channel_id, m.parent_channel_id FROM sets g JOIN matches m USING (match_id) "
        "WHERE g.set_id = ? AND g.guild_id = ?",
        (set_id, guild_id),
    )
    return None if row is None else (int(row[0]), None if row[1] is None else int(row[1]))


async def set_thread(
    db: Connection, match_id: int, parent_channel_id: int, line_message_id: int | None
) -> None:
    """Record that ``match_id`` is played in a thread started in ``parent_channel_id``."""
    await db.execute(
        "UPDATE matches SET parent_channel_id = ?, line_message_id = ? WHERE match_id = ?",
        (parent_channel_id, line_message_id, match_id),
    )


async def schedule_archive(db: Connection, match_id: int, due_us: int) -> None:
    """Archive the match's thread at ``due_us`` (only for a match played in a thread)."""
    await db.execute(
        "UPDATE matches SET archive_due_us = ? "
        "WHERE match_id = ? AND parent_channel_id IS NOT NULL",
        (due_us, match_id),
    )


async def archives_due(
    db: Connection, now_us: int, shards: Shards = EVERY
) -> list[tuple[int, int]]:
    """``(match_id, thread channel id)`` of finished matches whose thread is due to archive."""
    rows = await db.fetch_all(
        "SELECT m.match_id, m.channel_id FROM matches m "
        "WHERE m.archive_due_us IS NOT NULL AND m.archive_due_us <= ? "
        f"AND {shards.where('m.guild_id')} ORDER BY m.archive_due_us",
        (now_us,),
    )
    return [(int(r[0]), int(r[1])) for r in rows]


async def keep_thread_open(db: Connection, channel_id: int) -> None:
    """A new match starts in ``channel_id``: earlier matches there no longer archive it."""
    await db.execute(
        "UPDATE matches SET archive_due_us = NULL "
        "WHERE channel_id = ? AND archive_due_us IS NOT NULL",
        (channel_id,),
    )


async def thread_parent(db: Connection, match_id: int) -> tuple[int | None, int | None]:
    """The parent channel of the match's thread and the message there that links the thread
    (both None when the match is not in a thread)."""
    row = await db.fetch_one(
        "SELECT parent_channel_id, line_message_id FROM matches WHERE match_id = ?", (match_id,)
    )
    return (None, None) if row is None else (row[0], row[1])


async def archived(db: Connection, match_id: int) -> None:
    """The match's thread was archived: nothing more is due."""
    await db.execute("UPDATE matches SET archive_due_us = NULL WHERE match_id = ?", (match_id,))


async def live_board(db: Connection, channel_id: int) -> int | None:
    """The message id of the board with buttons in ``channel_id``, if one is known."""
    row = await db.fetch_one(
        "SELECT message_id FROM live_boards WHERE channel_id = ?", (channel_id,)
    )
    return None if row is None else int(row[0])


_TAKE_BUTTONS_POSTGRESQL = """
WITH stands AS (
    SELECT set_id FROM sets WHERE set_id = ? AND ply = ? AND undone = ? AND status = 'active'
    FOR SHARE
), previous AS (
    SELECT message_id FROM live_boards WHERE channel_id = ?
), taken AS (
    INSERT INTO live_boards (channel_id, message_id)
    SELECT CAST(? AS BIGINT), CAST(? AS BIGINT) FROM stands
    ON CONFLICT (channel_id) DO UPDATE SET message_id = excluded.message_id
)
SELECT EXISTS (SELECT 1 FROM stands), (SELECT message_id FROM previous)
"""
""":func:`set_live_board_at` on PostgreSQL, in one statement instead of three: the set's row is
locked while it stands at that position (:func:`~bot.storage.sets.stands_at`), and only then
the board that had the buttons is replaced. That board is read as of the statement's start
(every part of a statement sees one snapshot, so never the row its own INSERT writes,
whichever part runs first), as the two statements did with no lock between them."""


async def set_live_board(db: Connection, channel_id: int, message_id: int) -> int | None:
    """``message_id`` is now the board with buttons in ``channel_id``; returns the one before
    (if one was known)."""
    previous = await live_board(db, channel_id)
    await db.execute(
        "INSERT INTO live_boards (channel_id, message_id) VALUES (?, ?) "
        "ON CONFLICT (channel_id) DO UPDATE SET message_id = excluded.message_id",
        (channel_id, message_id),
    )
    return previous


async def set_live_board_at(
    db: Connection, channel_id: int, message_id: int, set_id: int, ply: int, undone: int
) -> tuple[bool, int | None]:
    """``message_id`` shows set ``set_id`` at ``ply`` with ``undone`` moves taken back: it
    becomes the board with buttons in ``channel_id`` if the set still stands there, in
    progress (:func:`~bot.storage.sets.stands_at`: a takeback and a new move back to that ply
    make it an old board too). Returns whether it did, and the board that had the buttons
    before (if one was known)."""
    # On PostgreSQL the set's row is locked until this commits, so a move cannot land (and
    # its board take the buttons) between this check and the write below.
    if db.dialect is Dialect.POSTGRESQL:
        row = await db.fetch_one(
            _TAKE_BUTTONS_POSTGRESQL,
            (set_id, ply, undone, channel_id, channel_id, message_id),
        )
        assert row is not None
        live = bool(row[0])
        return live, None if not live or row[1] is None else int(row[1])
    if not await stands_at(db, set_id, ply, undone):
        return False, None
    return True, await set_live_board(db, channel_id, message_id)
