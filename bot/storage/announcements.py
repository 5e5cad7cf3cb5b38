"""SQL for the outbox of announcements: the boards that must be posted after stored moves."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.shards import EVERY, Shards
from bot.storage.connection import Connection


class LateCause(enum.Enum):
    """Why the last try to post an owed board failed (stored in ``late_cause``), which its
    late post tells; none stored: Discord could not be reached, or nothing failed (the bot
    stopped before it posted)."""

    LOCKED = "locked"
    """Discord refused it as locked: a moderator had locked its thread."""
    REFUSED = "refused"
    """Discord refused it otherwise (a 4xx: a permission missing)."""


@dataclass(frozen=True)
class AnnouncementRow:
    """A board to post: the set ``set_id`` as it stood at ``ply``, in ``channel_id``."""

    set_id: int
    ply: int
    channel_id: int
    guild_id: int
    """The set's server, whose language the board is posted in (discord.py forgets the
    channel once Discord archives its thread, so the channel cannot tell it)."""
    attempts: int
    created_us: int
    """When it became owed (the move's time): a board owed anew, after a takeback and another
    move to the same ply, is a different announcement."""
    taken_back: bool = False
    """Owed by the takeback that stepped the set back to ``ply`` (noted on the row by
    :func:`owed`, in the same transaction as the undo; schema 44): the board tells of the
    takeback, not of the move before it."""
    late_cause: LateCause | None = None
    """Why its last post failed (:class:`LateCause`), if Discord refused it."""
    undone: int = 0
    """How many moves had been taken back in the set when it became owed (the set's count,
    noted on the row by what owed it, in its transaction; schema 44): with the ply, what
    names the position it shows (the Takeback button under a board carries both)."""
    owed_anew: int = 0
    """How many times a board was owed at this ply of the set before this one (a takeback
    back to it, a move back to it after one, the set's end on it): what tells it from them
    when they became owed at the same instant."""

    @property
    def nonce(self) -> str:
        """The Discord nonce of its post (:func:`nonce`)."""
        return nonce(self.set_id, self.ply, self.created_us, self.owed_anew)


def nonce(set_id: int, ply: int, created_us: int, owed_anew: int) -> str:
    """The Discord nonce of the post of the board of ``set_id`` at ``ply`` owed since
    ``created_us``, after ``owed_anew`` boards owed there before it (at most 25 characters):
    Discord creates one message however often the post is sent again within a few minutes, by
    the flow or the outbox (a crash between posting and marking it delivered, or an answer lost
    on the way back). Each board owed has its own, even on a clock standing still: a board owed
    anew carries its count, not only its instant (the first keeps the nonce it had before schema
    43, so a post under way across an upgrade is not made twice)."""
    if owed_anew == 0:
        return f"{set_id % 10**9}.{ply}.{created_us % 10**9}"
    # 9 + 4 + 3 + 6 digits and three dots: 25 at most.
    return f"{set_id % 10**9}.{ply % 10**4}.{owed_anew % 10**3}.{created_us % 10**6}"


GRACE_US = 10_000_000
"""The normal path has this long (µs) to post a board before the timer posts it (also the time a
move's board is given: SQLite's moves trigger and PostgreSQL's move statement)."""


async def owed(
    db: Connection,
    set_id: int,
    ply: int,
    channel_id: int,
    now_us: int,
    *,
    taken_back: bool = False,
) -> None:
    """The board of ``set_id`` at ``ply`` is owed anew from ``now_us``: a match began (its
    first board, at ply 0), the set ended without a move (time, resignation, abort), or a
    takeback stepped it back to ``ply`` (``taken_back``, called after the undo, in its
    transaction: :attr:`AnnouncementRow.taken_back`). The row notes the moves taken back in
    the set as it stands (:attr:`AnnouncementRow.undone`)."""
    await db.execute(
        "INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us, "
        "taken_back, undone) SELECT ?, ?, ?, ?, ?, ?, undone FROM sets WHERE set_id = ? "
        "ON CONFLICT (set_id, ply) DO UPDATE SET "
        "channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0, "
        "next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL, "
        "late_cause = NULL, owed_anew = announcements.owed_anew + 1, "
        "taken_back = excluded.taken_back, undone = excluded.undone",
        (set_id, ply, channel_id, now_us, now_us + GRACE_US, int(taken_back), set_id),
    )


async def delivered(
    db: Connection,
    set_id: int,
    ply: int,
    message_id: int | None,
    now_us: int,
    *,
    owed: AnnouncementRow | tuple[int, int] | None = None,
) -> None:
    """The board of ``set_id`` at ``ply`` is posted (or superseded): never post it again.
    With ``owed`` (the outbox's row as read, or the flow's board as its move or takeback owed
    it: :func:`owed_at`), only if it is still that board (:func:`_same`): a takeback back to
    ``ply`` (or a move back to it after one, the set's end there) while it was posted owes
    another board there, which stays owed. Without it, whatever is owed there (the flow's own
    board, checked against the set in the same transaction)."""
    same = "" if owed is None else f"AND {_SAME} "
    values = () if owed is None else owed if isinstance(owed, tuple) else _same(owed)
    await db.execute(
        "UPDATE announcements SET delivered_us = ?, message_id = ? "
        f"WHERE set_id = ? AND ply = ? {same}AND delivered_us IS NULL",
        (now_us, message_id, set_id, ply, *values),
    )


_SAME = "created_us = ? AND owed_anew = ?"
"""The condition that the row is still the board ``row`` read (:func:`_same`'s values)."""


def _same(row: AnnouncementRow) -> tuple[int, int]:
    """What tells the board ``row`` from one owed anew at its ply since it was read: when it
    became owed and how many were owed there before it (on a clock standing still, or two
    owed within the same microsecond, the instant alone does not)."""
    return row.created_us, row.owed_anew


async def message_of(db: Connection, set_id: int, ply: int) -> int | None:
    """The message the board of ``set_id`` at ``ply`` went out as, if it did and is known."""
    row = await db.fetch_one(
        "SELECT message_id FROM announcements WHERE set_id = ? AND ply = ? "
        "AND delivered_us IS NOT NULL",
        (set_id, ply),
    )
    return None if row is None or row[0] is None else int(row[0])


async def out(db: Connection, set_id: int, ply: int) -> bool:
    """Whether the board of ``set_id`` at ``ply`` is noted out (or superseded)."""
    row = await db.fetch_one(
        "SELECT 1 FROM announcements WHERE set_id = ? AND ply = ? AND delivered_us IS NOT NULL",
        (set_id, ply),
    )
    return row is not None


async def nonce_of(db: Connection, set_id: int, ply: int, *, first: bool = False) -> str | None:
    """The nonce of the board of ``set_id`` at ``ply`` (:func:`nonce`), if it is (or was) owed;
    with ``first``, only while that is still the first board owed there (None once another was
    owed anew there: the set's end before any move, a takeback back to it)."""
    owed = await owed_at(db, set_id, ply)
    if owed is None or (first and owed[1] != 0):
        return None
    return nonce(set_id, ply, *owed)


async def owed_at(db: Connection, set_id: int, ply: int) -> tuple[int, int] | None:
    """The board of ``set_id`` at ``ply`` owed last, if one is (or was): when it became owed
    and how many were owed there before it (what tells it from the others: :func:`_same`)."""
    row = await db.fetch_one(
        "SELECT created_us, owed_anew FROM announcements WHERE set_id = ? AND ply = ?",
        (set_id, ply),
    )
    return None if row is None else (int(row[0]), int(row[1]))


async def due(
    db: Connection, now_us: int, limit: int, shards: Shards = EVERY
) -> list[AnnouncementRow]:
    """Undelivered announcements (in the servers of ``shards``) whose next try has come,
    oldest first."""
    mine = "" if shards.every else "AND " + shards.where("g.guild_id") + " "
    rows = await db.fetch_all(
        "SELECT a.set_id, a.ply, a.channel_id, a.attempts, a.created_us, a.taken_back, "
        "a.late_cause, g.guild_id, a.undone, a.owed_anew "
        "FROM announcements a "
        "JOIN sets g ON g.set_id = a.set_id "
        f"WHERE a.delivered_us IS NULL AND a.next_try_us <= ? {mine}"
        "ORDER BY a.created_us, a.set_id, a.ply LIMIT ?",
        (now_us, limit),
    )
    return [
        AnnouncementRow(
            set_id=int(row[0]),
            ply=int(row[1]),
            channel_id=int(row[2]),
            attempts=int(row[3]),
            created_us=int(row[4]),
            taken_back=bool(row[5]),
            late_cause=None if row[6] is None else LateCause(row[6]),
            guild_id=int(row[7]),
            undone=int(row[8]),
            owed_anew=int(row[9]),
        )
        for row in rows
    ]


async def failed(
    db: Connection, row: AnnouncementRow, next_try_us: int, cause: LateCause | None = None
) -> None:
    """Posting the board ``row`` failed (Discord refused it for ``cause``, or could not be
    reached): try again at ``next_try_us`` (a board owed anew there meanwhile keeps its own
    first try)."""
    await db.execute(
        "UPDATE announcements SET attempts = attempts + 1, next_try_us = ?, late_cause = ? "
        f"WHERE set_id = ? AND ply = ? AND {_SAME} AND delivered_us IS NULL",
        (next_try_us, None if cause is None else cause.value, row.set_id, row.ply, *_same(row)),
    )


async def held_back(db: Connection, row: AnnouncementRow, next_try_us: int) -> None:
    """The board ``row`` is not tried before ``next_try_us`` (Discord asked the posts in its
    channel to wait): its tries and why the last failed stay as they are."""
    await db.execute(
        "UPDATE announcements SET next_try_us = ? WHERE set_id = ? AND ply = ? "
        f"AND {_SAME} AND delivered_us IS NULL AND next_try_us < ?",
        (next_try_us, row.set_id, row.ply, *_same(row), next_try_us),
    )


async def post_refused(
    db: Connection,
    set_id: int,
    ply: int,
    cause: LateCause,
    *,
    owed: tuple[int, int] | None = None,
) -> None:
    """Discord refused the flow's own post of the board of ``set_id`` at ``ply`` for
    ``cause`` (the thread locked, a permission missing): if it is still owed, its late post
    says so (the outbox may post it before it tries, and fails, itself: the thread unlocked,
    the permission given back at once). With ``owed`` (the board as its move owed it:
    :func:`owed_at`), only if it is still that board (:func:`_same`): one owed anew at ``ply``
    since (the set's end there) was not refused, and its late post does not say it was."""
    same = "" if owed is None else f"AND {_SAME} "
    await db.execute(
        "UPDATE announcements SET late_cause = ? "
        f"WHERE set_id = ? AND ply = ? {same}AND delivered_us IS NULL",
        (cause.value, set_id, ply, *(owed or ())),
    )


async def retry_refused(db: Connection, guild_id: int, now_us: int, later_than_us: int) -> None:
    """Undelivered announcements of ``guild_id``'s sets that failed and whose next try is
    after ``later_than_us`` (paused for a refusal) are tried again at ``now_us`` (a board
    still in its first grace, which the move's own answer posts, is left alone)."""
    await db.execute(
        "UPDATE announcements SET next_try_us = ? "
        "WHERE delivered_us IS NULL AND attempts > 0 AND next_try_us > ? "
        "AND set_id IN (SELECT set_id FROM sets WHERE guild_id = ?)",
        (now_us, later_than_us, guild_id),
    )
    await db.execute(
        "UPDATE takeback_answers_owed SET next_try_us = ? "
        "WHERE attempts > 0 AND next_try_us > ? AND takeback_id IN (SELECT t.takeback_id "
        "FROM takebacks t JOIN sets g ON g.set_id = t.set_id WHERE g.guild_id = ?)",
        (now_us, later_than_us, guild_id),
    )
    await db.execute(
        "UPDATE match_lines_owed SET next_try_us = ? WHERE attempts > 0 AND next_try_us > ? "
        "AND set_id IN (SELECT set_id FROM sets WHERE guild_id = ?)",
        (now_us, later_than_us, guild_id),
    )


async def refused_channels(db: Connection, guild_id: int, later_than_us: int) -> list[int]:
    """The channels of ``guild_id`` with boards owed whose next try is after ``later_than_us``
    (paused for a refusal), each once."""
    rows = await db.fetch_all(
        "SELECT DISTINCT a.channel_id FROM announcements a JOIN sets g ON g.set_id = a.set_id "
        "WHERE a.delivered_us IS NULL AND a.attempts > 0 AND a.next_try_us > ? "
        "AND g.guild_id = ? ORDER BY a.channel_id",
        (later_than_us, guild_id),
    )
    return [int(row[0]) for row in rows]


@dataclass(frozen=True)
class OwedAnswer:
    """A takeback request whose message must still show how it ended (:func:`answer_owed`)."""

    takeback_id: int
    channel_id: int
    guild_id: int
    """Its set's server, whose language the message is edited in."""
    message_id: int | None
    status: str
    """'accepted', 'declined' or 'lapsed'."""
    asked_by: int
    answered_by: int | None
    attempts: int


async def answer_owed(db: Connection, takeback_id: int, now_us: int) -> None:
    """Discord refused as locked the edit of takeback request ``takeback_id``'s message that
    shows its answer (or lapse): the outbox owes it, tried from ``now_us`` (once owed, it
    stays so)."""
    await db.execute(
        "INSERT INTO takeback_answers_owed (takeback_id, next_try_us) VALUES (?, ?) "
        "ON CONFLICT (takeback_id) DO NOTHING",
        (takeback_id, now_us),
    )


async def answers_due(
    db: Connection, now_us: int, limit: int, shards: Shards = EVERY
) -> list[OwedAnswer]:
    """Owed takeback answers (in the servers of ``shards``) whose next try has come, oldest
    request first."""
    mine = "" if shards.every else "AND " + shards.where("g.guild_id") + " "
    rows = await db.fetch_all(
        "SELECT o.takeback_id, g.channel_id, t.message_id, t.status, t.asked_by, "
        "t.answered_by, o.attempts, g.guild_id FROM takeback_answers_owed o "
        "JOIN takebacks t ON t.takeback_id = o.takeback_id JOIN sets g ON g.set_id = t.set_id "
        f"WHERE o.next_try_us <= ? {mine}ORDER BY o.takeback_id LIMIT ?",
        (now_us, limit),
    )
    return [
        OwedAnswer(
            takeback_id=int(row[0]),
            channel_id=int(row[1]),
            message_id=None if row[2] is None else int(row[2]),
            status=str(row[3]),
            asked_by=int(row[4]),
            answered_by=None if row[5] is None else int(row[5]),
            attempts=int(row[6]),
            guild_id=int(row[7]),
        )
        for row in rows
    ]


async def answer_shown(db: Connection, takeback_id: int) -> None:
    """The owed answer of ``takeback_id`` is shown (or its message is gone): nothing is owed."""
    await db.execute("DELETE FROM takeback_answers_owed WHERE takeback_id = ?", (takeback_id,))


async def answer_failed(db: Connection, takeback_id: int, next_try_us: int) -> None:
    """Showing the owed answer of ``takeback_id`` failed: try again at ``next_try_us``."""
    await db.execute(
        "UPDATE takeback_answers_owed SET attempts = attempts + 1, next_try_us = ? "
        "WHERE takeback_id = ?",
        (next_try_us, takeback_id),
    )


@dataclass(frozen=True)
class OwedLine:
    """A match's line still to show the match's result, or that a rematch against the
    computer is on (:func:`line_owed`)."""

    set_id: int
    """The match's last set, from whose stored end the line is written (a rematch's first
    set, for the line saying it is on)."""
    guild_id: int
    """Its server, whose language the line is written in."""
    attempts: int
    superseded: bool
    """A newer match took the line over (a rematch against the computer, in the same thread):
    it is that match's now, and nothing is owed."""


async def line_owed(db: Connection, set_id: int, now_us: int) -> None:
    """Discord did not take the edit of the line of the match whose last set is ``set_id``
    (to show its result), or whose first set it is (a rematch against the computer: to say
    the game is on again): it is owed, tried from ``now_us`` (once owed, it stays so)."""
    await db.execute(
        "INSERT INTO match_lines_owed (set_id, next_try_us) VALUES (?, ?) "
        "ON CONFLICT (set_id) DO NOTHING",
        (set_id, now_us),
    )


_SUPERSEDED = (
    "EXISTS (SELECT 1 FROM matches n "
    "WHERE n.line_message_id = m.line_message_id AND n.match_id > m.match_id)"
)
"""Whether a newer match (``n``, a rematch against the computer) took over the line of match
``m``: read with the owed lines (:func:`lines_due`) and again before an edit
(:func:`line_superseded`)."""


async def lines_due(
    db: Connection, now_us: int, limit: int, shards: Shards = EVERY
) -> list[OwedLine]:
    """Owed match lines (in the servers of ``shards``) whose next try has come, oldest set
    first."""
    mine = "" if shards.every else "AND " + shards.where("g.guild_id") + " "
    rows = await db.fetch_all(
        f"SELECT o.set_id, g.guild_id, o.attempts, {_SUPERSEDED} "
        "FROM match_lines_owed o JOIN sets g ON g.set_id = o.set_id "
        "JOIN matches m ON m.match_id = g.match_id "
        f"WHERE o.next_try_us <= ? {mine}ORDER BY o.set_id LIMIT ?",
        (now_us, limit),
    )
    return [
        OwedLine(
            set_id=int(row[0]),
            guild_id=int(row[1]),
            attempts=int(row[2]),
            superseded=bool(row[3]),
        )
        for row in rows
    ]


async def line_superseded(db: Connection, set_id: int) -> bool:
    """Whether a newer match took over the line of ``set_id``'s match (a rematch against the
    computer, in the same thread), as :attr:`OwedLine.superseded` reads it."""
    row = await db.fetch_one(
        f"SELECT {_SUPERSEDED} FROM sets g JOIN matches m ON m.match_id = g.match_id "
        "WHERE g.set_id = ?",
        (set_id,),
    )
    return row is not None and bool(row[0])


async def line_shown(db: Connection, set_id: int) -> None:
    """The owed line of ``set_id``'s match shows its result (or is gone, or another match's
    now): nothing is owed."""
    await db.execute("DELETE FROM match_lines_owed WHERE set_id = ?", (set_id,))


async def line_failed(db: Connection, set_id: int, next_try_us: int) -> None:
    """Showing the owed line of ``set_id``'s match failed: try again at ``next_try_us``."""
    await db.execute(
        "UPDATE match_lines_owed SET attempts = attempts + 1, next_try_us = ? WHERE set_id = ?",
        (next_try_us, set_id),
    )
