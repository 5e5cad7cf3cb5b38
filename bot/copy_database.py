"""``python -m bot.copy_database SOURCE TARGET``: move a server's whole history to PostgreSQL.

SOURCE is the bot's SQLite file, TARGET an empty PostgreSQL database's URL
(``postgresql://user:password@host/brandubh``). Stop the bot first. Both are brought to this
version's schema, every table is copied in one transaction (players and their names in each
server, matches, sets and moves, ratings and their history, settings, open challenges,
takebacks, timers, the outbox), and the row counts are compared table by table. Then point
``BRANDUBH_DB`` at TARGET and start the bot.
Exit codes: 0 copied, 2 refused (one line on stderr says why; nothing was copied): a SOURCE
that does not exist, or either database of a newer schema than this bot (neither is then
changed, the other not migrated either).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.storage import Database, is_postgresql
from bot.storage.copying import TableCount, copy_database
from bot.storage.errors import StorageError
from bot.storage.postgresql import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase

EXIT_REFUSED = 2


async def copy(source: str, target: str) -> list[TableCount]:
    """Open both databases, copy, close; the row counts. Raises StorageError when refused."""
    if is_postgresql(source) or not is_postgresql(target):
        raise StorageError(
            "Copy from an SQLite file (SOURCE) into a postgresql:// database (TARGET)."
        )
    if not await asyncio.to_thread(Path(source).is_file):
        raise StorageError(
            f"The source {source} does not exist: name the bot's SQLite file (its BRANDUBH_DB)."
        )
    # Neither database is brought to this schema before both are known not to be newer than
    # this bot (an operator who rolled it back): a refusal leaves both as they were.
    # The source is only read (its bytes, time and folder unchanged) until then.
    await SqliteDatabase.check(Path(source))
    checked = await Database.open(target, target_version=0)
    await checked.close()
    lite = await Database.open(source)
    try:
        pg = await Database.open(target)
        try:
            assert isinstance(lite, SqliteDatabase)
            assert isinstance(pg, PostgresDatabase)
            return await copy_database(lite, pg)
        finally:
            await pg.close()
    finally:
        await lite.close()


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, copy, print the counts; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.copy_database",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.",
    )
    parser.add_argument("source", help="the SQLite file (the bot's BRANDUBH_DB until now)")
    parser.add_argument("target", help="an empty PostgreSQL database: postgresql://…")
    arguments = parser.parse_args(argv)
    try:
        counts = asyncio.run(copy(arguments.source, arguments.target))
    except StorageError as error:
        print(f"copy_database: {error}", file=sys.stderr)
        return EXIT_REFUSED
    width = max(len(count.table) for count in counts)
    for count in counts:
        print(f"{count.table:<{width}}  {count.target:>9,} rows (source {count.source:,})")
    print(f"Copied and verified {len(counts)} tables. Set BRANDUBH_DB to the target and start.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
