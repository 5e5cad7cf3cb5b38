"""SQL for the move clocks across a process's absence: when its timers last ran, and the time
given back to the clocks that were running then."""

from __future__ import annotations

from bot.shards import EVERY, Shards, parse_ids
from bot.storage.connection import Connection


def shards_key(shards: Shards) -> str:
    """How ``timer_checks`` names the process's share of the servers."""
    return "every" if shards.every else shards.describe()


def covers(key: str, shards: Shards) -> bool:
    """Whether the process that wrote ``key`` may have driven some servers of ``shards`` (so
    its timers stood for theirs): every row but another share of the same shard count."""
    if key == "every" or shards.every:
        return True
    ids, _, count = key.partition(" of ")
    try:
        theirs, total = parse_ids(ids), int(count)
    except ValueError:
        return True
    return total != shards.count or bool(set(theirs) & set(shards.ids))


async def last_check(db: Connection, shards: Shards = EVERY) -> int | None:
    """When timers that drove servers of ``shards`` last ran (µs), if ever: this process's own,
    or those of an earlier layout of the shards (one process before several, say)."""
    rows = await db.fetch_all("SELECT shards, checked_us FROM timer_checks")
    times = [int(row[1]) for row in rows if covers(str(row[0]), shards)]
    return max(times, default=None)


async def record_check(db: Connection, now_us: int, shards: Shards = EVERY) -> None:
    """The timers of the process running ``shards`` ran at ``now_us``."""
    await db.execute(
        "INSERT INTO timer_checks (shards, checked_us) VALUES (?, ?) "
        "ON CONFLICT (shards) DO UPDATE SET checked_us = excluded.checked_us",
        (shards_key(shards), now_us),
    )


_STARTED = (
    "(deadline_us - (SELECT m.time_per_move_us FROM matches m WHERE m.match_id = sets.match_id))"
)
"""When a set's current clock started (its deadline less the match's time per move)."""

_GIVEN = f"CASE WHEN ? <= ? - {_STARTED} THEN ? ELSE ? - {_STARTED} END"
"""The time given back to a set: the time away, but never more than its clock has run."""


async def give_back(
    db: Connection, since_us: int, until_us: int, shards: Shards = EVERY
) -> list[tuple[int, int, int]]:
    """Move on the deadline and half-time of every set in progress (in the servers of
    ``shards``) whose clock was still running at ``since_us`` by the time away,
    ``until_us - since_us``, but never by more than that clock had run at ``until_us``.
    Returns ``(set_id, channel_id, new deadline)`` of each."""
    away = until_us - since_us
    given = (away, until_us, away, until_us)
    rows = await db.fetch_all(
        f"UPDATE sets SET deadline_us = deadline_us + {_GIVEN}, "
        f"reminder_us = reminder_us + {_GIVEN} "
        f"WHERE status = 'active' AND deadline_us > ? AND {shards.where('guild_id')} "
        "RETURNING set_id, channel_id, deadline_us",
        (*given, *given, since_us),
    )
    return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]
