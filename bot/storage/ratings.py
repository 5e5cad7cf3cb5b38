"""SQL for ratings per server (the standings table), their history, and the queries over them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.ratings import PROVISIONAL_DEVIATION, Rating, shown_above, shown_rating
from bot.storage.connection import Connection
from bot.storage.players import KNOWN_NAME


@dataclass(frozen=True)
class StandingRow:
    """A player's rating and record in one server."""

    user_id: int
    display_name: str | None
    """The player's name in that server (``None``: never told, read "a player")."""
    rating: float
    deviation: float
    volatility: float
    games: int
    wins: int
    losses: int
    draws: int
    matches_won: int
    username: str | None = None
    """The account's username, which tells apart two players shown alike (None: not stored)."""


_STANDING = (
    f"SELECT r.user_id, coalesce(m.display_name, {KNOWN_NAME}), r.rating, r.deviation, "
    "r.volatility, r.games, r.wins, r.losses, r.draws, r.matches_won, p.username "
    "FROM ratings r JOIN players p USING (user_id) "
    "LEFT JOIN member_names m ON m.guild_id = r.guild_id AND m.user_id = r.user_id"
)
"""A standing with the player's name in the rating's server (else their account's name)."""


def _standing(row: Any) -> StandingRow:
    return StandingRow(*row)


async def rating(db: Connection, guild_id: int, ruleset: str, user_id: int) -> Rating:
    """The player's current rating in the server's pool for ``ruleset`` (initial if none)."""
    row = await db.fetch_one(
        "SELECT rating, deviation, volatility FROM ratings "
        "WHERE guild_id = ? AND ruleset = ? AND user_id = ?",
        (guild_id, ruleset, user_id),
    )
    return Rating(*row) if row else Rating()


async def record_game(
    db: Connection,
    *,
    guild_id: int,
    ruleset: str,
    user_id: int,
    set_id: int,
    before: Rating,
    after: Rating,
    score: float,
    now_us: int,
) -> None:
    """Store a player's new rating and record after a rated game, with its history row."""
    win, loss, draw = int(score == 1.0), int(score == 0.0), int(score == 0.5)
    await db.execute(
        "INSERT INTO ratings (guild_id, ruleset, user_id, rating, deviation, volatility, games, "
        "wins, losses, draws, updated_us) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, ruleset, user_id) DO UPDATE SET rating = excluded.rating, "
        "deviation = excluded.deviation, volatility = excluded.volatility, "
        "games = ratings.games + 1, wins = ratings.wins + excluded.wins, "
        "losses = ratings.losses + excluded.losses, draws = ratings.draws + excluded.draws, "
        "updated_us = excluded.updated_us",
        (
            guild_id,
            ruleset,
            user_id,
            after.rating,
            after.deviation,
            after.volatility,
            win,
            loss,
            draw,
            now_us,
        ),
    )
    await db.execute(
        "INSERT INTO rating_history (guild_id, ruleset, user_id, set_id, rating_before, "
        "rating_after, deviation_before, deviation_after, volatility_after, changed_us) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            guild_id,
            ruleset,
            user_id,
            set_id,
            before.rating,
            after.rating,
            before.deviation,
            after.deviation,
            after.volatility,
            now_us,
        ),
    )


async def add_match_win(db: Connection, guild_id: int, ruleset: str, user_id: int) -> None:
    """Count a rated match won (the player has a ratings row from its games)."""
    await db.execute(
        "UPDATE ratings SET matches_won = matches_won + 1 "
        "WHERE guild_id = ? AND ruleset = ? AND user_id = ?",
        (guild_id, ruleset, user_id),
    )


def _provisional(deviation: str = "deviation") -> str:
    """1 for a provisional rating, else 0: the first key of the ranking (established players
    first). Migration 0021 indexes the same expression (ratings_standing)."""
    return f"CASE WHEN {deviation} > {PROVISIONAL_DEVIATION!r} THEN 1 ELSE 0 END"


_ORDER = f"{_provisional('r.deviation')}, r.rating DESC, r.user_id"
"""The leaderboard's order: established ratings first, then each by rating, the user id last
(no two rows share a place: the key a page turned by its buttons starts after)."""

LEADERBOARD_PAGE = (
    f"{_STANDING} WHERE r.guild_id = ? AND r.ruleset = ? ORDER BY {_ORDER} LIMIT ? OFFSET ?"
)
"""One page of a pool's standings (guild, ruleset, limit, offset), in the leaderboard's order."""

Key = tuple[int, float, int]
"""A row's place in the leaderboard's order: provisional (1) or not (0), rating, user id."""


def key_of(row: StandingRow) -> Key:
    """Where ``row`` stands in the leaderboard's order."""
    return int(row.deviation > PROVISIONAL_DEVIATION), row.rating, row.user_id


def _key_parameters(key: Key) -> tuple[int, int, float, float, int]:
    """The five parameters of :func:`_comes` for ``key``."""
    return key[0], key[0], key[1], key[1], key[2]


def _comes(side: str, table: str = "r.") -> str:
    """The condition that a standing comes strictly ``side`` ("before" or "after") a key given
    as :func:`_key_parameters`: in the leaderboard's order, the first of provisional (lower
    first), rating (higher first) and user id (lower first) that differs decides."""
    first, higher, later = ("<", ">", "<") if side == "before" else (">", "<", ">")
    provisional = _provisional(f"{table}deviation")
    return (
        f"({provisional} {first} ? OR ({provisional} = ? AND ({table}rating {higher} ? "
        f"OR ({table}rating = ? AND {table}user_id {later} ?))))"
    )


LEADERBOARD_AFTER = (
    f"{_STANDING} WHERE r.guild_id = ? AND r.ruleset = ? AND {_comes('after')} "
    f"ORDER BY {_ORDER} LIMIT ?"
)
"""The ``limit`` standings right after a key (guild, ruleset, the key's five parameters,
limit), best first."""

LEADERBOARD_BEFORE = (
    f"{_STANDING} WHERE r.guild_id = ? AND r.ruleset = ? AND {_comes('before')} "
    f"ORDER BY {_provisional('r.deviation')} DESC, r.rating, r.user_id DESC LIMIT ?"
)
"""The ``limit`` standings right before a key (guild, ruleset, the key's five parameters,
limit), nearest the key first."""


async def rated_count(db: Connection, guild_id: int, ruleset: str) -> int:
    """The number of rated players in the server's ``ruleset`` pool."""
    row = await db.fetch_one(
        "SELECT count(*) FROM ratings WHERE guild_id = ? AND ruleset = ?", (guild_id, ruleset)
    )
    return int(row[0]) if row else 0


async def leaderboard(
    db: Connection, guild_id: int, ruleset: str, offset: int, limit: int
) -> tuple[int, list[StandingRow]]:
    """The number of rated players in the server's ``ruleset`` pool and one page, best first:
    established ratings, then provisional ones, each by rating."""
    total = await rated_count(db, guild_id, ruleset)
    rows = await db.fetch_all(LEADERBOARD_PAGE, (guild_id, ruleset, limit, offset))
    return total, [_standing(r) for r in rows]


async def page_after(
    db: Connection, guild_id: int, ruleset: str, key: Key, limit: int
) -> list[StandingRow]:
    """The ``limit`` standings that come strictly after ``key``, best first."""
    parameters = (guild_id, ruleset, *_key_parameters(key), limit)
    rows = await db.fetch_all(LEADERBOARD_AFTER, parameters)
    return [_standing(r) for r in rows]


async def page_before(
    db: Connection, guild_id: int, ruleset: str, key: Key, limit: int
) -> list[StandingRow]:
    """The ``limit`` standings that come strictly before ``key``, best first."""
    parameters = (guild_id, ruleset, *_key_parameters(key), limit)
    rows = await db.fetch_all(LEADERBOARD_BEFORE, parameters)
    return [_standing(r) for r in reversed(rows)]


async def place(db: Connection, guild_id: int, ruleset: str, key: Key) -> int:
    """How many standings come strictly before ``key``: the offset of a page it begins."""
    row = await db.fetch_one(
        "SELECT count(*) FROM ratings WHERE guild_id = ? AND ruleset = ? "
        f"AND {_comes('before', table='')}",
        (guild_id, ruleset, *_key_parameters(key)),
    )
    return int(row[0]) if row else 0


async def standing(
    db: Connection, guild_id: int, ruleset: str, user_id: int
) -> tuple[int, StandingRow] | None:
    """The player's rank (from 1, as the leaderboard ranks them: :func:`rank`) and standing in
    a pool, or None if never rated there."""
    found = await db.fetch_one(
        f"{_STANDING} WHERE r.guild_id = ? AND r.ruleset = ? AND r.user_id = ?",
        (guild_id, ruleset, user_id),
    )
    if found is None:
        return None
    row = _standing(found)
    return await rank(db, guild_id, ruleset, row.rating, row.deviation), row


async def rank(db: Connection, guild_id: int, ruleset: str, rating: float, deviation: float) -> int:
    """The rank (from 1) of ``rating`` with ``deviation`` in a pool: one more than the players
    ranked strictly before it, so that players whose ratings are shown alike share a rank
    (1, 2, 2, 4: 1662.31 and 1662.18 both read 1662)."""
    provisional = 1 if deviation > PROVISIONAL_DEVIATION else 0
    key = _provisional()
    above = await db.fetch_one(
        f"SELECT count(*) FROM ratings WHERE guild_id = ? AND ruleset = ? AND ({key} < ? "
        f"OR ({key} = ? AND rating >= ?))",
        (guild_id, ruleset, provisional, provisional, shown_above(shown_rating(rating))),
    )
    return (int(above[0]) if above else 0) + 1


async def changes_of_set(
    db: Connection, set_id: int
) -> list[tuple[int, float, float, float, float]]:
    """The rating changes a rated set caused, in the order they were made: (user id, rating
    before, rating after, deviation before, deviation after)."""
    rows = await db.fetch_all(
        "SELECT user_id, rating_before, rating_after, deviation_before, deviation_after "
        "FROM rating_history WHERE set_id = ? ORDER BY history_id",
        (set_id,),
    )
    return [(int(r[0]), float(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in rows]


async def rebuild_pending(db: Connection) -> bool:
    """Whether the pools must be rebuilt from the rated sets (after schema 6's migration)."""
    row = await db.fetch_one("SELECT count(*) FROM rating_rebuild")
    return bool(row and row[0])


async def clear_for_rebuild(db: Connection) -> None:
    """Empty every pool and its history before they are rebuilt."""
    await db.execute("DELETE FROM ratings")
    await db.execute("DELETE FROM rating_history")


async def rebuilt(db: Connection) -> None:
    """The pools were rebuilt: nothing is pending any more."""
    await db.execute("DELETE FROM rating_rebuild")


COURSE = (
    "SELECT rating_after, deviation_after FROM rating_history "
    "WHERE guild_id = ? AND ruleset = ? AND user_id = ? ORDER BY history_id DESC LIMIT ?"
)
"""A player's last rated sets in a pool, newest first (index ``rating_history_course``,
schema 49)."""


async def course(
    db: Connection, guild_id: int, ruleset: str, user_id: int, limit: int
) -> tuple[int, list[tuple[float, float]]]:
    """How many rated sets the player has in a pool, and the rating and deviation after each
    of the last ``limit`` of them, oldest first. Migration 0049 indexes the read
    (rating_history_course)."""
    rows = await db.fetch_all(COURSE, (guild_id, ruleset, user_id, limit))
    total = await db.fetch_one(
        "SELECT games FROM ratings WHERE guild_id = ? AND ruleset = ? AND user_id = ?",
        (guild_id, ruleset, user_id),
    )
    played = max(len(rows), int(total[0]) if total else 0)
    return played, [(float(r[0]), float(r[1])) for r in reversed(rows)]
