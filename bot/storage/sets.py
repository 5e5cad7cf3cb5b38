"""SQL for matches and their sets (the games of a match, one per side): starting and ending them,
and finding the sets in progress.

:class:`SetRow` and :class:`MatchRow` are how every storage module reads them back. A set's moves
are stored by :mod:`bot.storage.moves`; finished sets and matches are read back for standings and
ratings by :mod:`bot.storage.history`; where a match is played and shown (its thread, the board
with buttons) is kept by :mod:`bot.storage.places`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.shards import EVERY as EVERY
from bot.shards import Shards
from bot.storage.connection import Connection, Dialect
from bot.storage.errors import ChannelOccupied, ConstraintViolated

ACTIVE = "active"
FINISHED = "finished"
ABORTED = "aborted"


@dataclass(frozen=True)
class MatchRow:
    """A stored match."""

    match_id: int
    guild_id: int
    channel_id: int
    player1_id: int
    player2_id: int
    player1_side: str
    ruleset: str
    sets_total: int
    time_per_move_us: int
    computer_id: int | None
    computer_level: int | None
    rated: bool
    status: str
    winner_id: int | None
    result_reason: str | None
    started_us: int
    finished_us: int | None


@dataclass(frozen=True)
class SetRow:
    """A stored game (one set), with the match fields a game needs."""

    set_id: int
    match_id: int
    set_number: int
    guild_id: int
    channel_id: int
    ruleset: str
    attacker_id: int
    defender_id: int
    status: str
    ply: int
    to_move_id: int
    winner_side: str | None
    winner_id: int | None
    reason: str | None
    started_us: int
    finished_us: int | None
    deadline_us: int
    reminder_us: int
    reminded: bool
    sets_total: int
    time_per_move_us: int
    computer_id: int | None
    computer_level: int | None
    rated: bool
    parent_channel_id: int | None
    line_message_id: int | None
    set_rated: bool = True
    """False for a set lost by a player who never moved in it (recorded, unrated)."""
    left_server: bool = False
    """The set was lost by a player who had left the server (recorded as lost on time)."""
    aborted_by: int | None = None
    """The admin who aborted the set (None: not aborted, or by the bot: its channel went)."""
    walkover: bool = False
    """The set was not played: lost without a move by a player who had left the server before
    it began (the match's next set, docs/rules.md §11)."""
    undone: int = 0
    """How many moves were taken back in this set so far (schema 30: kept on the set by the
    takeback that steps it back, so reading it costs no count): with ``ply`` it names the
    set's position as stored, which a takeback and a new move back to the same ply change too
    (:func:`stands_at`)."""


SET_COLUMNS = """
    g.set_id, g.match_id, g.set_number, g.guild_id, g.channel_id, g.ruleset, g.attacker_id,
    g.defender_id, g.status, g.ply, g.to_move_id, g.winner_side, g.winner_id, g.reason,
    g.started_us, g.finished_us, g.deadline_us, g.reminder_us, g.reminded,
    m.sets_total, m.time_per_move_us, m.computer_id, m.computer_level, m.rated,
    m.parent_channel_id, m.line_message_id, g.rated, g.left_server, g.aborted_by, g.walkover,
    g.undone
"""
"""A :class:`SetRow`'s columns in order, from ``sets g`` joined with its match ``m``."""
SET_SELECT = f"SELECT {SET_COLUMNS} FROM sets g JOIN matches m USING (match_id)"
"""Sets with their matches' fields, read as :func:`set_row_of` reads them."""


def set_row_of(row: Any) -> SetRow:
    """The set read by a query of :data:`SET_COLUMNS`."""
    values = list(row)
    values[18] = bool(values[18])
    values[23] = bool(values[23])
    values[26] = bool(values[26])
    values[27] = bool(values[27])
    values[29] = bool(values[29])
    values[30] = int(values[30])
    return SetRow(*values)


MATCH_COLUMNS = (
    "match_id, guild_id, channel_id, player1_id, player2_id, player1_side, ruleset, sets_total, "
    "time_per_move_us, computer_id, computer_level, rated, status, winner_id, result_reason, "
    "started_us, finished_us"
)
"""A :class:`MatchRow`'s columns in order, from ``matches``."""


def match_row_of(row: Any) -> MatchRow:
    """The match read by a query of :data:`MATCH_COLUMNS`."""
    values = list(row)
    values[11] = bool(values[11])
    return MatchRow(*values)


# ---------------------------------------------------------------- matches


async def insert_match(
    db: Connection,
    *,
    guild_id: int,
    channel_id: int,
    player1_id: int,
    player2_id: int,
    player1_side: str,
    ruleset: str,
    sets_total: int,
    time_per_move_us: int,
    computer_id: int | None,
    computer_level: int | None,
    rated: bool,
    now_us: int,
) -> int:
    """Store a new match in progress and return its id."""
    row = await db.fetch_one(
        "INSERT INTO matches (guild_id, channel_id, player1_id, player2_id, player1_side, "
        "ruleset, sets_total, time_per_move_us, computer_id, computer_level, rated, started_us) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING match_id",
        (
            guild_id,
            channel_id,
            player1_id,
            player2_id,
            player1_side,
            ruleset,
            sets_total,
            time_per_move_us,
            computer_id,
            computer_level,
            int(rated),
            now_us,
        ),
    )
    assert row is not None
    return int(row[0])


async def match(db: Connection, match_id: int) -> MatchRow | None:
    """The match with this id."""
    row = await db.fetch_one(f"SELECT {MATCH_COLUMNS} FROM matches WHERE match_id = ?", (match_id,))
    return match_row_of(row) if row else None


async def finish_match(
    db: Connection,
    match_id: int,
    *,
    status: str,
    winner_id: int | None,
    reason: str,
    now_us: int,
) -> None:
    """Store a match's result."""
    await db.execute(
        "UPDATE matches SET status = ?, winner_id = ?, result_reason = ?, finished_us = ? "
        "WHERE match_id = ?",
        (status, winner_id, reason, now_us, match_id),
    )


# ---------------------------------------------------------------- sets


async def insert_set(
    db: Connection,
    *,
    match_id: int,
    set_number: int,
    guild_id: int,
    channel_id: int,
    ruleset: str,
    attacker_id: int,
    defender_id: int,
    now_us: int,
    deadline_us: int,
    reminder_us: int,
) -> int:
    """Store a new game in progress (attackers to move) and return its id.

    Raises ChannelOccupied if the channel already has a game in progress (the database's
    one-game-per-channel index refuses a second).
    """
    try:
        row = await db.fetch_one(
            "INSERT INTO sets (match_id, set_number, guild_id, channel_id, ruleset, "
            "attacker_id, defender_id, to_move_id, started_us, deadline_us, reminder_us) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING set_id",
            (
                match_id,
                set_number,
                guild_id,
                channel_id,
                ruleset,
                attacker_id,
                defender_id,
                attacker_id,
                now_us,
                deadline_us,
                reminder_us,
            ),
        )
    except ConstraintViolated as error:
        raise ChannelOccupied(f"Channel {channel_id} already has a game in progress.") from error
    assert row is not None
    return int(row[0])


async def by_id(db: Connection, set_id: int) -> SetRow | None:
    """The game with this id, in whatever state."""
    row = await db.fetch_one(f"{SET_SELECT} WHERE g.set_id = ?", (set_id,))
    return set_row_of(row) if row else None


async def active_by_id(db: Connection, set_id: int) -> SetRow | None:
    """Set ``set_id`` if it is in progress, else ``None``."""
    row = await by_id(db, set_id)
    return row if row is not None and row.status == ACTIVE else None


async def active_in_channel(db: Connection, channel_id: int) -> SetRow | None:
    """The game in progress in ``channel_id``."""
    row = await db.fetch_one(
        f"{SET_SELECT} WHERE g.channel_id = ? AND g.status = 'active'", (channel_id,)
    )
    return set_row_of(row) if row else None


async def turn_began(db: Connection, set_id: int) -> int | None:
    """When the turn of set ``set_id``'s player to move began, if it is in progress: at its
    last move, or at the takeback that gave the turn back, or at the set's start — not its
    deadline less its time per move, which time given back during the turn makes later."""
    row = await db.fetch_one(
        "SELECT g.started_us, "
        "(SELECT max(m.played_us) FROM moves m WHERE m.set_id = g.set_id), "
        "(SELECT max(u.undone_us) FROM undone_moves u WHERE u.set_id = g.set_id) "
        "FROM sets g WHERE g.set_id = ? AND g.status = 'active'",
        (set_id,),
    )
    if row is None:
        return None
    return max(int(value) for value in row if value is not None)


CHANNELS_READ = 500
"""The most channels one statement asks about (SQLite's limit on a statement's variables was
999 before 3.32)."""


async def guilds_in_play(db: Connection, channel_ids: list[int]) -> dict[int, int]:
    """Of ``channel_ids``, those with a game in progress, each with its server: one statement
    per ``CHANNELS_READ`` of them (a server's locked threads are weighed at once, most of
    them without a game)."""
    found: dict[int, int] = {}
    for start in range(0, len(channel_ids), CHANNELS_READ):
        chunk = channel_ids[start : start + CHANNELS_READ]
        rows = await db.fetch_all(
            "SELECT channel_id, guild_id FROM sets "
            f"WHERE channel_id IN ({', '.join('?' * len(chunk))}) AND status = 'active'",
            chunk,
        )
        found.update((int(row[0]), int(row[1])) for row in rows)
    return found


async def stands_at(
    db: Connection, set_id: int, ply: int, undone: int, *, lock: bool = True
) -> bool:
    """Whether set ``set_id`` is in progress at ``ply`` with ``undone`` moves taken back so
    far (:attr:`SetRow.undone`): the ply alone is reached again by a takeback and a new move,
    and then a board or a button made for it is an old one. On PostgreSQL the set's row is
    then locked until the caller's transaction ends, so no move, takeback (nor end) can land
    before that commits: what the caller stores for this position is either before it, or
    sees it. ``lock=False`` reads without that lock (a read-only snapshot: an answer that
    holds as of its read)."""
    share = " FOR SHARE" if lock and db.dialect is Dialect.POSTGRESQL else ""
    # One statement: a takeback steps the row back and counts itself on it, so a racing one
    # that commits first makes PostgreSQL look at the row again, and then it does not match.
    row = await db.fetch_one(
        "SELECT 1 FROM sets WHERE set_id = ? AND ply = ? AND undone = ? "
        f"AND status = 'active'{share}",
        (set_id, ply, undone),
    )
    return row is not None


async def lowest_undone_since(db: Connection, set_id: int, undone: int) -> int | None:
    """The lowest ply a move taken back in set ``set_id`` since ``undone`` moves had been
    taken back was played from (None: none since). Lower than a ply: the position at that ply
    is another now; equal to it: that position came back, and the takeback owes its own board
    there (telling of the takeback); higher: a takeback of later moves only, leaving that
    position and its board as they were."""
    now = await db.fetch_one("SELECT undone FROM sets WHERE set_id = ?", (set_id,))
    since = 0 if now is None else int(now[0]) - undone
    if since <= 0:
        return None
    # Takebacks are answered one at a time per set, in the order of their ids.
    row = await db.fetch_one(
        "SELECT min(ply) FROM (SELECT ply FROM undone_moves WHERE set_id = ? "
        "ORDER BY takeback_id DESC LIMIT ?) AS since",
        (set_id, since),
    )
    return None if row is None or row[0] is None else int(row[0])


async def newer_in_channel(db: Connection, channel_id: int, set_id: int) -> bool:
    """Whether a set newer than ``set_id`` was started in ``channel_id`` (a new match there,
    in progress or not)."""
    row = await db.fetch_one(
        "SELECT 1 FROM sets WHERE channel_id = ? AND set_id > ? LIMIT 1", (channel_id, set_id)
    )
    return row is not None


async def computer_matches_of(db: Connection, guild_id: int, player_id: int) -> int:
    """How many matches against the computer ``player_id`` is playing in ``guild_id``."""
    row = await db.fetch_one(
        "SELECT count(*) FROM sets g JOIN matches m USING (match_id) WHERE g.guild_id = ? "
        "AND g.status = 'active' AND m.computer_id IS NOT NULL "
        "AND (g.attacker_id = ? OR g.defender_id = ?)",
        (guild_id, player_id, player_id),
    )
    return 0 if row is None else int(row[0])


async def member_matches_of(db: Connection, guild_id: int, player_id: int) -> int:
    """How many matches against members ``player_id`` is playing in ``guild_id``."""
    row = await db.fetch_one(
        "SELECT count(*) FROM matches WHERE guild_id = ? AND status = 'active' "
        "AND computer_id IS NULL AND (player1_id = ? OR player2_id = ?)",
        (guild_id, player_id, player_id),
    )
    return 0 if row is None else int(row[0])


async def latest_in_channel(db: Connection, channel_id: int) -> SetRow | None:
    """The newest game of ``channel_id``, in progress or not, or, if newer, the last game of
    the newest finished match of a thread the bot started there (while a match is played,
    its thread's games are its thread's alone)."""
    here = await db.fetch_one(
        f"{SET_SELECT} WHERE g.channel_id = ? ORDER BY g.set_id DESC LIMIT 1", (channel_id,)
    )
    threads = await db.fetch_one(
        f"{SET_SELECT} WHERE m.parent_channel_id = ? AND g.channel_id <> ? "
        "AND m.status <> 'active' ORDER BY g.set_id DESC LIMIT 1",
        (channel_id, channel_id),
    )
    rows = [set_row_of(row) for row in (here, threads) if row is not None]
    return max(rows, key=lambda row: row.set_id, default=None)


async def active(db: Connection, shards: Shards = EVERY) -> list[SetRow]:
    """Every game in progress (in the servers of ``shards``), by id."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.status = 'active' AND {shards.where('g.guild_id')} ORDER BY g.set_id"
    )
    return [set_row_of(row) for row in rows]


async def match_sets(db: Connection, match_id: int) -> list[SetRow]:
    """The games of a match, by set number."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.match_id = ? ORDER BY g.set_number", (match_id,)
    )
    return [set_row_of(row) for row in rows]


async def due_deadlines(db: Connection, now_us: int, shards: Shards = EVERY) -> list[SetRow]:
    """Games in progress (in the servers of ``shards``) whose move deadline is at or before
    ``now_us``."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.status = 'active' AND g.deadline_us <= ? "
        f"AND {shards.where('g.guild_id')} ORDER BY g.set_id",
        (now_us,),
    )
    return [set_row_of(row) for row in rows]


async def due_reminders(db: Connection, now_us: int, shards: Shards = EVERY) -> list[SetRow]:
    """Games in progress past half-time and not reminded, a human being to move (in the
    servers of ``shards``), whose time has not run out yet (a reminder then would name a
    deadline already past, just before the loss on time)."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.status = 'active' AND g.reminded = 0 AND g.reminder_us <= ? "
        "AND g.deadline_us > ? AND (m.computer_id IS NULL OR g.to_move_id <> m.computer_id) "
        f"AND {shards.where('g.guild_id')} ORDER BY g.set_id",
        (now_us, now_us),
    )
    return [set_row_of(row) for row in rows]


async def unmark_reminded(db: Connection, set_id: int, ply: int) -> None:
    """The reminder for the game's current move could not be posted: it is due again."""
    await db.execute(
        "UPDATE sets SET reminded = 0 WHERE set_id = ? AND ply = ? AND status = 'active'",
        (set_id, ply),
    )


async def mark_reminded(db: Connection, set_id: int, ply: int) -> bool:
    """Mark the game reminded for its current move; False if it moved on meanwhile."""
    changed = await db.execute(
        "UPDATE sets SET reminded = 1 WHERE set_id = ? AND ply = ? AND status = 'active'",
        (set_id, ply),
    )
    return changed == 1


async def due_last_reminders(
    db: Connection,
    now_us: int,
    *,
    from_time_us: int,
    share: int,
    at_most_us: int,
    shards: Shards = EVERY,
) -> list[SetRow]:
    """Games in progress, with ``from_time_us`` or more per move, whose player to move (a
    human, in the servers of ``shards``) has at most 1/``share`` of that time left and at most
    ``at_most_us``, not yet run out, and has not had the last reminder for this move."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.status = 'active' AND g.deadline_us > ? "
        "AND (g.last_reminded_ply IS NULL OR g.last_reminded_ply <> g.ply) "
        "AND m.time_per_move_us >= ? AND g.deadline_us - ? <= m.time_per_move_us / ? "
        "AND g.deadline_us - ? <= ? "
        "AND (m.computer_id IS NULL OR g.to_move_id <> m.computer_id) "
        f"AND {shards.where('g.guild_id')} ORDER BY g.set_id",
        (now_us, from_time_us, now_us, share, now_us, at_most_us),
    )
    return [set_row_of(row) for row in rows]


async def mark_last_reminded(db: Connection, set_id: int, ply: int) -> bool:
    """Note the last reminder for the game's current move; False if it moved on meanwhile or
    the reminder was already noted (by another process)."""
    changed = await db.execute(
        "UPDATE sets SET last_reminded_ply = ? WHERE set_id = ? AND ply = ? "
        "AND status = 'active' AND (last_reminded_ply IS NULL OR last_reminded_ply <> ?)",
        (ply, set_id, ply, ply),
    )
    return changed == 1


async def unmark_last_reminded(db: Connection, set_id: int, ply: int) -> None:
    """The last reminder for the game's move ``ply`` could not be posted: it is due again."""
    await db.execute(
        "UPDATE sets SET last_reminded_ply = NULL WHERE set_id = ? AND ply = ? "
        "AND last_reminded_ply = ?",
        (set_id, ply, ply),
    )


async def finish_set(
    db: Connection,
    set_id: int,
    *,
    expected_ply: int,
    status: str,
    winner_side: str | None,
    winner_id: int | None,
    reason: str,
    now_us: int,
) -> bool:
    """End a game in progress at ``expected_ply``; False (nothing changed) if it is not."""
    changed = await db.execute(
        "UPDATE sets SET status = ?, winner_side = ?, winner_id = ?, reason = ?, "
        "finished_us = ? WHERE set_id = ? AND ply = ? AND status = 'active'",
        (status, winner_side, winner_id, reason, now_us, set_id, expected_ply),
    )
    return changed == 1


def _in_progress_where(
    guild_id: int, player_id: int | None, hidden_channel_ids: frozenset[int]
) -> tuple[str, tuple[Any, ...]]:
    """The condition (and its parameters) of the server's games in progress that /games
    lists: ``player_id``'s if given, none in ``hidden_channel_ids`` or in threads of them."""
    where = "g.guild_id = ? AND g.status = 'active'"
    params: tuple[Any, ...] = (guild_id,)
    if player_id is not None:
        where += " AND (g.attacker_id = ? OR g.defender_id = ?)"
        params += (player_id, player_id)
    if hidden_channel_ids:
        hidden = tuple(sorted(hidden_channel_ids))
        marks = ", ".join("?" * len(hidden))
        where += (
            f" AND g.channel_id NOT IN ({marks})"
            f" AND COALESCE(m.parent_channel_id, g.channel_id) NOT IN ({marks})"
        )
        params += hidden + hidden
    return where, params


async def in_progress(
    db: Connection,
    guild_id: int,
    player_id: int | None,
    offset: int,
    limit: int,
    hidden_channel_ids: frozenset[int] = frozenset(),
) -> tuple[int, list[SetRow]]:
    """A page of the server's games in progress, in the order their matches began (a match
    going on to set 2 keeps its place: a move or a set's end never reorders the list, which
    :func:`in_progress_before` pages by), optionally one player's, and how many there are in
    all; games in ``hidden_channel_ids`` or in threads of them left out."""
    where, params = _in_progress_where(guild_id, player_id, hidden_channel_ids)
    count = await db.fetch_one(
        f"SELECT count(*) FROM sets g JOIN matches m USING (match_id) WHERE {where}", params
    )
    rows = await db.fetch_all(
        *in_progress_page(guild_id, player_id, offset, limit, hidden_channel_ids)
    )
    return (int(count[0]) if count else 0), [set_row_of(row) for row in rows]


def in_progress_page(
    guild_id: int,
    player_id: int | None,
    offset: int,
    limit: int,
    hidden_channel_ids: frozenset[int] = frozenset(),
) -> tuple[str, tuple[Any, ...]]:
    """The query of a page :func:`in_progress` reads, and its parameters: in the order of the
    ``sets_in_progress`` index (schema 41), with no sort of the server's games."""
    where, params = _in_progress_where(guild_id, player_id, hidden_channel_ids)
    return (
        f"{SET_SELECT} WHERE {where} ORDER BY g.match_id LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )


async def in_progress_before(
    db: Connection,
    guild_id: int,
    player_id: int | None,
    match_id: int,
    hidden_channel_ids: frozenset[int] = frozenset(),
) -> int:
    """How many of the games :func:`in_progress` lists come before match ``match_id``'s
    place (whether or not that match is still played)."""
    where, params = _in_progress_where(guild_id, player_id, hidden_channel_ids)
    count = await db.fetch_one(
        f"SELECT count(*) FROM sets g JOIN matches m USING (match_id) "
        f"WHERE {where} AND g.match_id < ?",
        (*params, match_id),
    )
    return int(count[0]) if count else 0


async def mark_unrated(db: Connection, set_id: int) -> None:
    """The set is recorded but unrated (its loser never moved in it)."""
    await db.execute("UPDATE sets SET rated = 0 WHERE set_id = ?", (set_id,))


async def mark_left_server(db: Connection, set_id: int) -> None:
    """The set was lost by a player who had left the server."""
    await db.execute("UPDATE sets SET left_server = 1 WHERE set_id = ?", (set_id,))


async def mark_aborted_by(db: Connection, set_id: int, admin_id: int) -> None:
    """The set was aborted by ``admin_id``."""
    await db.execute("UPDATE sets SET aborted_by = ? WHERE set_id = ?", (admin_id, set_id))


async def mark_walkover(db: Connection, set_id: int) -> None:
    """The set was not played: lost before it began by a player who had left the server."""
    await db.execute("UPDATE sets SET walkover = 1 WHERE set_id = ?", (set_id,))


async def has_rated_set(db: Connection, match_id: int) -> bool:
    """Whether any set of the match was rated (a match of no-show sets counts for nobody)."""
    row = await db.fetch_one(
        "SELECT 1 FROM sets WHERE match_id = ? AND rated = 1 AND status = 'finished'",
        (match_id,),
    )
    return row is not None
