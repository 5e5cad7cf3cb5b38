"""SQL that reads finished sets and matches back: a player's latest games, the games and matches
between two players, and every rated set and rated match win in order (the rating pools are
replayed from them)."""

from __future__ import annotations

from bot.storage.connection import Connection
from bot.storage.sets import (
    SET_SELECT,
    SetRow,
    set_row_of,
)


async def recent_finished(db: Connection, guild_id: int, user_id: int, limit: int) -> list[SetRow]:
    """The player's latest ended games in the server, newest first."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.set_id IN ("
        "SELECT set_id FROM sets WHERE guild_id = ? AND attacker_id = ? AND status <> 'active' "
        "UNION ALL "
        "SELECT set_id FROM sets WHERE guild_id = ? AND defender_id = ? AND status <> 'active'"
        ") ORDER BY g.set_id DESC LIMIT ?",
        (guild_id, user_id, guild_id, user_id, limit),
    )
    return [set_row_of(row) for row in rows]


async def sets_between(db: Connection, guild_id: int, a: int, b: int) -> tuple[int, int, int]:
    """The finished sets ``a`` and ``b`` played against each other in the server, as a
    player's record counts them (a set lost by a player who never moved in it is left out),
    and how many of them each won: counted by the database, not read row by row."""
    row = await db.fetch_one(
        "SELECT count(*), "
        "coalesce(sum(CASE WHEN g.winner_id = ? THEN 1 ELSE 0 END), 0), "
        "coalesce(sum(CASE WHEN g.winner_id = ? THEN 1 ELSE 0 END), 0) "
        "FROM sets g WHERE g.guild_id = ? AND g.status = 'finished' AND g.rated = 1 AND "
        "((g.attacker_id = ? AND g.defender_id = ?) OR (g.attacker_id = ? AND g.defender_id = ?))",
        (a, b, guild_id, a, b, b, a),
    )
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


async def matches_between(db: Connection, guild_id: int, a: int, b: int) -> int:
    """How many matches between ``a`` and ``b`` in the server have finished."""
    row = await db.fetch_one(
        "SELECT count(*) FROM matches WHERE guild_id = ? AND status = 'finished' AND "
        "((player1_id = ? AND player2_id = ?) OR (player1_id = ? AND player2_id = ?))",
        (guild_id, a, b, b, a),
    )
    return int(row[0]) if row else 0


async def rated_sets(db: Connection) -> list[SetRow]:
    """Every finished, rated set of a rated match, in the order the sets finished."""
    rows = await db.fetch_all(
        f"{SET_SELECT} WHERE g.status = 'finished' AND g.rated = 1 AND m.rated = 1 "
        "ORDER BY g.finished_us, g.set_id",
    )
    return [set_row_of(row) for row in rows]


WON_FOR_SOMEBODY = (
    "m.rated = 1 AND m.status = 'finished' AND m.winner_id IS NOT NULL AND EXISTS "
    "(SELECT 1 FROM sets g WHERE g.match_id = m.match_id AND g.rated = 1 "
    "AND g.status = 'finished')"
)
"""A match that counts as won (the leaderboard's "matches won", the head to head's): rated,
with a winner, and with a rated set. A match of sets all lost by a player who never moved in
them (docs/rules.md §11) counts as won for nobody, as :func:`bot.storage.sets.has_rated_set`
decides when a match ends."""


async def rated_match_wins(db: Connection) -> list[tuple[int, str, int]]:
    """(server, ruleset, winner) of every match that counts as won (:data:`WON_FOR_SOMEBODY`)."""
    rows = await db.fetch_all(
        f"SELECT m.guild_id, m.ruleset, m.winner_id FROM matches m WHERE {WON_FOR_SOMEBODY} "
        "ORDER BY m.match_id",
    )
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


async def match_wins_between(db: Connection, guild_id: int, a: int, b: int) -> tuple[int, int]:
    """How many matches ``a`` and ``b`` each won against the other in the server, counted as
    the leaderboard counts them (:data:`WON_FOR_SOMEBODY`), in every ruleset."""
    rows = await db.fetch_all(
        f"SELECT m.winner_id, count(*) FROM matches m WHERE m.guild_id = ? AND "
        "((m.player1_id = ? AND m.player2_id = ?) OR (m.player1_id = ? AND m.player2_id = ?)) "
        f"AND {WON_FOR_SOMEBODY} GROUP BY m.winner_id",
        (guild_id, a, b, b, a),
    )
    won = {int(r[0]): int(r[1]) for r in rows}
    return won.get(a, 0), won.get(b, 0)
