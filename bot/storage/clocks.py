"""SQL for the move clocks across a process's absence: when its timers last ran, and the time
given back to the clocks that were running then."""

from __future__ import annotations

from bot.shards import EVERY, Shards
from bot.storage.connection import Connection


def shards_key(shards: Shards) -> str:
    """How ``timer_checks`` names the process's share of the servers."""
    return "every" if shards.every else shards.describe()


async def last_check(db: Connection, shards: Shards = EVERY) -> int | None:
    """When the timers of the process running ``shards`` last ran (µs), if ever."""
    row = await db.fetch_one(
        "SELECT checked_us FROM timer_checks WHERE shards = ?", (shards_key(shards),)
    )
    return None if row is None else int(row[0])


async def record_check(db: Connection, now_us: int, shards: Shards = EVERY) -> None:
    """The timers of the process running ``shards`` ran at ``now_us``."""
    await db.execute(
        "INSERT INTO timer_checks (shards, checked_us) VALUES (?, ?) "
        "ON CONFLICT (shards) DO UPDATE SET checked_us = excluded.checked_us",
        (shards_key(shards), now_us),
    )


async def give_back(db: Connection, since_us: int, until_us: int, shards: Shards = EVERY) -> int:
    """Move on by ``until_us - since_us`` the deadline and half-time of every set in progress
    (in the servers of ``shards``) whose clock was still running at ``since_us``; how many."""
    away = until_us - since_us
    return await db.execute(
        "UPDATE sets SET deadline_us = deadline_us + ?, reminder_us = reminder_us + ? "
        f"WHERE status = 'active' AND deadline_us > ? AND {shards.where('guild_id')}",
        (away, away, since_us),
    )
