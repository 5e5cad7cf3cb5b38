"""Copying a whole SQLite database into an empty PostgreSQL database (moving up to shards).

Every table of the SQLite file is copied, parents before children (by its foreign keys), in one
PostgreSQL transaction: the copy lands whole or not at all. Moves are copied as rows (PostgreSQL
has no moves triggers: the sets already hold the positions the moves led to, and the outbox its
own rows), the identity counters are moved past the copied ids, and every table's row count is
compared at the end. The copy is then vacuumed and analysed, so it is as quick to read as a
database that has run for a while.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.errors import StorageError
from bot.storage.postgresql import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase

BATCH = 5000
"""Rows sent to PostgreSQL per statement batch."""


class CopyRefused(StorageError):
    """The copy cannot be made (the target is not empty, or its schema differs)."""


@dataclass(frozen=True)
class TableCount:
    """How many rows a table held in the source and holds in the target after the copy."""

    table: str
    source: int
    target: int


async def _sqlite_tables(source: SqliteDatabase) -> list[str]:
    """The source's tables, each after the tables its foreign keys point at."""
    async with source.snapshot() as db:
        names = [
            str(row[0])
            for row in await db.fetch_all(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        parents = {
            name: {str(row[2]) for row in await db.fetch_all(f"PRAGMA foreign_key_list({name})")}
            for name in names
        }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [
            name for name in names if name not in ordered and parents[name] - {name} <= set(ordered)
        ]
        if not ready:
            raise CopyRefused("The source's foreign keys form a cycle: it cannot be copied.")
        ordered.extend(ready)
    return ordered


async def _columns(source: SqliteDatabase, table: str) -> list[str]:
    async with source.snapshot() as db:
        return [str(row[1]) for row in await db.fetch_all(f"PRAGMA table_info({table})")]


async def copy_database(source: SqliteDatabase, target: PostgresDatabase) -> list[TableCount]:
    """Copy every row of ``source`` into the empty ``target``; the counts, table by table.

    Both must be at the same schema version (open both with this bot first). Raises
    CopyRefused when the target already holds games or players, or lacks a table.
    """
    source_version = await source.stored_version()
    target_version = await target.stored_version()
    if source_version != target_version:
        raise CopyRefused(
            f"The source is at schema version {source_version} but the target at "
            f"{target_version}: this bot's PostgreSQL migrations must match its SQLite ones."
        )
    tables = await _sqlite_tables(source)
    layout = {
        table: (await _columns(source, table), await _has_rowid(source, table)) for table in tables
    }
    counts: list[TableCount] = []
    # One snapshot of the source (the bot should be stopped, but a copy is consistent anyway)
    # and one transaction on the target: the copy lands whole or not at all.
    async with source.snapshot() as lite, target.transaction() as pg:
        present = {
            str(row[0])
            for row in await pg.fetch_all(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        }
        missing = [table for table in tables if table not in present]
        if missing:
            raise CopyRefused(f"The target has no table {missing[0]}: it is not this bot's schema.")
        for table in ("players", "matches", "sets", "moves", "challenges", "ratings"):
            row = await pg.fetch_one(f"SELECT count(*) FROM {table}")
            if row is not None and int(row[0]) > 0:
                raise CopyRefused(
                    f"The target already holds {row[0]} rows in {table}: copy only into an "
                    "empty database."
                )
        # Rows the target's migrations made themselves (rating_rebuild's request) are replaced.
        for table in reversed(tables):
            await pg.execute(f"DELETE FROM {table}")
        for table in tables:
            columns, rowid = layout[table]
            names = ", ".join(columns)
            marks = ", ".join("?" * len(columns))
            insert = f"INSERT INTO {table} ({names}) VALUES ({marks})"
            order = "rowid" if rowid else "1"
            offset = 0
            while True:
                rows = await lite.fetch_all(
                    f"SELECT {names} FROM {table} ORDER BY {order} LIMIT ? OFFSET ?",
                    (BATCH, offset),
                )
                if not rows:
                    break
                await pg.execute_many(insert, rows)
                offset += len(rows)
        for table, column in await pg.fetch_all(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND is_identity = 'YES'"
        ):
            await pg.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                f"coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)"
            )
        for table in tables:
            had = await lite.fetch_one(f"SELECT count(*) FROM {table}")
            has = await pg.fetch_one(f"SELECT count(*) FROM {table}")
            counts.append(TableCount(table, int(had[0]) if had else 0, int(has[0]) if has else 0))
        wrong = [count for count in counts if count.source != count.target]
        if wrong:
            raise CopyRefused(
                f"Table {wrong[0].table} has {wrong[0].target} rows in the target but "
                f"{wrong[0].source} in the source: nothing was copied."
            )
    # What autovacuum would do a while later, done now: the planner gets the copied tables'
    # statistics, and index-only scans (counting a leaderboard's players) need no visit to
    # the rows from the first query on. VACUUM runs outside a transaction.
    async with target.single_statement() as pg:
        await pg.execute("VACUUM (ANALYZE)")
    return counts


async def _has_rowid(source: SqliteDatabase, table: str) -> bool:
    async with source.snapshot() as db:
        row = await db.fetch_one(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        )
    return row is not None and "WITHOUT ROWID" not in str(row[0]).upper()
