"""SQL for puzzle attempts and the daily puzzle (its setting, its timer and its posts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.shards import Shards
from bot.storage.connection import Connection, Row
from bot.storage.players import KNOWN_NAME
from bot.storage.sets import EVERY

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
class SolverRow:
    """A player's place among a server's puzzle solvers."""

    place: int
    """From 1, every place different (ties broken down to the user id)."""
    user_id: int
    display_name: str | None
    """The player's name in that server, else their account's (None: the bot never learned it)."""
    solved: int
    attempted: int
    """Finished attempts: solved or failed."""
    reached_us: int = 0
    """When the count was reached (the last solve; with none, the first attempt finished):
    with the counts and the user id, the row's place in the order (:data:`SolverKey`)."""
    username: str | None = None
    """The account's username, which tells apart two solvers shown alike (None: not stored)."""


SolverKey = tuple[int, int, int, int]
"""A row's place in the puzzle leaderboard's order: solved, attempted, reached_us, user id."""


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
    refusals: int = 0
    """How often Discord refused the post (the pause before the next try doubles with each)."""
    next_try_us: int | None = None
    """When a refused post is tried next (None: at once)."""


LEFT_SERVER = "left_server"
"""A daily puzzle switched off as the bot was removed from its server."""
CHANNEL_DELETED = "channel_deleted"
"""A daily puzzle switched off as its channel was deleted."""


@dataclass(frozen=True)
class DailyStopRow:
    """Why a server's daily puzzle was switched off when no admin did it, and when."""

    guild_id: int
    reason: str
    """:data:`LEFT_SERVER` or :data:`CHANNEL_DELETED`."""
    stopped_us: int


_ATTEMPT = (
    "SELECT attempt_id, user_id, guild_id, puzzle_id, line, status, daily_day, started_us, "
    "finished_us FROM puzzle_attempts"
)
_POST = (
    "SELECT guild_id, day, puzzle_id, channel_id, claimed_us, message_id, refusals, "
    "next_try_us FROM daily_posts"
)


def _attempt(row: Any) -> AttemptRow:
    values = list(row)
    values[4] = tuple(str(values[4]).split())
    return AttemptRow(*values)


async def attempt(db: Connection, attempt_id: int) -> AttemptRow | None:
    """The attempt with this id."""
    row = await db.fetch_one(f"{_ATTEMPT} WHERE attempt_id = ?", (attempt_id,))
    return None if row is None else _attempt(row)


async def attempt_at(db: Connection, user_id: int, puzzle_id: str) -> AttemptRow | None:
    """``user_id``'s attempt at ``puzzle_id``, if any."""
    row = await db.fetch_one(
        f"{_ATTEMPT} WHERE user_id = ? AND puzzle_id = ?", (user_id, puzzle_id)
    )
    return None if row is None else _attempt(row)


async def open_attempts(db: Connection, user_id: int) -> list[AttemptRow]:
    """``user_id``'s unfinished attempts begun with /puzzle (not daily ones), newest first."""
    rows = await db.fetch_all(
        f"{_ATTEMPT} WHERE user_id = ? AND status = 'open' AND daily_day IS NULL "
        "ORDER BY attempt_id DESC",
        (user_id,),
    )
    return [_attempt(row) for row in rows]


async def unfinished_puzzle_ids(db: Connection, user_id: int) -> set[str]:
    """The puzzles of ``user_id``'s unfinished attempts, daily ones included."""
    rows = await db.fetch_all(
        "SELECT DISTINCT puzzle_id FROM puzzle_attempts WHERE user_id = ? AND status = 'open'",
        (user_id,),
    )
    return {str(row[0]) for row in rows}


async def start(
    db: Connection,
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


async def make_daily(db: Connection, attempt_id: int, guild_id: int, day: str) -> None:
    """An open attempt begun with /puzzle (in any server) becomes the attempt at ``day``'s
    daily puzzle of ``guild_id``."""
    await db.execute(
        "UPDATE puzzle_attempts SET daily_day = ?, guild_id = ? "
        "WHERE attempt_id = ? AND daily_day IS NULL AND status = 'open'",
        (day, guild_id, attempt_id),
    )


async def advance(
    db: Connection,
    attempt_id: int,
    *,
    line_before: tuple[str, ...],
    line: tuple[str, ...],
    status: str,
    now_us: int,
    guild_id: int,
) -> bool:
    """Record moves of an open attempt, only if it is still at ``line_before``, played in
    ``guild_id``: where it counts, unless it is a daily puzzle (the day's post's server)."""
    changed = await db.execute(
        "UPDATE puzzle_attempts SET line = ?, status = ?, finished_us = ?, "
        "guild_id = CASE WHEN daily_day IS NULL THEN ? ELSE guild_id END "
        "WHERE attempt_id = ? AND line = ? AND status = 'open'",
        (
            " ".join(line),
            status,
            None if status == OPEN else now_us,
            guild_id,
            attempt_id,
            " ".join(line_before),
        ),
    )
    return changed == 1


async def attempted(db: Connection, user_id: int) -> set[str]:
    """The puzzle ids ``user_id`` has met."""
    rows = await db.fetch_all("SELECT puzzle_id FROM puzzle_attempts WHERE user_id = ?", (user_id,))
    return {str(row[0]) for row in rows}


async def finished(db: Connection, user_id: int) -> list[AttemptRow]:
    """``user_id``'s finished attempts, in the order they were finished."""
    rows = await db.fetch_all(
        f"{_ATTEMPT} WHERE user_id = ? AND status <> 'open' ORDER BY finished_us, attempt_id",
        (user_id,),
    )
    return [_attempt(row) for row in rows]


async def solvers(db: Connection, guild_id: int, puzzle_id: str, day: str) -> list[int]:
    """Who solved the daily puzzle of ``day`` in ``guild_id``, first solver first."""
    rows = await db.fetch_all(
        "SELECT user_id FROM puzzle_attempts WHERE guild_id = ? AND puzzle_id = ? "
        "AND daily_day = ? AND status = 'solved' ORDER BY finished_us, attempt_id",
        (guild_id, puzzle_id, day),
    )
    return [int(row[0]) for row in rows]


_TOTALS = (
    "SELECT guild_id, user_id, SUM(CASE WHEN status = 'solved' THEN 1 ELSE 0 END) AS solved, "
    "count(*) AS attempted, COALESCE(MAX(CASE WHEN status = 'solved' THEN finished_us END), "
    "MIN(finished_us)) AS reached_us "
    "FROM puzzle_attempts WHERE guild_id = ? AND finished_us >= ? GROUP BY guild_id, user_id"
)
"""Each player's finished attempts in a server since a moment: solved, attempted, and when the
count was reached (the last solve; with none solved, the first attempt finished). SQLite reads
it from the index ``puzzle_attempts_by_solver`` alone (schema 42), in player order, so the
count sorts nothing; PostgreSQL reads an index by server (the last days' through
``puzzle_attempts_by_guild``, schema 18) and counts in a hash table. An attempt counts in the
server it was played in, and a player meets each puzzle once, so every row is a first
attempt."""

_RANKED = (
    f"WITH totals AS {{materialized}}({_TOTALS}), ranked AS (SELECT guild_id, user_id, "
    "solved, attempted, reached_us, row_number() OVER (ORDER BY solved DESC, "
    "solved * 1.0 / attempted DESC, reached_us, user_id) AS place FROM totals)"
)
"""Each solver of a server since a moment, with their place: most solved first, then the
higher solve rate, then whoever reached the count first, the user id last (every place
differs)."""

_NAMED = (
    f"SELECT r.place, r.user_id, coalesce(m.display_name, {KNOWN_NAME}), r.solved, "
    "r.attempted, r.reached_us, p.username"
)
_JOINS = (
    "FROM ranked r LEFT JOIN players p ON p.user_id = r.user_id "
    "LEFT JOIN member_names m ON m.guild_id = r.guild_id AND m.user_id = r.user_id"
)

SOLVERS_BOARD = (
    f"{_RANKED.format(materialized='')} {_NAMED} {_JOINS} "
    "WHERE (r.place > ? AND r.place <= ?) OR r.user_id = ? ORDER BY r.place"
)
"""Places ``offset + 1`` to ``offset + limit`` of a server's solvers, and the viewer's row
wherever it is, each named as in that server (else by the account's name). Parameters:
server, since (microseconds), offset, offset + limit, viewer."""


def _ahead(comparison: str) -> str:
    """The condition that a solver's totals ``t`` come before a key in the leaderboard's order
    (``comparison`` "<": strictly; "<=": or are the key itself). Parameters: solved, solved,
    attempted, solved, attempted, solved, reached_us, reached_us, user id. Rates are compared
    by cross-multiplying, exactly (0 of 1 and 0 of 3 tie, as the window's order has them)."""
    return (
        "(t.solved > ? OR (t.solved = ? AND (t.solved * ? > ? * t.attempted "
        "OR (t.solved * ? = ? * t.attempted AND (t.reached_us < ? "
        f"OR (t.reached_us = ? AND t.user_id {comparison} ?))))))"
    )


def _from_key(comparison: str) -> str:
    """The solvers beside a key: the totals are read twice (ranked, and counted up to the
    key), so they are materialized once rather than aggregated twice."""
    return (
        f"{_RANKED.format(materialized='MATERIALIZED ')}, anchor AS "
        f"(SELECT count(*) AS ahead FROM totals t WHERE {_ahead(comparison)}) "
        f"{_NAMED}, a.ahead {_JOINS} CROSS JOIN anchor a "
        "WHERE (r.place > a.ahead - ? AND r.place <= a.ahead + ?) OR r.user_id = ? "
        "ORDER BY r.place"
    )


SOLVERS_AFTER = _from_key("<=")
"""The ``limit`` solvers right after a key (a Next button's: the last row shown), and the
viewer's row, with how many come up to the key. Parameters: server, since, the key's nine
(:func:`_key_parameters`), 0, limit, viewer."""

SOLVERS_BEFORE = _from_key("<")
"""The ``limit`` solvers right before a key (a Previous button's: the first row shown), and
the viewer's row, with how many come before the key. Parameters: server, since, the key's
nine, limit, 0, viewer."""


def key_of(row: SolverRow) -> SolverKey:
    """Where ``row`` stands in the puzzle leaderboard's order."""
    return row.solved, row.attempted, row.reached_us, row.user_id


def _key_parameters(key: SolverKey) -> tuple[int, ...]:
    solved, attempted, reached_us, user_id = key
    return (solved, solved, attempted, solved, attempted, solved, reached_us, reached_us, user_id)


async def solvers_count(db: Connection, guild_id: int, since_us: int) -> int:
    """How many players finished a puzzle in ``guild_id`` since ``since_us`` (0: ever)."""
    row = await db.fetch_one(
        "SELECT count(DISTINCT user_id) FROM puzzle_attempts "
        "WHERE guild_id = ? AND finished_us >= ?",
        (guild_id, since_us),
    )
    return int(row[0]) if row else 0


def _solver(r: Row) -> SolverRow:
    name = None if r[2] is None else str(r[2])
    username = None if r[6] is None else str(r[6])
    return SolverRow(int(r[0]), int(r[1]), name, int(r[3]), int(r[4]), int(r[5]), username)


async def solvers_board(
    db: Connection, guild_id: int, since_us: int, offset: int, limit: int, viewer_id: int
) -> tuple[int, list[SolverRow]]:
    """How many players finished a puzzle in ``guild_id`` since ``since_us`` (0: ever), and
    places ``offset + 1`` to ``offset + limit`` of them, with ``viewer_id``'s row wherever it
    is (if they finished one), best first."""
    total = await solvers_count(db, guild_id, since_us)
    rows = await db.fetch_all(
        SOLVERS_BOARD, (guild_id, since_us, offset, offset + limit, viewer_id)
    )
    return total, [_solver(r) for r in rows]


async def solvers_beside(
    db: Connection,
    guild_id: int,
    since_us: int,
    key: SolverKey,
    forward: bool,
    limit: int,
    viewer_id: int,
) -> tuple[range, list[SolverRow]]:
    """The ``limit`` solvers right after ``key`` (``forward``) or right before it, best first,
    with ``viewer_id``'s row wherever it is, and the places their page spans (from the first
    past the key, or up to the last before it; empty when nobody is there). One pass over
    the server's attempts, as a page by offset."""
    bounds = (0, limit) if forward else (limit, 0)
    rows = await db.fetch_all(
        SOLVERS_AFTER if forward else SOLVERS_BEFORE,
        (guild_id, since_us, *_key_parameters(key), *bounds, viewer_id),
    )
    if not rows:
        return range(0), []
    ahead = int(rows[0][7])
    places = (
        range(ahead + 1, ahead + limit + 1)
        if forward
        else range(max(1, ahead - limit + 1), ahead + 1)
    )
    return places, [_solver(r) for r in rows]


# ---------------------------------------------------------------- the daily puzzle


async def daily(db: Connection, guild_id: int) -> DailyRow | None:
    """The daily puzzle setting of ``guild_id``, if it is on."""
    row = await db.fetch_one(
        "SELECT guild_id, channel_id, hour, next_post_us FROM daily_puzzles WHERE guild_id = ?",
        (guild_id,),
    )
    return None if row is None else DailyRow(*row)


async def set_daily(db: Connection, row: DailyRow) -> None:
    """Switch the daily puzzle on (or move it) for ``row.guild_id``; a day claimed but not yet
    posted (Discord refused it in the old channel) goes to the new channel too, tried at once
    (the channel was just found to allow the post)."""
    await db.execute(
        "INSERT INTO daily_puzzles (guild_id, channel_id, hour, next_post_us) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "hour = excluded.hour, next_post_us = excluded.next_post_us",
        (row.guild_id, row.channel_id, row.hour, row.next_post_us),
    )
    await db.execute(
        "UPDATE daily_posts SET channel_id = ?, refusals = 0, next_try_us = NULL "
        "WHERE guild_id = ? AND message_id IS NULL",
        (row.channel_id, row.guild_id),
    )
    await db.execute("DELETE FROM daily_stops WHERE guild_id = ?", (row.guild_id,))


async def _switch_off(db: Connection, guild_id: int) -> bool:
    """Switch the daily puzzle off (a day claimed but not yet posted is not posted after);
    whether it was on."""
    changed = await db.execute("DELETE FROM daily_puzzles WHERE guild_id = ?", (guild_id,))
    await db.execute(
        "DELETE FROM daily_posts WHERE guild_id = ? AND message_id IS NULL", (guild_id,)
    )
    return changed == 1


async def clear_daily(db: Connection, guild_id: int) -> bool:
    """Switch the daily puzzle off, as an admin does (why it was switched off before, if no
    admin did, is forgotten); whether it was on."""
    await db.execute("DELETE FROM daily_stops WHERE guild_id = ?", (guild_id,))
    return await _switch_off(db, guild_id)


async def stop_daily(db: Connection, guild_id: int, reason: str, now_us: int) -> bool:
    """Switch the daily puzzle off when no admin did (``reason``: :data:`LEFT_SERVER`,
    :data:`CHANNEL_DELETED`), noting why if it was on (a puzzle already off keeps what was
    noted); whether it was."""
    if not await _switch_off(db, guild_id):
        return False
    await db.execute(
        "INSERT INTO daily_stops (guild_id, reason, stopped_us) VALUES (?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET reason = excluded.reason, "
        "stopped_us = excluded.stopped_us",
        (guild_id, reason, now_us),
    )
    return True


async def daily_stop(db: Connection, guild_id: int) -> DailyStopRow | None:
    """Why the server's daily puzzle was switched off, if no admin did it (and none switched
    it on or off since)."""
    row = await db.fetch_one(
        "SELECT guild_id, reason, stopped_us FROM daily_stops WHERE guild_id = ?", (guild_id,)
    )
    return None if row is None else DailyStopRow(int(row[0]), str(row[1]), int(row[2]))


async def dailies_due(db: Connection, now_us: int, shards: Shards = EVERY) -> list[DailyRow]:
    """The servers (of ``shards``) whose next daily post is due."""
    rows = await db.fetch_all(
        "SELECT guild_id, channel_id, hour, next_post_us FROM daily_puzzles "
        f"WHERE next_post_us <= ? AND {shards.where('guild_id')} ORDER BY next_post_us",
        (now_us,),
    )
    return [DailyRow(*row) for row in rows]


async def claim_day(
    db: Connection,
    setting: DailyRow,
    *,
    day: str,
    puzzle_id: str,
    now_us: int,
    next_post_us: int,
) -> bool:
    """Claim ``day``'s post for the server and move its timer on; False if already claimed.

    Earlier days claimed but never posted (Discord refused them) are dropped: one day's post
    replaces them, rather than a burst of old puzzles once the channel allows posts again.
    """
    await db.execute(
        "DELETE FROM daily_posts WHERE guild_id = ? AND day < ? AND message_id IS NULL",
        (setting.guild_id, day),
    )
    changed = await db.execute(
        "INSERT INTO daily_posts (guild_id, day, puzzle_id, channel_id, claimed_us) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
        (setting.guild_id, day, puzzle_id, setting.channel_id, now_us),
    )
    await move_daily_on(db, setting, next_post_us)
    return changed == 1


async def move_daily_on(db: Connection, setting: DailyRow, next_post_us: int) -> None:
    """The server's next daily post is due at ``next_post_us`` (unless another process moved
    its timer from ``setting``'s meanwhile)."""
    await db.execute(
        "UPDATE daily_puzzles SET next_post_us = ? WHERE guild_id = ? AND next_post_us = ?",
        (next_post_us, setting.guild_id, setting.next_post_us),
    )


async def unposted(
    db: Connection, shards: Shards = EVERY, due_us: int | None = None
) -> list[DailyPostRow]:
    """Claimed days (in the servers of ``shards``) whose post Discord has not confirmed yet (to
    post, also after a restart); with ``due_us``, only those not waiting to be tried again
    after then."""
    due, params = (
        ("", ())
        if due_us is None
        else (
            " AND (next_try_us IS NULL OR next_try_us <= ?)",
            (due_us,),
        )
    )
    rows = await db.fetch_all(
        f"{_POST} WHERE message_id IS NULL AND {shards.where('guild_id')}{due} ORDER BY claimed_us",
        params,
    )
    return [DailyPostRow(*row) for row in rows]


async def replace_claimed_puzzle(
    db: Connection, guild_id: int, day: str, puzzle_id: str, new_puzzle_id: str
) -> bool:
    """The claim of ``day``, not posted yet and still showing ``puzzle_id``, shows
    ``new_puzzle_id`` instead; whether it did (False: posted or changed meanwhile)."""
    changed = await db.execute(
        "UPDATE daily_posts SET puzzle_id = ? "
        "WHERE guild_id = ? AND day = ? AND puzzle_id = ? AND message_id IS NULL",
        (new_puzzle_id, guild_id, day, puzzle_id),
    )
    return changed == 1


async def drop_claim(db: Connection, guild_id: int, day: str, puzzle_id: str) -> bool:
    """The claim of ``day``, not posted yet and still showing ``puzzle_id``, is dropped;
    whether it was (False: posted or changed meanwhile)."""
    changed = await db.execute(
        "DELETE FROM daily_posts "
        "WHERE guild_id = ? AND day = ? AND puzzle_id = ? AND message_id IS NULL",
        (guild_id, day, puzzle_id),
    )
    return changed == 1


async def refused(db: Connection, guild_id: int, day: str, next_try_us: int) -> None:
    """Discord refused the post of ``day``: one refusal more, tried again at ``next_try_us``."""
    await db.execute(
        "UPDATE daily_posts SET refusals = refusals + 1, next_try_us = ? "
        "WHERE guild_id = ? AND day = ? AND message_id IS NULL",
        (next_try_us, guild_id, day),
    )


async def retry_refused(db: Connection, guild_id: int, now_us: int) -> None:
    """The refused post of ``guild_id``'s daily puzzle, paused past ``now_us``, is tried at
    ``now_us``; its count of refusals stays, so a post still refused pauses as long again."""
    await db.execute(
        "UPDATE daily_posts SET next_try_us = ? "
        "WHERE guild_id = ? AND message_id IS NULL AND next_try_us > ?",
        (now_us, guild_id, now_us),
    )


async def refused_channels(db: Connection, guild_id: int, now_us: int) -> list[int]:
    """The channels where ``guild_id``'s daily post waits, paused past ``now_us`` after a
    refusal (:func:`retry_refused` would bring it forward), each once."""
    rows = await db.fetch_all(
        "SELECT DISTINCT channel_id FROM daily_posts "
        "WHERE guild_id = ? AND message_id IS NULL AND next_try_us > ? ORDER BY channel_id",
        (guild_id, now_us),
    )
    return [int(row[0]) for row in rows]


async def posted(db: Connection, guild_id: int, day: str, message_id: int) -> None:
    """Discord has the post of ``day``: it is never posted again."""
    await db.execute(
        "UPDATE daily_posts SET message_id = ? WHERE guild_id = ? AND day = ?",
        (message_id, guild_id, day),
    )


async def found_post(
    db: Connection,
    guild_id: int,
    day: str,
    puzzle_id: str,
    channel_id: int,
    message_id: int,
    now_us: int,
) -> None:
    """Discord has the post of ``day`` showing ``puzzle_id`` (a press of its Solve button
    came from it): recorded again if its claim was dropped before its id was stored, or its
    id noted if the claim is still waiting for it; nothing if the day has another puzzle."""
    await db.execute(
        "INSERT INTO daily_posts (guild_id, day, puzzle_id, channel_id, claimed_us, message_id) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO UPDATE SET "
        "channel_id = excluded.channel_id, message_id = excluded.message_id "
        "WHERE daily_posts.message_id IS NULL AND daily_posts.puzzle_id = excluded.puzzle_id",
        (guild_id, day, puzzle_id, channel_id, now_us, message_id),
    )


async def post_of(db: Connection, guild_id: int, day: str) -> DailyPostRow | None:
    """The server's daily post of ``day``, if it had one."""
    row = await db.fetch_one(f"{_POST} WHERE guild_id = ? AND day = ?", (guild_id, day))
    return None if row is None else DailyPostRow(*row)


async def post_before(db: Connection, guild_id: int, day: str) -> DailyPostRow | None:
    """The server's newest daily post before ``day``."""
    row = await db.fetch_one(
        f"{_POST} WHERE guild_id = ? AND day < ? ORDER BY day DESC LIMIT 1", (guild_id, day)
    )
    return None if row is None else DailyPostRow(*row)


async def daily_puzzle_ids(db: Connection, guild_id: int) -> set[str]:
    """Every puzzle the server's daily post has used."""
    rows = await db.fetch_all("SELECT puzzle_id FROM daily_posts WHERE guild_id = ?", (guild_id,))
    return {str(row[0]) for row in rows}
