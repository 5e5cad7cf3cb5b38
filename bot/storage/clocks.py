"""SQL for the deadlines across a process's absence or a hold: when its timers last ran, the
move clocks, challenges and takeback requests still running when nobody could answer them, the
time given back to them, and the intervals of wall time already given to each (schema 29's
``given_back``, so that overlapping give-backs give the overlap once: bot/services/absence.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.shards import EVERY, Shards, from_key
from bot.storage.connection import Connection, Dialect


def shards_key(shards: Shards) -> str:
    """How ``timer_checks`` names the process's share of the servers."""
    return shards.key


def covers(key: str, shards: Shards) -> bool:
    """Whether the process that wrote ``key`` may have driven some servers of ``shards`` (so
    its timers stood for theirs): every row but another share of the same shard count."""
    theirs = from_key(key)
    if theirs.every or shards.every:
        return True
    return theirs.count != shards.count or bool(set(theirs.ids) & set(shards.ids))


async def last_checks(db: Connection, shards: Shards = EVERY) -> list[tuple[int, Shards]]:
    """When the timers of each process that may have driven servers of ``shards`` last ran
    (µs), newest first, with that process's shards: this process's own note, and those of
    earlier layouts of the shards (one process before several, another count of shards)."""
    rows = await db.fetch_all("SELECT shards, checked_us FROM timer_checks")
    notes = [(int(row[1]), from_key(str(row[0]))) for row in rows if covers(str(row[0]), shards)]
    return sorted(notes, key=lambda note: note[0], reverse=True)


async def record_check(db: Connection, now_us: int, shards: Shards = EVERY) -> None:
    """The timers of the process running ``shards`` ran at ``now_us``."""
    await db.execute(
        "INSERT INTO timer_checks (shards, checked_us) VALUES (?, ?) "
        "ON CONFLICT (shards) DO UPDATE SET checked_us = excluded.checked_us",
        (shards_key(shards), now_us),
    )


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


class Deadline(enum.Enum):
    """What runs out for want of an answer (the ``kind`` of ``given_back``)."""

    SET = "set"
    """A set's move clock."""
    CHALLENGE = "challenge"
    TAKEBACK = "takeback"


@dataclass(frozen=True)
class Running:
    """A move clock, challenge or takeback request still running at the start of a give-back."""

    kind: Deadline
    row_id: int
    """The set's, challenge's or takeback request's id."""
    ply: int
    """A set's: the ply its clock runs for (0 for the others)."""
    channel_id: int
    message_id: int | None
    """The message asking for the answer (a challenge's, a takeback request's), if posted."""
    opened_us: int
    """When it began (a set's clock: its set's start, no later than the clock's)."""
    ran_from_us: int
    """When it began as its deadline tells, counting the time given back to it as not run: a
    set's deadline less the match's time per move, a challenge's or request's opening."""
    deadline_us: int

    @property
    def key(self) -> tuple[str, int, int]:
        """Its intervals' key in ``given_back``."""
        return (self.kind.value, self.row_id, self.ply)


@dataclass(frozen=True)
class Given:
    """An interval of wall time already given back to one clock, challenge or request."""

    key: tuple[str, int, int]
    """``(kind, id, ply)``, as :attr:`Running.key`."""
    start_us: int
    end_us: int


def _locked(db: Connection, table: str) -> str:
    """The clause locking the rows read from ``table`` until the transaction ends (PostgreSQL:
    a move or another give-back waits; SQLite runs one write transaction at a time)."""
    return f" FOR UPDATE OF {table}" if db.dialect is Dialect.POSTGRESQL else ""


async def running(
    db: Connection,
    since_us: int,
    shards: Shards = EVERY,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> list[Running]:
    """The move clocks of the sets in progress, the open challenges and the open takeback
    requests that can still be answered (in the servers of ``shards``; only ``guild_id``'s, or
    ``channel_id``'s, if given) whose deadline had not passed at ``since_us``, locked until the
    transaction ends: challenges, then takeback requests, then sets, the order in which the
    transactions that change two of them lock them (a server or channel gone withdraws its
    challenges, then lapses its requests; an accepted takeback closes its request, then steps
    its set back), so that on PostgreSQL one waits for the other rather than deadlock."""
    place, place_params = _in_place("g.", guild_id, channel_id)
    challenges = await db.fetch_all(
        "SELECT g.challenge_id, g.channel_id, g.message_id, g.created_us, g.expires_us "
        f"FROM challenges g WHERE g.status = 'open' AND g.expires_us > ? "
        f"AND {shards.where('g.guild_id')}{place} ORDER BY g.challenge_id{_locked(db, 'g')}",
        (since_us, *place_params),
    )
    takebacks = await db.fetch_all(
        "SELECT t.takeback_id, g.channel_id, t.message_id, t.asked_us, t.expires_us "
        "FROM takebacks t JOIN sets g ON g.set_id = t.set_id AND g.ply = t.ply "
        "AND g.status = 'active' WHERE t.status = 'open' AND t.expires_us > ? "
        f"AND {shards.where('g.guild_id')}{place} ORDER BY t.takeback_id{_locked(db, 't')}",
        (since_us, *place_params),
    )
    sets = await db.fetch_all(
        "SELECT g.set_id, g.ply, g.channel_id, g.started_us, "
        "g.deadline_us - m.time_per_move_us, g.deadline_us "
        "FROM sets g JOIN matches m ON m.match_id = g.match_id "
        f"WHERE g.status = 'active' AND g.deadline_us > ? AND {shards.where('g.guild_id')}"
        f"{place} ORDER BY g.set_id{_locked(db, 'g')}",
        (since_us, *place_params),
    )
    return [
        *(
            Running(Deadline.SET, int(r[0]), int(r[1]), int(r[2]), None, *map(int, r[3:6]))
            for r in sets
        ),
        *(
            Running(kind, int(r[0]), 0, int(r[1]), _maybe(r[2]), int(r[3]), int(r[3]), int(r[4]))
            for kind, rows in ((Deadline.CHALLENGE, challenges), (Deadline.TAKEBACK, takebacks))
            for r in rows
        ),
    ]


def _maybe(value: object) -> int | None:
    """A nullable id column's value."""
    return None if value is None else int(str(value))


async def move_on(db: Connection, moved: list[tuple[Running, int]]) -> None:
    """Move each deadline on by the time given to it (µs): a set's deadline and half-time, a
    challenge's or request's expiry. On PostgreSQL one UPDATE per table over arrays of the
    ids and times (10,000 single-row UPDATEs took about 430 ms of a 10,000-clock give-back's
    700); on SQLite, in the process, one statement per row."""
    if db.dialect is Dialect.POSTGRESQL:
        await _move_on_at_once(db, moved)
        return
    await db.execute_many(
        "UPDATE sets SET deadline_us = deadline_us + ?, reminder_us = reminder_us + ? "
        "WHERE set_id = ? AND ply = ?",
        [(given, given, r.row_id, r.ply) for r, given in moved if r.kind is Deadline.SET],
    )
    for kind, table, column in (
        (Deadline.CHALLENGE, "challenges", "challenge_id"),
        (Deadline.TAKEBACK, "takebacks", "takeback_id"),
    ):
        await db.execute_many(
            f"UPDATE {table} SET expires_us = expires_us + ? WHERE {column} = ?",
            [(given, r.row_id) for r, given in moved if r.kind is kind],
        )


async def _move_on_at_once(db: Connection, moved: list[tuple[Running, int]]) -> None:
    """:func:`move_on` on PostgreSQL: one UPDATE per table, joined to ``unnest`` of the ids
    (and plies) and the times given (each deadline is in ``moved`` once: :func:`running`
    reads each row once)."""
    sets = [(r.row_id, r.ply, given) for r, given in moved if r.kind is Deadline.SET]
    if sets:
        ids, plies, times = (list(values) for values in zip(*sets, strict=True))
        await db.execute(
            "UPDATE sets SET deadline_us = sets.deadline_us + v.given, "
            "reminder_us = sets.reminder_us + v.given "
            "FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) AS v(set_id, ply, given) "
            "WHERE sets.set_id = v.set_id AND sets.ply = v.ply",
            (ids, plies, times),
        )
    for kind, table, column in (
        (Deadline.CHALLENGE, "challenges", "challenge_id"),
        (Deadline.TAKEBACK, "takebacks", "takeback_id"),
    ):
        rows = [(r.row_id, given) for r, given in moved if r.kind is kind]
        if rows:
            ids, times = (list(values) for values in zip(*rows, strict=True))
            await db.execute(
                f"UPDATE {table} SET expires_us = {table}.expires_us + v.given "
                "FROM unnest(?::bigint[], ?::bigint[]) AS v(row_id, given) "
                f"WHERE {table}.{column} = v.row_id",
                (ids, times),
            )


GIVEN_READ = 500
"""How many deadlines' intervals one query reads (a bound on its parameters)."""


async def given_since(db: Connection, since_us: int, deadlines: list[Running]) -> list[Given]:
    """The intervals already given back to ``deadlines`` that end at ``since_us`` or later
    (a set's: to its clock for any ply, those of other plies no longer running)."""
    given: list[Given] = []
    for kind in Deadline:
        ids = [d.row_id for d in deadlines if d.kind is kind]
        for start in range(0, len(ids), GIVEN_READ):
            chunk = ids[start : start + GIVEN_READ]
            rows = await db.fetch_all(
                "SELECT kind, target_id, ply, start_us, end_us FROM given_back "
                f"WHERE kind = ? AND target_id IN ({', '.join('?' * len(chunk))}) "
                "AND end_us >= ?",
                (kind.value, *chunk, since_us),
            )
            given += (Given((str(r[0]), int(r[1]), int(r[2])), int(r[3]), int(r[4])) for r in rows)
    return given


async def replace_given(db: Connection, forgotten: list[Given], added: list[Given]) -> None:
    """Forget the intervals ``forgotten`` (those merged into the ``added`` ones, and those of
    clocks no longer running), and keep the ``added`` ones. On PostgreSQL one DELETE and one
    INSERT over arrays of the rows (``unnest``: 10,000 rows forgotten and 10,000 added take
    about half the time of a statement per row, benchmarks/give_back_speed.py); on SQLite, in
    the process, one statement per row (its sets of rows measured no faster: a DELETE by
    ``(kind, target_id, ply, start_us) IN (VALUES …)`` reads the whole table, one of ORed keys
    took as long, and a multi-row INSERT saved 3 ms in 10,000 rows)."""
    if db.dialect is Dialect.POSTGRESQL:
        await _replace_given_at_once(db, forgotten, added)
        return
    await replace_given_row_by_row(db, forgotten, added)


async def replace_given_row_by_row(
    db: Connection, forgotten: list[Given], added: list[Given]
) -> None:
    """:func:`replace_given` a statement per row: SQLite's way, and PostgreSQL's before its
    arrays (which benchmarks/give_back_speed.py compares it with)."""
    await db.execute_many(
        "DELETE FROM given_back WHERE kind = ? AND target_id = ? AND ply = ? AND start_us = ?",
        [(*g.key, g.start_us) for g in forgotten],
    )
    await db.execute_many(
        "INSERT INTO given_back (kind, target_id, ply, start_us, end_us) VALUES (?, ?, ?, ?, ?)",
        [(*g.key, g.start_us, g.end_us) for g in added],
    )


async def _replace_given_at_once(
    db: Connection, forgotten: list[Given], added: list[Given]
) -> None:
    """:func:`replace_given` on PostgreSQL: one DELETE joined to ``unnest`` of the forgotten
    rows' keys, then one INSERT of ``unnest`` of the added rows (a key forgotten and added
    again, an interval merged from its own start, is deleted first)."""
    if forgotten:
        kinds, ids, plies, starts = (
            list(values) for values in zip(*((*g.key, g.start_us) for g in forgotten), strict=True)
        )
        await db.execute(
            "DELETE FROM given_back g "
            "USING unnest(?::text[], ?::bigint[], ?::integer[], ?::bigint[]) "
            "AS v(kind, target_id, ply, start_us) WHERE g.kind = v.kind "
            "AND g.target_id = v.target_id AND g.ply = v.ply AND g.start_us = v.start_us",
            (kinds, ids, plies, starts),
        )
    if added:
        kinds, ids, plies, starts, ends = (
            list(values)
            for values in zip(*((*g.key, g.start_us, g.end_us) for g in added), strict=True)
        )
        await db.execute(
            "INSERT INTO given_back (kind, target_id, ply, start_us, end_us) "
            "SELECT * FROM unnest(?::text[], ?::bigint[], ?::integer[], ?::bigint[], ?::bigint[])",
            (kinds, ids, plies, starts, ends),
        )


_STILL_RUNNING = {
    Deadline.SET: "SELECT 1 FROM sets WHERE sets.set_id = given_back.target_id "
    "AND sets.ply = given_back.ply AND sets.status = 'active'",
    Deadline.CHALLENGE: "SELECT 1 FROM challenges "
    "WHERE challenges.challenge_id = given_back.target_id AND challenges.status = 'open'",
    Deadline.TAKEBACK: "SELECT 1 FROM takebacks "
    "WHERE takebacks.takeback_id = given_back.target_id AND takebacks.status = 'open'",
}
"""Whether a ``given_back`` row's clock, challenge or request still runs."""

_SERVER = {
    Deadline.SET: "SELECT sets.guild_id FROM sets WHERE sets.set_id = given_back.target_id",
    Deadline.CHALLENGE: "SELECT challenges.guild_id FROM challenges "
    "WHERE challenges.challenge_id = given_back.target_id",
    Deadline.TAKEBACK: "SELECT sets.guild_id FROM takebacks JOIN sets "
    "ON sets.set_id = takebacks.set_id WHERE takebacks.takeback_id = given_back.target_id",
}
"""The server of a ``given_back`` row's set, challenge or request (none if it is not found:
a challenge deleted a week after it closed, bot/storage/pruning.py, or a row written by hand;
sets and requests are never deleted)."""


def _swept_by(kind: Deadline, shards: Shards) -> str:
    """An SQL condition true for the ``given_back`` rows of ``kind`` that the process running
    ``shards`` sweeps: those of the servers it drives, and, if it runs shard 0, those of no
    server (:data:`_SERVER` finds none)."""
    if shards.every:
        return "1 = 1"
    server = f"({_SERVER[kind]})"
    if shards.runs_first:
        return f"({shards.where(server)} OR {server} IS NULL)"
    return shards.where(server)


FORGET_BATCH = 1_000
"""About how many ``given_back`` rows one transaction of :func:`forget_given` looks at."""


async def forget_given(
    db: Connection, kind: Deadline, after_id: int, shards: Shards = EVERY
) -> int | None:
    """Forget the intervals given back to the clocks, challenges or requests (``kind``) no
    longer running (a set moved on or ended, a challenge or request answered or expired) in
    the servers of ``shards`` (and, the process of shard 0, those of no server) among the
    ``FORGET_BATCH`` or so rows of the next ids after ``after_id`` (every row of the last id
    looked at). Returns that id, to go on after; None once none is left. Reads those rows
    only, by the table's key: never the whole table (the rows of every shard, though: a
    server's shard is no column to look up)."""
    row = await db.fetch_one(
        "SELECT max(target_id) FROM (SELECT target_id FROM given_back "
        "WHERE kind = ? AND target_id > ? ORDER BY target_id LIMIT ?) page",
        (kind.value, after_id, FORGET_BATCH),
    )
    if row is None or row[0] is None:
        return None
    last = int(str(row[0]))
    await db.execute(
        "DELETE FROM given_back WHERE kind = ? AND target_id > ? AND target_id <= ? "
        f"AND NOT EXISTS ({_STILL_RUNNING[kind]}) AND {_swept_by(kind, shards)}",
        (kind.value, after_id, last),
    )
    return last
