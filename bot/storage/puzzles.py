"""SQL for puzzle attempts and the daily puzzle (its setting, its timer and its posts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiosqlite

OPEN = "open"
SOLVED = "solved"
FAILED = "failed"


@dataclass(frozen=True)
class AttemptRow:
    """A player's attempt at one puzzle."""

    attempt_id: int
    user_id: int
    guild_id: int
    puzzle_id: str
    line: tuple[str, ...]
    status: str
    daily_day: str | None
    started_us: int
    finished_us: int | None


@dataclass(frozen=True)
class DailyRow:
    """A server's daily puzzle: where, at which UTC hour, and when the next post is due."""

    guild_id: int
    channel_id: int
    hour: int
    next_post_us: int


@dataclass(frozen=True)
class DailyPostRow:
    """One day's post of a server's daily puzzle."""

    guild_id: int
    day: str
    puzzle_id: str
    channel_id: int
    claimed_us: int
    message_id: int | None


_ATTEMPT = (
    "SELECT attempt_id, user_id, guild_id, puzzle_id, line, status, daily_day, started_us, "
    "finished_us FROM puzzle_attempts"
)
_POST = "SELECT guild_id, day, puzzle_id, channel_id, claimed_us, message_id FROM daily_posts"


def _attempt(row: Any) -> AttemptRow:
    values = list(row)
    values[4] = tuple(str(values[4]).split())
    return AttemptRow(*values)


async def attempt(db: aiosqlite.Connection, attempt_id: int) -> AttemptRow | None:
    """The attempt with this id."""
    cursor = await db.execute(f"{_ATTEMPT} WHERE attempt_id = ?", (attempt_id,))
    row = await cursor.fetchone()
    return None if row is None else _attempt(row)


async def attempt_at(db: aiosqlite.Connection, user_id: int, puzzle_id: str) -> AttemptRow | None:
    """``user_id``'s attempt at ``puzzle_id``, if any."""
    cursor = await db.execute(
        f"{_ATTEMPT} WHERE user_id = ? AND puzzle_id = ?", (user_id, puzzle_id)
    )
    row = await cursor.fetchone()
    return None if row is None else _attempt(row)


async def open_attempt(db: aiosqlite.Connection, user_id: int) -> AttemptRow | None:
    """``user_id``'s newest unfinished attempt begun with /puzzle (not a daily one)."""
    cursor = await db.execute(
        f"{_ATTEMPT} WHERE user_id = ? AND status = 'open' AND daily_day IS NULL "
        "ORDER BY attempt_id DESC LIMIT 1",
        (user_id,),
    )
    row = await cursor.fetchone()
    return None if row is None else _attempt(row)


async def start(
    db: aiosqlite.Connection,
    *,
    user_id: int,
    guild_id: int,
    puzzle_id: str,
    daily_day: str | None,
    now_us: int,
) -> AttemptRow:
    """The attempt of ``user_id`` at ``puzzle_id``: the existing one, else a new one."""
    await db.execute(
        "INSERT INTO puzzle_attempts (user_id, guild_id, puzzle_id, daily_day, started_us) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, puzzle_id) DO NOTHING",
        (user_id, guild_id, puzzle_id, daily_day, now_us),
    )
    row = await attempt_at(db, user_id, puzzle_id)
    assert row is not None
    return row


async def advance(
    db: aiosqlite.Connection,
    attempt_id: int,
    *,
    line_before: tuple[str, ...],
    line: tuple[str, ...],
    status: str,
    now_us: int,
) -> bool:
    """Record moves of an open attempt, only if it is still at ``line_before``."""
    cursor = await db.execute(
        "UPDATE puzzle_attempts SET line = ?, status = ?, finished_us = ? "
        "WHERE attempt_id = ? AND line = ? AND status = 'open'",
        (
            " ".join(line),
            status,
            None if status == OPEN else now_us,
            attempt_id,
            " ".join(line_before),
        ),
    )
    return cursor.rowcount == 1


async def attempted(db: aiosqlite.Connection, user_id: int) -> set[str]:
    """The puzzle ids ``user_id`` has met."""
    cursor = await db.execute("SELECT puzzle_id FROM puzzle_attempts WHERE user_id = ?", (user_id,))
    return {str(row[0]) for row in await cursor.fetchall()}


async def finished(db: aiosqlite.Connection, user_id: int) -> list[AttemptRow]:
    """``user_id``'s finished attempts, in the order they were finished."""
    cursor = await db.execute(
        f"{_ATTEMPT} WHERE user_id = ? AND status <> 'open' ORDER BY finished_us, attempt_id",
        (user_id,),
    )
    return [_attempt(row) for row in await cursor.fetchall()]


async def solvers(db: aiosqlite.Connection, guild_id: int, puzzle_id: str, day: str) -> list[int]:
    """Who solved the daily puzzle of ``day`` in ``guild_id``, first solver first."""
    cursor = await db.execute(
        "SELECT user_id FROM puzzle_attempts WHERE guild_id = ? AND puzzle_id = ? "
        "AND daily_day = ? AND status = 'solved' ORDER BY finished_us, attempt_id",
        (guild_id, puzzle_id, day),
    )
    return [int(row[0]) for row in await cursor.fetchall()]


# ---------------------------------------------------------------- the daily puzzle


async def daily(db: aiosqlite.Connection, guild_id: int) -> DailyRow | None:
    """The daily puzzle setting of ``guild_id``, if it is on."""
    cursor = await db.execute(
        "SELECT guild_id, channel_id, hour, next_post_us FROM daily_puzzles WHERE guild_id = ?",
        (guild_id,),
    )
    row = await cursor.fetchone()
    return None if row is None else DailyRow(*row)


async def set_daily(db: aiosqlite.Connection, row: DailyRow) -> None:
    """Switch the daily puzzle on (or move it) for ``row.guild_id``."""
    await db.execute(
        "INSERT INTO daily_puzzles (guild_id, channel_id, hour, next_post_us) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "hour = excluded.hour, next_post_us = excluded.next_post_us",
        (row.guild_id, row.channel_id, row.hour, row.next_post_us),
    )


async def clear_daily(db: aiosqlite.Connection, guild_id: int) -> bool:
    """Switch the daily puzzle off; whether it was on."""
    cursor = await db.execute("DELETE FROM daily_puzzles WHERE guild_id = ?", (guild_id,))
    return cursor.rowcount == 1


async def dailies_due(db: aiosqlite.Connection, now_us: int) -> list[DailyRow]:
    """The servers whose next daily post is due."""
    cursor = await db.execute(
        "SELECT guild_id, channel_id, hour, next_post_us FROM daily_puzzles "
        "WHERE next_post_us <= ? ORDER BY next_post_us",
        (now_us,),
    )
    return [DailyRow(*row) for row in await cursor.fetchall()]


async def claim_day(
    db: aiosqlite.Connection,
    setting: DailyRow,
    *,
    day: str,
    puzzle_id: str,
    now_us: int,
    next_post_us: int,
) -> bool:
    """Claim ``day``'s post for the server and move its timer on; False if already claimed."""
    cursor = await db.execute(
        "INSERT INTO daily_posts (guild_id, day, puzzle_id, channel_id, claimed_us) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
        (setting.guild_id, day, puzzle_id, setting.channel_id, now_us),
    )
    await db.execute(
        "UPDATE daily_puzzles SET next_post_us = ? WHERE guild_id = ? AND next_post_us = ?",
        (next_post_us, setting.guild_id, setting.next_post_us),
    )
    return cursor.rowcount == 1


async def unposted(db: aiosqlite.Connection) -> list[DailyPostRow]:
    """Claimed days whose post Discord has not confirmed yet (to post, also after a restart)."""
    cursor = await db.execute(f"{_POST} WHERE message_id IS NULL ORDER BY claimed_us")
    return [DailyPostRow(*row) for row in await cursor.fetchall()]


async def posted(db: aiosqlite.Connection, guild_id: int, day: str, message_id: int) -> None:
    """Discord has the post of ``day``: it is never posted again."""
    await db.execute(
        "UPDATE daily_posts SET message_id = ? WHERE guild_id = ? AND day = ?",
        (message_id, guild_id, day),
    )


async def post_before(db: aiosqlite.Connection, guild_id: int, day: str) -> DailyPostRow | None:
    """The server's newest daily post before ``day``."""
    cursor = await db.execute(
        f"{_POST} WHERE guild_id = ? AND day < ? ORDER BY day DESC LIMIT 1", (guild_id, day)
    )
    row = await cursor.fetchone()
    return None if row is None else DailyPostRow(*row)


async def daily_puzzle_ids(db: aiosqlite.Connection, guild_id: int) -> set[str]:
    """Every puzzle the server's daily post has used."""
    cursor = await db.execute("SELECT puzzle_id FROM daily_posts WHERE guild_id = ?", (guild_id,))
    return {str(row[0]) for row in await cursor.fetchall()}
