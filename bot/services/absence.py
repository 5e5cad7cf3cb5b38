"""The bot's absence, and every hold's: what a give-back gives for the time nobody could play.

Nobody can move, accept a challenge or answer a takeback request while the bot is down, so the
deadlines that run out for want of an answer stand still then: at start-up the time since the
timers last ran is given back to every move clock that was running, and to the expiry of every
challenge and takeback request that was open — never more than each had run. So too when a
hold ends (bot/holds.py: a server's outage, a thread locked, a shard or the gateway dropped).

Holds and absences overlap (a restart during a thread's lock, a shard dropped during its
server's outage), and the inner one may end first. So each give-back notes, per clock (a
set's, for the ply it runs for), challenge and takeback request, the wall time it covered
(schema 29's ``given_back``), and gives each only the part of its own interval not noted for it
already (:func:`owed`). Stored rather than remembered in memory: a restart, and another process
on the same PostgreSQL database, must see what was given before. Per deadline rather than per
place: whether an absence gave a game anything depends on that game (one whose deadline had
passed, held, was given nothing), and places nest in several ways (a thread in a server in a
shard). Each give-back takes one lock and locks the rows it moves on, so two at once never
both give an overlap.

The table keeps only what may still count: the intervals of the deadlines still running, and of
those that stopped since the last sweep. Forgetting by age would not be sound (a thread locked
while the bot was stopped is found later, with a hold from the past, for which an old interval
may still count); forgetting what no longer runs always is: a clock, challenge or request that
stopped never runs again. A takeback starts a new clock for an earlier ply under the same key
(set, ply): that ply's old intervals, if not swept yet, count as the new clock's, which is
harmless — they ended before the takeback (nobody moves during a hold), and :func:`owed`
never gives more than the new clock ran, so they cannot lessen what it is owed. A give-back forgets
the intervals it reads of clocks no longer running (its sets' earlier plies);
:func:`forget_given` sweeps the rest, at start-up and hourly (bot/timers.py: each process
those of its own servers, the process of shard 0 also those of no server), a bounded batch per
transaction, each read by the table's key. Not in every give-back's transaction, as before:
there the same sweep read the whole table (33 ms at 40,000 rows) while holding the lock every
give-back waits for. Nor in each transaction that stops a deadline (a move, a set's end, a
challenge or request answered, withdrawn or expired, a takeback): a dozen write paths on two
databases, each a place to forget it. Intervals of one deadline that overlap or touch are merged
as they are noted (one row, not one per give-back); those that do not cannot be (the time
between was not given).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.shards import Shards
from bot.storage import clocks
from bot.storage.connection import Connection
from bot.storage.times import from_us


class Expiring(enum.Enum):
    """What waits for an answer until an expiry."""

    CHALLENGE = "challenge"
    TAKEBACK = "takeback request"


@dataclass(frozen=True)
class MovedExpiry:
    """An open challenge or takeback request whose expiry a start-up moved on: its message
    still shows the old time until it is edited."""

    kind: Expiring
    row_id: int
    """The challenge's or takeback's id."""
    channel_id: int
    message_id: int | None
    """The message asking for the answer (None if it was never posted)."""
    expires_at: datetime


@dataclass(frozen=True)
class Resumed:
    """What a start-up gave back for the bot's absence."""

    away: timedelta
    """How long the timers had not run (zero on the very first start)."""
    clocks: list[tuple[int, int, datetime]]
    """``(set_id, channel_id, new deadline)`` of each set whose clock was given time."""
    expiries: list[MovedExpiry]
    """The challenges and takeback requests whose expiry was moved on."""


GIVE_BACK_LOCK = "give-back"
"""Taken by every give-back, so that two (two processes' holds ending at once, on PostgreSQL)
never both read an interval as not yet given."""


async def give_time_back(
    db: Connection,
    last_us: int | None,
    now_us: int,
    shards: Shards,
    *,
    guild_id: int | None = None,
    channel_id: int | None = None,
) -> Resumed:
    """Give the time from ``last_us`` (when timers that drove the servers of ``shards`` last
    ran, or when ``guild_id`` or ``channel_id`` was closed to its players; None if never) to
    ``now_us`` back to the clocks, challenges and takeback requests still running at
    ``last_us`` (only ``guild_id``'s, or ``channel_id``'s, if given): to each, the part of that
    time not given to it already (:func:`owed`), noted as given; in the caller's
    transaction. The intervals read of clocks no longer running (a set's earlier ply) are
    forgotten; those of other deadlines are left to :func:`forget_given`."""
    if last_us is None or last_us >= now_us:
        return Resumed(timedelta(0), [], [])
    await db.lock(GIVE_BACK_LOCK)
    deadlines = await clocks.running(db, last_us, shards, guild_id=guild_id, channel_id=channel_id)
    running = {deadline.key for deadline in deadlines}
    before: dict[tuple[str, int, int], list[clocks.Given]] = {}
    forgotten: list[clocks.Given] = []
    for given in await clocks.given_since(db, last_us, deadlines):
        if given.key in running:
            before.setdefault(given.key, []).append(given)
        else:
            forgotten.append(given)
    moved: list[tuple[clocks.Running, int]] = []
    added: list[clocks.Given] = []
    for deadline in deadlines:
        time = owed(last_us, now_us, deadline, before.get(deadline.key, []))
        if time > 0:
            moved.append((deadline, time))
        touching = [given for given in before.get(deadline.key, []) if given.start_us <= now_us]
        forgotten += touching
        added.append(
            clocks.Given(
                deadline.key,
                min([last_us, *(given.start_us for given in touching)]),
                max([now_us, *(given.end_us for given in touching)]),
            )
        )
    await clocks.move_on(db, moved)
    await clocks.replace_given(db, forgotten, added)
    return Resumed(
        timedelta(microseconds=now_us - last_us),
        [
            (deadline.row_id, deadline.channel_id, from_us(deadline.deadline_us + time))
            for deadline, time in moved
            if deadline.kind is clocks.Deadline.SET
        ],
        [
            MovedExpiry(
                _EXPIRING[deadline.kind],
                deadline.row_id,
                deadline.channel_id,
                deadline.message_id,
                from_us(deadline.deadline_us + time),
            )
            for deadline, time in moved
            if deadline.kind is not clocks.Deadline.SET
        ],
    )


_EXPIRING = {
    clocks.Deadline.CHALLENGE: Expiring.CHALLENGE,
    clocks.Deadline.TAKEBACK: Expiring.TAKEBACK,
}


async def forget_given(
    db: Connection, kind: clocks.Deadline, after_id: int, shards: Shards
) -> int | None:
    """Forget the intervals given back to the deadlines of ``kind`` no longer running in the
    servers of ``shards``, among the next batch of ids after ``after_id``
    (:func:`clocks.forget_given`), under the lock the give-backs take (one never reads an
    interval this forgets). Returns the last id looked at, None once every one was."""
    await db.lock(GIVE_BACK_LOCK)
    return await clocks.forget_given(db, kind, after_id, shards)


def owed(since_us: int, until_us: int, deadline: clocks.Running, given: list[clocks.Given]) -> int:
    """The time (µs) from ``since_us`` to ``until_us`` owed to ``deadline``, given the
    intervals already ``given`` to it that end at ``since_us`` or later (none overlapping
    another): the part of that time since it opened not given to it already. A set's clock
    is not stored with its start, only its set's (:attr:`~clocks.Running.opened_us`) and its
    deadline less the time per move (:attr:`~clocks.Running.ran_from_us`: its start plus the
    time given to it since); so it is also never given more than the time it had run by
    ``until_us`` less the time given to it before then — exact when the interval began
    before the clock, and never binding otherwise. (Time given after ``until_us`` — another
    give-back whose end was read later but came first — is not taken off that bound.)"""
    start = max(since_us, deadline.opened_us)
    covered = sum(
        max(0, min(interval.end_us, until_us) - max(interval.start_us, start)) for interval in given
    )
    later = sum(max(0, interval.end_us - max(interval.start_us, until_us)) for interval in given)
    return max(0, min(until_us - start - covered, until_us - deadline.ran_from_us + later))
