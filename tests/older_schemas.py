"""Stepping a database back to an older schema, as an older release left it.

The statements undoing each migration from 31 on (what it added is dropped; what it dropped
comes back), for both dialects: a database made by this bot and stepped back to schema N holds
the tables and columns a bot of schema N had, and opening it again replays the migrations
after N, as an operator's upgrade does.
"""

from __future__ import annotations

from bot.storage import Database, Dialect, migrations

OLDEST = 30
"""The oldest schema :func:`undo_after` can step back to."""


SCHEMA_49_UNDONE = ("DROP INDEX rating_history_course",)
"""The statement undoing schema 49 (the index of a player's rating course), on both."""

SCHEMA_47_UNDONE = ("ALTER TABLE players DROP COLUMN username",)
"""The statement undoing schema 47 (each account's username), on both."""

SCHEMA_45_UNDONE = ("DROP INDEX challenges_closed",)
"""The statement undoing schema 45 (the index of challenges closed unaccepted), on both."""


def schema_43_undone(dialect: Dialect) -> tuple[str, ...]:
    """The statements undoing schema 43 (announcements.owed_anew): on SQLite its moves trigger,
    which counts it, goes first (a column a trigger names cannot be dropped) and comes back as
    schema 10 made it, which its replay drops again."""
    dropped = "ALTER TABLE announcements DROP COLUMN owed_anew"
    if dialect is Dialect.POSTGRESQL:
        return (dropped,)
    return (
        "DROP TRIGGER moves_announce",
        dropped,
        "CREATE TRIGGER moves_announce AFTER INSERT ON moves BEGIN "
        "INSERT OR REPLACE INTO announcements (set_id, ply, channel_id, created_us, next_try_us) "
        "SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000 "
        "FROM sets WHERE set_id = NEW.set_id; END",
    )


def schema_44_undone(dialect: Dialect) -> tuple[str, ...]:
    """The statements undoing schema 44 (announcements.taken_back and undone): on SQLite its
    moves trigger, which notes the count, goes first and comes back as schema 43 made it."""
    dropped = (
        "ALTER TABLE announcements DROP COLUMN taken_back",
        "ALTER TABLE announcements DROP COLUMN undone",
    )
    if dialect is Dialect.POSTGRESQL:
        return dropped
    return (
        "DROP TRIGGER moves_announce",
        *dropped,
        "CREATE TRIGGER moves_announce AFTER INSERT ON moves BEGIN "
        "INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us) "
        "SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000 "
        "FROM sets WHERE set_id = NEW.set_id ON CONFLICT (set_id, ply) DO UPDATE SET "
        "channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0, "
        "next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL, "
        "late_cause = NULL, owed_anew = announcements.owed_anew + 1; END",
    )


def _undo(version: int, dialect: Dialect) -> tuple[str, ...]:
    """The statements undoing migration ``version``."""
    if version == 44:
        return schema_44_undone(dialect)
    if version == 43:
        return schema_43_undone(dialect)
    return {
        49: SCHEMA_49_UNDONE,
        48: (),  # close times given to challenges accepted without one: data, kept
        47: SCHEMA_47_UNDONE,
        46: (),  # close times given to challenges closed without one: data, kept
        45: SCHEMA_45_UNDONE,
        42: ("DROP INDEX IF EXISTS puzzle_attempts_by_solver",),  # SQLite only
        41: (
            "DROP INDEX sets_in_progress",
            "CREATE INDEX sets_in_progress ON sets (guild_id, set_id) WHERE status = 'active'",
        ),
        40: ("DROP INDEX challenges_by_match",),
        39: ("ALTER TABLE player_holds_given DROP COLUMN line_owed",),
        38: ("ALTER TABLE player_holds DROP COLUMN line_owed",),
        37: ("DROP TABLE match_lines_owed",),
        36: ("DROP TABLE player_holds",),
        35: (
            "CREATE INDEX rating_history_by_player ON rating_history "
            "(guild_id, user_id, history_id)",
        ),
        34: ("DROP TABLE player_holds_given",),
        33: (
            "ALTER TABLE announcements DROP COLUMN late_cause",
            "DROP TABLE takeback_answers_owed",
        ),
        32: ("DROP TABLE daily_stops",),
        31: ("DROP INDEX sets_in_progress",),
    }[version]


def undo_after(version: int, latest: int, dialect: Dialect) -> list[str]:
    """The statements undoing, newest first, the migrations shipped after ``version`` up to
    ``latest``."""
    if version < OLDEST:
        raise ValueError(f"schemas before {OLDEST} are not stepped back to here")
    shipped = sorted((number for number, _, _ in migrations(dialect)), reverse=True)
    return [
        statement
        for number in shipped
        if version < number <= latest
        for statement in _undo(number, dialect)
    ]


async def back_to_schema(database: Database, version: int, *undo: str) -> None:
    """Undo by hand, in one transaction, what the migrations after ``version`` did (the
    statements ``undo``) and store ``version`` as the database's schema, so that opening it
    again replays those migrations."""
    async with database.transaction() as db:
        for statement in undo:
            await db.execute(statement)
        if database.dialect is Dialect.SQLITE:
            await db.execute(f"PRAGMA user_version = {version}")
        else:
            await db.execute(f"UPDATE schema_version SET version = {version}")


async def step_back(target: str, version: int) -> None:
    """Step the database at ``target`` (a file or a postgresql:// URL), at this bot's schema,
    back to schema ``version``, in one transaction."""
    database = await Database.open(target)
    try:
        latest = await database.stored_version()
        await back_to_schema(database, version, *undo_after(version, latest, database.dialect))
    finally:
        await database.close()
