"""SQL for challenges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.shards import Shards
from bot.storage.connection import Connection
from bot.storage.sets import EVERY


@dataclass(frozen=True)
class ChallengeRow:
    """A stored challenge."""

    challenge_id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None
    """None: open to anyone (until someone accepts it)."""
    ruleset: str
    sets_total: int
    challenger_side: str
    time_per_move_us: int
    created_us: int
    expires_us: int
    status: str
    message_id: int | None
    match_id: int | None


_SELECT = (
    "SELECT challenge_id, guild_id, channel_id, challenger_id, opponent_id, ruleset, sets_total, "
    "challenger_side, time_per_move_us, created_us, expires_us, status, message_id, match_id "
    "FROM challenges"
)


def _row(row: Any) -> ChallengeRow:
    return ChallengeRow(*row)


async def insert(
    db: Connection,
    *,
    guild_id: int,
    channel_id: int,
    challenger_id: int,
    opponent_id: int | None,
    ruleset: str,
    sets_total: int,
    challenger_side: str,
    time_per_move_us: int,
    created_us: int,
    expires_us: int,
) -> int:
    """Store an open challenge and return its id."""
    row = await db.fetch_one(
        "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, ruleset, "
        "sets_total, challenger_side, time_per_move_us, created_us, expires_us) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING challenge_id",
        (
            guild_id,
            channel_id,
            challenger_id,
            opponent_id,
            ruleset,
            sets_total,
            challenger_side,
            time_per_move_us,
            created_us,
            expires_us,
        ),
    )
    assert row is not None
    return int(row[0])


async def get(db: Connection, challenge_id: int) -> ChallengeRow | None:
    """The challenge with this id."""
    row = await db.fetch_one(f"{_SELECT} WHERE challenge_id = ?", (challenge_id,))
    return _row(row) if row else None


async def close(
    db: Connection, challenge_id: int, status: str, *, now_us: int, match_id: int | None = None
) -> bool:
    """Close an open challenge with ``status`` at ``now_us``; False if it was no longer open."""
    changed = await db.execute(
        "UPDATE challenges SET status = ?, match_id = ?, closed_us = ? "
        "WHERE challenge_id = ? AND status = 'open'",
        (status, match_id, now_us, challenge_id),
    )
    return changed == 1


async def expired_on_time(db: Connection, challenge_id: int) -> bool:
    """Whether the challenge was closed as expired at or after its expiry (not one that lapsed
    before it: its channel busy with a game, or no longer allowed)."""
    row = await db.fetch_one(
        "SELECT 1 FROM challenges WHERE challenge_id = ? AND status = 'expired' "
        "AND closed_us >= expires_us",
        (challenge_id,),
    )
    return row is not None


async def declined_since(
    db: Connection, guild_id: int, challenger_id: int, opponent_id: int, since_us: int
) -> int | None:
    """When ``opponent_id`` last declined a challenge of ``challenger_id`` in ``guild_id``, if
    that was at or after ``since_us``."""
    row = await db.fetch_one(
        "SELECT MAX(closed_us) FROM challenges WHERE guild_id = ? AND challenger_id = ? "
        "AND opponent_id = ? AND status = 'declined' AND closed_us >= ?",
        (guild_id, challenger_id, opponent_id, since_us),
    )
    return None if row is None or row[0] is None else int(row[0])


async def claim_role_ping(db: Connection, challenge_id: int, now_us: int, since_us: int) -> bool:
    """Note that the challenge's post pings the server's role at ``now_us``, unless a challenge
    of the same member in the same server pinged it at or after ``since_us``; whether it was
    noted (one statement: two claims at once cannot both see no earlier ping)."""
    claimed = await db.execute(
        "UPDATE challenges SET role_pinged_us = ? WHERE challenge_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM challenges AS earlier WHERE earlier.guild_id = challenges.guild_id "
        "AND earlier.challenger_id = challenges.challenger_id "
        "AND earlier.role_pinged_us IS NOT NULL AND earlier.role_pinged_us >= ?)",
        (now_us, challenge_id, since_us),
    )
    return claimed > 0


async def release_role_ping(db: Connection, challenge_id: int) -> None:
    """The challenge's post pinged nobody after all (it never went out)."""
    await db.execute(
        "UPDATE challenges SET role_pinged_us = NULL WHERE challenge_id = ?", (challenge_id,)
    )


def _played_since(earlier: str) -> str:
    """A subquery: a challenge between the two members of ``earlier`` (either way round),
    made after it, was accepted — a match was played since ``earlier`` pinged its opponent (a
    challenge's ping is claimed as it is posted, and ids grow)."""
    e = earlier
    return (
        f"(SELECT 1 FROM challenges AS played WHERE played.guild_id = {e}.guild_id "
        f"AND played.status = 'accepted' AND played.challenge_id > {e}.challenge_id "
        f"AND ((played.challenger_id = {e}.challenger_id "
        f"AND played.opponent_id = {e}.opponent_id) "
        f"OR (played.challenger_id = {e}.opponent_id "
        f"AND played.opponent_id = {e}.challenger_id)))"
    )


async def claim_opponent_ping(
    db: Connection, challenge_id: int, now_us: int, since_us: int
) -> bool:
    """Note that the challenge's post pings its opponent at ``now_us``, unless a challenge of
    the same member to the same opponent in the same server, not accepted, pinged them at or
    after ``since_us`` with no match between the two since (after a match, a rematch pings);
    whether it was noted (one statement, as :func:`claim_role_ping`)."""
    claimed = await db.execute(
        "UPDATE challenges SET opponent_pinged_us = ? WHERE challenge_id = ? "
        "AND opponent_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM challenges AS earlier WHERE earlier.guild_id = challenges.guild_id "
        "AND earlier.challenger_id = challenges.challenger_id "
        "AND earlier.opponent_id = challenges.opponent_id "
        "AND earlier.opponent_pinged_us IS NOT NULL AND earlier.opponent_pinged_us >= ? "
        f"AND earlier.status <> 'accepted' AND NOT EXISTS {_played_since('earlier')})",
        (now_us, challenge_id, since_us),
    )
    return claimed > 0


async def release_opponent_ping(db: Connection, challenge_id: int) -> None:
    """The challenge's post pinged nobody after all (it never went out)."""
    await db.execute(
        "UPDATE challenges SET opponent_pinged_us = NULL WHERE challenge_id = ?", (challenge_id,)
    )


async def opponent_pinged_since(
    db: Connection, guild_id: int, challenger_id: int, opponent_id: int, since_us: int
) -> int | None:
    """When a challenge of ``challenger_id`` to ``opponent_id`` in ``guild_id``, not
    accepted and with no match between the two since, last pinged them, if that was at or
    after ``since_us``."""
    row = await db.fetch_one(
        "SELECT MAX(opponent_pinged_us) FROM challenges AS earlier WHERE guild_id = ? "
        "AND challenger_id = ? AND opponent_id = ? AND opponent_pinged_us IS NOT NULL "
        "AND opponent_pinged_us >= ? AND status <> 'accepted' "
        f"AND NOT EXISTS {_played_since('earlier')}",
        (guild_id, challenger_id, opponent_id, since_us),
    )
    return None if row is None or row[0] is None else int(row[0])


async def role_pinged_since(
    db: Connection, guild_id: int, challenger_id: int, since_us: int
) -> int | None:
    """When an open challenge of ``challenger_id`` in ``guild_id`` last pinged the server's
    role, if that was at or after ``since_us``."""
    row = await db.fetch_one(
        "SELECT MAX(role_pinged_us) FROM challenges WHERE guild_id = ? AND challenger_id = ? "
        "AND role_pinged_us IS NOT NULL AND role_pinged_us >= ?",
        (guild_id, challenger_id, since_us),
    )
    return None if row is None or row[0] is None else int(row[0])


async def claim(db: Connection, challenge_id: int, user_id: int, *, now_us: int) -> bool:
    """Accept an open challenge as ``user_id`` at ``now_us`` (its close time), who becomes the
    opponent of one open to anyone; False if it was no longer open (or names someone else)."""
    changed = await db.execute(
        "UPDATE challenges SET status = 'accepted', opponent_id = ?, closed_us = ? "
        "WHERE challenge_id = ? AND status = 'open' AND (opponent_id IS NULL OR opponent_id = ?)",
        (user_id, now_us, challenge_id, user_id),
    )
    return changed == 1


async def set_match(db: Connection, challenge_id: int, match_id: int) -> None:
    """Record the match an accepted challenge started."""
    await db.execute(
        "UPDATE challenges SET match_id = ? WHERE challenge_id = ?", (match_id, challenge_id)
    )


OF_MATCH = f"{_SELECT} WHERE match_id = ?"
"""The challenge accepted as a match (index ``challenges_by_match``, schema 40)."""


async def of_match(db: Connection, match_id: int) -> ChallengeRow | None:
    """The challenge accepted as match ``match_id``, if one was (read when the match's first
    board is posted late, after a restart, through an index: the table keeps every challenge
    ever made)."""
    row = await db.fetch_one(OF_MATCH, (match_id,))
    return _row(row) if row else None


async def set_message(db: Connection, challenge_id: int, message_id: int) -> bool:
    """Remember the message showing the challenge; False if there is no such challenge."""
    changed = await db.execute(
        "UPDATE challenges SET message_id = ? WHERE challenge_id = ?", (message_id, challenge_id)
    )
    return changed == 1


async def open_count(db: Connection, challenger_id: int, now_us: int) -> int:
    """How many unexpired challenges ``challenger_id`` has open."""
    row = await db.fetch_one(
        "SELECT count(*) FROM challenges WHERE challenger_id = ? AND status = 'open' "
        "AND expires_us > ?",
        (challenger_id, now_us),
    )
    return 0 if row is None else int(row[0])


async def open_of(db: Connection, challenger_id: int, now_us: int) -> list[ChallengeRow]:
    """``challenger_id``'s unexpired open challenges (in every server), oldest first."""
    rows = await db.fetch_all(
        f"{_SELECT} WHERE challenger_id = ? AND status = 'open' AND expires_us > ? "
        "ORDER BY challenge_id",
        (challenger_id, now_us),
    )
    return [_row(row) for row in rows]


async def open_between(
    db: Connection, guild_id: int, one: int, other: int, now_us: int
) -> ChallengeRow | None:
    """The oldest unexpired open challenge between ``one`` and ``other`` (either way round) in
    the server."""
    row = await db.fetch_one(
        f"{_SELECT} WHERE guild_id = ? AND status = 'open' AND expires_us > ? AND ("
        "(challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?)) "
        "ORDER BY challenge_id LIMIT 1",
        (guild_id, now_us, one, other, other, one),
    )
    return None if row is None else _row(row)


async def open_to_anyone(
    db: Connection, guild_id: int, challenger_id: int, now_us: int
) -> ChallengeRow | None:
    """``challenger_id``'s unexpired open challenge to anyone in the server, if any."""
    row = await db.fetch_one(
        f"{_SELECT} WHERE guild_id = ? AND challenger_id = ? AND opponent_id IS NULL "
        "AND status = 'open' AND expires_us > ? ORDER BY challenge_id LIMIT 1",
        (guild_id, challenger_id, now_us),
    )
    return None if row is None else _row(row)


def _waiting_where(
    guild_id: int,
    now_us: int,
    challenger_id: int | None,
    hidden_channel_ids: frozenset[int],
) -> tuple[str, tuple[int, ...]]:
    """The condition (and its parameters) of the server's challenges open to anyone that can
    be accepted now: unexpired, posted (their message known), only ``challenger_id``'s if
    given, none in ``hidden_channel_ids``."""
    where = (
        "guild_id = ? AND opponent_id IS NULL AND status = 'open' AND expires_us > ? "
        "AND message_id IS NOT NULL"
    )
    params: tuple[int, ...] = (guild_id, now_us)
    if challenger_id is not None:
        where += " AND challenger_id = ?"
        params += (challenger_id,)
    if hidden_channel_ids:
        hidden = tuple(sorted(hidden_channel_ids))
        where += f" AND channel_id NOT IN ({', '.join('?' * len(hidden))})"
        params += hidden
    return where, params


async def waiting_for_anyone(
    db: Connection,
    guild_id: int,
    now_us: int,
    limit: int,
    challenger_id: int | None = None,
    hidden_channel_ids: frozenset[int] = frozenset(),
    *,
    offset: int = 0,
    after: int | None = None,
    before: int | None = None,
) -> tuple[int, int, list[ChallengeRow]]:
    """How many of the server's unexpired challenges open to anyone were posted (their
    message is known), and ``limit`` of them, oldest first, with the offset of the first:
    from ``offset``, or the page after challenge ``after`` or before ``before`` (the last and
    first of the page shown, which keep their places however many lapsed since); the last
    page when the list shrank below it. Only ``challenger_id``'s if given, none in
    ``hidden_channel_ids``."""
    where, params = _waiting_where(guild_id, now_us, challenger_id, hidden_channel_ids)
    count = await db.fetch_one(f"SELECT count(*) FROM challenges WHERE {where}", params)
    total = int(count[0]) if count else 0
    anchor = (after + 1) if after is not None else before
    if anchor is not None:
        earlier = await db.fetch_one(
            f"SELECT count(*) FROM challenges WHERE {where} AND challenge_id < ?",
            (*params, anchor),
        )
        offset = (int(earlier[0]) if earlier else 0) - (limit if after is None else 0)
    offset = max(0, offset)
    if total and offset >= total:
        offset = (total - 1) // limit * limit
    rows = await db.fetch_all(
        f"{_SELECT} WHERE {where} ORDER BY challenge_id LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    return total, offset, [_row(row) for row in rows]


async def open_in_channel(db: Connection, channel_id: int) -> list[ChallengeRow]:
    """The open challenges posted in ``channel_id``, oldest first."""
    rows = await db.fetch_all(
        f"{_SELECT} WHERE status = 'open' AND channel_id = ? ORDER BY challenge_id", (channel_id,)
    )
    return [_row(row) for row in rows]


async def open_in_guild(db: Connection, guild_id: int) -> list[ChallengeRow]:
    """The open challenges posted in server ``guild_id``, oldest first."""
    rows = await db.fetch_all(
        f"{_SELECT} WHERE status = 'open' AND guild_id = ? ORDER BY challenge_id", (guild_id,)
    )
    return [_row(row) for row in rows]


async def open_challenges(db: Connection, shards: Shards = EVERY) -> list[ChallengeRow]:
    """Every open challenge (in the servers of ``shards``), soonest expiry first."""
    rows = await db.fetch_all(
        f"{_SELECT} WHERE status = 'open' AND {shards.where('guild_id')} "
        "ORDER BY expires_us, challenge_id"
    )
    return [_row(row) for row in rows]


async def due(db: Connection, now_us: int, shards: Shards = EVERY) -> list[ChallengeRow]:
    """Open challenges (in the servers of ``shards``) whose expiry is at or before ``now_us``."""
    rows = await db.fetch_all(
        f"{_SELECT} WHERE status = 'open' AND expires_us <= ? AND {shards.where('guild_id')} "
        "ORDER BY expires_us, challenge_id",
        (now_us,),
    )
    return [_row(row) for row in rows]
