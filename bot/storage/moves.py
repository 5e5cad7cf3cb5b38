"""SQL for the moves of a set: :func:`add_move` stores one, advancing ``sets.ply`` only if it still
equals the ply the move was made against (a stale move changes nothing and the caller raises), and
the move texts are read back in the order they were played."""

from __future__ import annotations

from collections import defaultdict

from bot.shards import EVERY, Shards
from bot.storage.announcements import GRACE_US
from bot.storage.connection import Connection, Dialect
from bot.storage.errors import ConstraintViolated, WriteConflict
from bot.storage.sets import SET_COLUMNS, SetRow, by_id, set_row_of

ADD_MOVE_POSTGRESQL = f"""
WITH g AS (
    UPDATE sets SET
        ply = sets.ply + 1,
        to_move_id = CASE WHEN sets.to_move_id = sets.attacker_id
            THEN sets.defender_id ELSE sets.attacker_id END,
        deadline_us = $6 + m.time_per_move_us,
        reminder_us = $6 + m.time_per_move_us / 2,
        reminded = 0
    FROM matches m
    WHERE sets.set_id = $1 AND sets.ply = $2 AND sets.status = 'active'
        AND sets.deadline_us > $6 AND m.match_id = sets.match_id
    RETURNING sets.*
), moved AS (
    INSERT INTO moves (set_id, ply, notation, captures, player_id, played_us)
    SELECT set_id, $2, $3, $4, $5, $6 FROM g
), owed AS (
    INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us, undone)
    SELECT set_id, $2 + 1, channel_id, $6, $6 + {GRACE_US}, undone FROM g
    ON CONFLICT (set_id, ply) DO UPDATE SET
        channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0,
        next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL,
        late_cause = NULL, owed_anew = announcements.owed_anew + 1, taken_back = 0,
        undone = excluded.undone
    RETURNING owed_anew
)
SELECT {SET_COLUMNS}, (SELECT owed_anew FROM owed) FROM g JOIN matches m USING (match_id)
"""
"""A move on PostgreSQL, in one statement: what SQLite's moves triggers do, done here (schema
12 dropped PostgreSQL's). PostgreSQL's own numbered parameters, as ``$6`` is used six times:
set, ply, notation, captures, player, time in µs.

The set advances only while it is in progress at that ply: a racing move or resignation that
changed it first makes PostgreSQL look at the row again once that commits, and then nothing
at all is written. Otherwise the turn passes, the timers are re-armed from the move's time,
the move is stored and the board it leads to is owed to the outbox (noting the set's count of
moves taken back on it); the set is returned as it
now stands, with its match's fields (each found through a primary key), and the board's
``owed_anew``. A move at or after the
mover's deadline writes nothing either (the set is lost on time; the timer ends it).
"""


async def add_move(
    db: Connection,
    set_id: int,
    *,
    expected_ply: int,
    notation: str,
    captures: str,
    player_id: int,
    now_us: int,
) -> tuple[SetRow, int] | None:
    """Store a move made against ``expected_ply`` and return the game as it now stands, with
    the ``owed_anew`` of the board it owes (its nonce: :func:`announcements.nonce`), read by the
    move's own statement: a board owed anew at that ply later (the set's end there: an abort,
    a resignation, time) has its own, which the move's board must not take.

    Storing the move moves the ply on, gives the turn to the other player, re-arms the timers
    from ``now_us`` and owes the new board to the outbox: on SQLite the moves triggers do it
    (the INSERT is one statement), on PostgreSQL :data:`ADD_MOVE_POSTGRESQL`. The row returned
    is read back from the database, so the caller never recomputes any of it. Returns None and
    changes nothing if the game is no longer in progress at that ply, also when two processes
    race (PostgreSQL checks the set again after a racing commit; SQLite writes one transaction
    at a time), or if the mover's time ran out at or before ``now_us``.
    """
    params = (set_id, expected_ply, notation, captures, player_id, now_us)
    if db.dialect is Dialect.POSTGRESQL:
        # One round trip: the statement stores everything and returns the set as it stands.
        try:
            row = await db.fetch_one(ADD_MOVE_POSTGRESQL, params)
        except (ConstraintViolated, WriteConflict):
            return None
        return (set_row_of(list(row)[:-1]), int(row[-1])) if row else None
    try:
        inserted = await db.execute(
            "INSERT INTO moves (set_id, ply, notation, captures, player_id, played_us) "
            "SELECT CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), "
            "CAST(? AS BIGINT), CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM sets "
            "WHERE set_id = ? AND ply = ? AND status = 'active' AND deadline_us > ?)",
            (
                set_id,
                expected_ply,
                notation,
                captures,
                player_id,
                now_us,
                set_id,
                expected_ply,
                now_us,
            ),
        )
    except (ConstraintViolated, WriteConflict):
        return None
    if inserted != 1:
        return None
    # Read under the write lock the INSERT holds (:meth:`Database.single_statement`): no other
    # write came between.
    moved = await by_id(db, set_id)
    owed = await db.fetch_one(
        "SELECT owed_anew FROM announcements WHERE set_id = ? AND ply = ?",
        (set_id, expected_ply + 1),
    )
    assert moved is not None  # the INSERT's triggers wrote both
    assert owed is not None
    return moved, int(owed[0])


async def played_us(db: Connection, set_id: int, ply: int) -> int | None:
    """When the move of set ``set_id`` at ``ply`` was stored (µs), if it stands."""
    row = await db.fetch_one(
        "SELECT played_us FROM moves WHERE set_id = ? AND ply = ?", (set_id, ply)
    )
    return None if row is None else int(row[0])


async def notations(db: Connection, set_id: int) -> list[str]:
    """The move texts of a game, in order."""
    rows = await db.fetch_all("SELECT notation FROM moves WHERE set_id = ? ORDER BY ply", (set_id,))
    return [str(row[0]) for row in rows]


async def active_notations(db: Connection, shards: Shards = EVERY) -> dict[int, list[str]]:
    """The move texts of every game in progress (in the servers of ``shards``), by game id."""
    rows = await db.fetch_all(
        "SELECT set_id, notation FROM moves WHERE set_id IN "
        f"(SELECT set_id FROM sets WHERE status = 'active' AND {shards.where('guild_id')}) "
        "ORDER BY set_id, ply"
    )
    found: dict[int, list[str]] = defaultdict(list)
    for set_id, notation in rows:
        found[int(set_id)].append(str(notation))
    return found
