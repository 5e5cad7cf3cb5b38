"""SQL for takebacks: requests, their answers, and undoing moves into the audit table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.shards import Shards
from bot.storage.connection import Connection
from bot.storage.sets import EVERY

OPEN = "open"


@dataclass(frozen=True)
class TakebackRow:
    """A stored takeback request."""

    takeback_id: int
    set_id: int
    ply: int
    asked_by: int
    answered_by: int | None
    status: str
    asked_us: int
    expires_us: int
    answered_us: int | None
    message_id: int | None


_SELECT = (
    "SELECT takeback_id, set_id, ply, asked_by, answered_by, status, asked_us, expires_us, "
    "answered_us, message_id FROM takebacks"
)


def _row(row: Any) -> TakebackRow:
    return TakebackRow(*row)


async def insert(
    db: Connection,
    *,
    set_id: int,
    ply: int,
    asked_by: int,
    now_us: int,
    expires_us: int,
    status: str = OPEN,
    answered_by: int | None = None,
) -> int:
    """A new takeback request (or, with ``status``, one already answered); returns its id."""
    row = await db.fetch_one(
        "INSERT INTO takebacks (set_id, ply, asked_by, answered_by, status, asked_us, "
        "expires_us, answered_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING takeback_id",
        (
            set_id,
            ply,
            asked_by,
            answered_by,
            status,
            now_us,
            expires_us,
            None if status == OPEN else now_us,
        ),
    )
    assert row is not None
    return int(row[0])


async def get(db: Connection, takeback_id: int) -> TakebackRow | None:
    """The request with this id."""
    row = await db.fetch_one(f"{_SELECT} WHERE takeback_id = ?", (takeback_id,))
    return None if row is None else _row(row)


_UNDONE_SINCE = (
    "(SELECT 1 FROM takebacks AS undone WHERE undone.set_id = asked.set_id "
    "AND undone.status = 'accepted' AND undone.takeback_id > asked.takeback_id)"
)
"""A subquery: a takeback in the set of ``asked`` was accepted after it — a move was undone,
so the move at ``asked``'s ply may be another one."""


async def declined_at(db: Connection, set_id: int, ply: int) -> bool:
    """Whether a request to take back the move that made ``ply`` in this set was declined (the
    move now at that ply: one taken back since was another)."""
    row = await db.fetch_one(
        "SELECT 1 FROM takebacks AS asked WHERE set_id = ? AND ply = ? AND status = 'declined' "
        f"AND NOT EXISTS {_UNDONE_SINCE}",
        (set_id, ply),
    )
    return row is not None


async def lapsed_at(db: Connection, set_id: int, ply: int) -> bool:
    """Whether a request to take back the move that made ``ply`` in this set lapsed (the move
    now at that ply, as for :func:`declined_at`)."""
    row = await db.fetch_one(
        "SELECT 1 FROM takebacks AS asked WHERE set_id = ? AND ply = ? AND status = 'lapsed' "
        f"AND NOT EXISTS {_UNDONE_SINCE}",
        (set_id, ply),
    )
    return row is not None


async def open_for_game(db: Connection, set_id: int) -> TakebackRow | None:
    """The game's open request, if any."""
    row = await db.fetch_one(f"{_SELECT} WHERE set_id = ? AND status = 'open'", (set_id,))
    return None if row is None else _row(row)


async def close(
    db: Connection,
    takeback_id: int,
    status: str,
    now_us: int,
    answered_by: int | None = None,
) -> bool:
    """Answer or lapse an open request; False if it was not open any more."""
    changed = await db.execute(
        "UPDATE takebacks SET status = ?, answered_by = ?, answered_us = ? "
        "WHERE takeback_id = ? AND status = 'open'",
        (status, answered_by, now_us, takeback_id),
    )
    return changed == 1


async def withdraw(db: Connection, takeback_id: int) -> bool:
    """Forget an open request nobody was shown (Discord refused its message): as if never
    asked. False if it was not open any more."""
    changed = await db.execute(
        "DELETE FROM takebacks WHERE takeback_id = ? AND status = 'open'", (takeback_id,)
    )
    return changed == 1


async def set_message(db: Connection, takeback_id: int, message_id: int) -> None:
    """Remember the message that asks the opponent."""
    await db.execute(
        "UPDATE takebacks SET message_id = ? WHERE takeback_id = ?", (message_id, takeback_id)
    )


async def stale(db: Connection, now_us: int, shards: Shards = EVERY) -> list[TakebackRow]:
    """Open requests (in the servers of ``shards``) that have expired or whose game moved on
    (or ended) since they were made."""
    mine = (
        ""
        if shards.every
        else ("AND t.set_id IN (SELECT set_id FROM sets WHERE " + shards.where("guild_id") + ") ")
    )
    rows = await db.fetch_all(
        f"{_SELECT} t WHERE t.status = 'open' {mine}AND (t.expires_us <= ? OR NOT EXISTS ("
        "SELECT 1 FROM sets g WHERE g.set_id = t.set_id AND g.ply = t.ply "
        "AND g.status = 'active'))",
        (now_us,),
    )
    return [_row(row) for row in rows]


async def undo_last_move(
    db: Connection, set_id: int, takeback_id: int, now_us: int, *, from_ply: int
) -> bool:
    """Move the game's last move into ``undone_moves`` and step the game back one ply, from
    ``from_ply`` (the ply the player saw when the takeback was asked or answered).

    The turn goes back to the player who made the move, whose move timer starts again from
    ``now_us``, and the set counts one more move taken back (``sets.undone``). False (nothing
    changed) if the game has no move, is not in progress, or no longer stands at ``from_ply``
    (a move landed meanwhile: it is not the one to undo).
    """
    last = await db.fetch_one(
        "SELECT m.ply, m.player_id FROM moves m JOIN sets g USING (set_id) "
        "WHERE m.set_id = ? AND g.status = 'active' AND g.ply = ? AND m.ply = g.ply - 1",
        (set_id, from_ply),
    )
    if last is None:
        return False
    ply, player_id = int(last[0]), int(last[1])
    # The game steps back first, only from the ply just read: on PostgreSQL this locks its row,
    # so a move racing the takeback either landed before (nothing is undone) or waits and is
    # refused (its ply is gone).
    stepped = await db.execute(
        "UPDATE sets SET ply = ?, to_move_id = ?, "
        "deadline_us = ? + (SELECT time_per_move_us FROM matches "
        "WHERE matches.match_id = sets.match_id), "
        "reminder_us = ? + (SELECT time_per_move_us FROM matches "
        "WHERE matches.match_id = sets.match_id) / 2, reminded = 0, last_reminded_ply = NULL, "
        "undone = undone + 1 WHERE set_id = ? AND ply = ? AND status = 'active'",
        (ply, player_id, now_us, now_us, set_id, ply + 1),
    )
    if stepped != 1:
        return False
    await db.execute(
        "INSERT INTO undone_moves (set_id, ply, notation, captures, player_id, played_us, "
        "takeback_id, undone_us) SELECT set_id, ply, notation, captures, player_id, played_us, "
        "?, ? FROM moves WHERE set_id = ? AND ply = ?",
        (takeback_id, now_us, set_id, ply),
    )
    await db.execute("DELETE FROM moves WHERE set_id = ? AND ply = ?", (set_id, ply))
    return True


async def last_mover(db: Connection, set_id: int) -> int | None:
    """Who made the game's last move (None before the first)."""
    row = await db.fetch_one(
        "SELECT player_id FROM moves WHERE set_id = ? ORDER BY ply DESC LIMIT 1", (set_id,)
    )
    return None if row is None else int(row[0])
