"""SQL for players: Discord user ids, each account's own name, and members' names per server.

A member's display name belongs to one server (a nickname set there is meant for it alone), so
names are stored per (server, user) in ``member_names``. ``players.display_name`` is the
account's own name (Discord's global display name, else the username), the same in every
server: the name read where the server's is not known (the computer, a member not seen there
yet) and outside any server.
"""

from __future__ import annotations

from datetime import datetime

from bot.storage.connection import Connection
from bot.storage.times import to_us

KNOWN_NAME = "nullif(p.display_name, cast(p.user_id AS TEXT))"
"""The account's name of ``players p``, NULL while it is still the id :func:`ensure` named the
player by (the bot was never told the name): read "a player" in the reader's language, never
digits."""


async def upsert(
    db: Connection, user_id: int, display_name: str, now: datetime, username: str | None = None
) -> None:
    """Insert the player or update their account's own name and, given, their username
    (Discord's unique name; without, the one stored stays)."""
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us, username) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
        "seen_us = excluded.seen_us, username = coalesce(excluded.username, players.username)",
        (user_id, display_name, to_us(now), username),
    )


async def upsert_member(
    db: Connection, guild_id: int, user_id: int, display_name: str, now: datetime
) -> None:
    """Insert or update the display name of ``user_id`` in the server ``guild_id`` (the
    player's row must exist: :func:`upsert` or :func:`ensure` first)."""
    await db.execute(
        "INSERT INTO member_names (guild_id, user_id, display_name, seen_us) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
        "display_name = excluded.display_name, seen_us = excluded.seen_us",
        (guild_id, user_id, display_name, to_us(now)),
    )


async def ensure(
    db: Connection, user_id: int, now: datetime, account_name: str | None = None
) -> None:
    """Make sure a row exists for ``user_id``: given ``account_name`` (the account's own name,
    as :func:`upsert` takes it), stored with it; without, a new row is named by its id until
    the bot tells its name, which :data:`KNOWN_NAME` reads as unknown."""
    if account_name is not None:
        await upsert(db, user_id, account_name, now)
        return
    await db.execute(
        "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        (user_id, str(user_id), to_us(now)),
    )


async def name(db: Connection, *, guild_id: int | None, user_id: int) -> str | None:
    """The name of ``user_id`` as shown in the server ``guild_id`` (``None``: outside any
    server), or ``None`` if the player was never seen."""
    return (await names(db, guild_id, [user_id])).get(user_id)


async def names(db: Connection, guild_id: int | None, user_ids: list[int]) -> dict[int, str]:
    """The names of the given users that are known, as shown in the server ``guild_id``: each
    member's name there, else the account's own name (``guild_id`` None: the account's). One
    never told (named by its id, :data:`KNOWN_NAME`) is left out, as one never seen."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    if guild_id is None:
        rows = await db.fetch_all(
            f"SELECT p.user_id, {KNOWN_NAME} FROM players p WHERE p.user_id IN ({marks})",
            user_ids,
        )
    else:
        rows = await db.fetch_all(
            f"SELECT p.user_id, coalesce(m.display_name, {KNOWN_NAME}) FROM players p "
            "LEFT JOIN member_names m ON m.guild_id = ? AND m.user_id = p.user_id "
            f"WHERE p.user_id IN ({marks})",
            [guild_id, *user_ids],
        )
    return {int(row[0]): str(row[1]) for row in rows if row[1] is not None}


async def usernames(db: Connection, user_ids: list[int]) -> dict[int, str]:
    """The stored usernames of the given users (one stored before usernames were, or never
    seen, is left out)."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    rows = await db.fetch_all(
        f"SELECT user_id, username FROM players WHERE user_id IN ({marks}) "
        "AND username IS NOT NULL",
        user_ids,
    )
    return {int(row[0]): str(row[1]) for row in rows}
