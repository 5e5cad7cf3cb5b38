"""SQL for the deadlines across a process's absence: when its timers last ran, and the time given
back to the move clocks that were running then and to the challenges and takeback requests that
were open then (nobody could answer them either)."""

from __future__ import annotations

from bot.shards import EVERY, Shards, parse_ids
from bot.storage.connection import Connection, Row


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


def _given(started: str) -> str:
    """The time given back to what started at ``started`` (an SQL expression; its parameters
    are the time away, the end of the absence, the time away and the end again): the time
    away, but never more than it had run by the end of the absence."""
    return f"CASE WHEN ? <= ? - {started} THEN ? ELSE ? - {started} END"


_GIVEN = _given(_STARTED)
"""The time given back to a set: the time away, but never more than its clock has run."""


def _in_place(
    prefix: str, guild_id: int | None, channel_id: int | None
) -> tuple[str, tuple[int, ...]]:
    """An SQL condition (and its parameters) keeping one server's rows, or one channel's (or
    thread's), or every row; ``prefix`` names the table of the ``guild_id`` and ``channel_id``
    columns (``"g."``, or ``""``)."""
    condition = ""
    params: tuple[int, ...] = ()
    if guild_id is not None:
        condition, params = f" AND {prefix}guild_id = ?", (guild_id,)
    if channel_id is not None:
        condition, params = f"{condition} AND {prefix}channel_id = ?", (*params, channel_id)
    return condition, params


async def give_back(
    db: Connection,
    since_us: int,
    until_us: int,
    shards: Shards = EVERY,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> list[tuple[int, int, int]]:
    """Move on the deadline and half-time of every set in progress (in the servers of
    ``shards``; only ``guild_id``'s, or ``channel_id``'s, if given) whose clock was still
    running at ``since_us`` by the time away, ``until_us - since_us``, but never by more than
    that clock had run at ``until_us``. Returns ``(set_id, channel_id, new deadline)`` of
    each."""
    away = until_us - since_us
    given = (away, until_us, away, until_us)
    guild, guild_params = _in_place("", guild_id, channel_id)
    rows = await db.fetch_all(
        f"UPDATE sets SET deadline_us = deadline_us + {_GIVEN}, "
        f"reminder_us = reminder_us + {_GIVEN} "
        f"WHERE status = 'active' AND deadline_us > ? AND {shards.where('guild_id')}{guild} "
        "RETURNING set_id, channel_id, deadline_us",
        (*given, *given, since_us, *guild_params),
    )
    return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]


async def give_back_challenges(
    db: Connection,
    since_us: int,
    until_us: int,
    shards: Shards = EVERY,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> list[tuple[int, int, int | None, int]]:
    """Move on the expiry of every open challenge (in the servers of ``shards``; only
    ``guild_id``'s, or ``channel_id``'s, if given) that had not expired at ``since_us`` by the
    time away, but never by more than it had been open at ``until_us``. Returns
    ``(challenge_id, channel_id, message_id, new expiry)`` of each."""
    away = until_us - since_us
    guild, guild_params = _in_place("", guild_id, channel_id)
    rows = await db.fetch_all(
        f"UPDATE challenges SET expires_us = expires_us + {_given('created_us')} "
        f"WHERE status = 'open' AND expires_us > ? AND {shards.where('guild_id')}{guild} "
        "RETURNING challenge_id, channel_id, message_id, expires_us",
        (away, until_us, away, until_us, since_us, *guild_params),
    )
    return _expiries(rows)


async def give_back_takebacks(
    db: Connection,
    since_us: int,
    until_us: int,
    shards: Shards = EVERY,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> list[tuple[int, int, int | None, int]]:
    """Move on the expiry of every open takeback request that had not lapsed at ``since_us``
    and can still be answered (its set, in the servers of ``shards`` — only ``guild_id``, or
    ``channel_id``, if given —, is in progress at the ply it was asked at) by the time away,
    but never by more than it had been open at ``until_us``. Returns ``(takeback_id,
    channel_id of its set, message_id, new expiry)``."""
    away = until_us - since_us
    guild, guild_params = _in_place("g.", guild_id, channel_id)
    rows = await db.fetch_all(
        f"UPDATE takebacks SET expires_us = expires_us + {_given('asked_us')} "
        "WHERE status = 'open' AND expires_us > ? AND EXISTS (SELECT 1 FROM sets g "
        "WHERE g.set_id = takebacks.set_id AND g.ply = takebacks.ply AND g.status = 'active' "
        f"AND {shards.where('g.guild_id')}{guild}) "
        "RETURNING takeback_id, (SELECT g.channel_id FROM sets g WHERE g.set_id = "
        "takebacks.set_id), message_id, expires_us",
        (away, until_us, away, until_us, since_us, *guild_params),
    )
    return _expiries(rows)


def _expiries(rows: list[Row]) -> list[tuple[int, int, int | None, int]]:
    """``(id, channel_id, message_id or None, expiry)`` of each row so returned."""
    return [
        (int(row[0]), int(row[1]), None if row[2] is None else int(row[2]), int(row[3]))
        for row in rows
    ]
