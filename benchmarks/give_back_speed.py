"""How long a give-back takes over many running clocks, on SQLite and a throwaway PostgreSQL.

Run from the repository root::

    .venv/bin/python -m benchmarks.give_back_speed --sets 10000 --servers 2500

On each backend (``--backend``: a temporary SQLite file, and the tests' throwaway PostgreSQL
server, tests/postgres_server.py, a Unix socket, no TCP) it starts one set through the services,
and copies it (its match too) into ``--sets`` sets spread over ``--servers`` servers. Then it
times: the gateway's return (one shard per process) given back to every clock, ``--rounds``
times a minute apart (each adds a ``given_back`` row per clock, as routine reconnects do); one
thread's give-back with those rows in the table, and again with ``--stale`` more rows of clocks
no longer running (the median of ``--runs``); the forgetting of those stale rows (the hourly
sweep, in batches); every server back in one burst (:meth:`ClockService.give_back_servers`, one
transaction); ``--intervals`` intervals forgotten and as many noted on their own
(:func:`bot.storage.clocks.replace_given`, the median of ``--runs``: one DELETE and one INSERT
over ``unnest`` arrays on PostgreSQL, a statement per row on SQLite); and, on PostgreSQL, for
comparison, those writes a statement per row (as before the arrays), and the single UPDATE that
gave a gateway outage back before schema 29.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta

from benchmarks.backends import BACKENDS, on_each_backend
from bot.services import Services
from bot.storage.clocks import Given, replace_given, replace_given_row_by_row
from bot.storage.connection import Connection, Dialect
from bot.storage.postgresql import PostgresConnection
from tests.conftest import ALICE, BOB, CHANNEL, GUILD, FakeClock

_OLD_STARTED = (
    "(deadline_us - (SELECT m.time_per_move_us FROM matches m WHERE m.match_id = sets.match_id))"
)
_OLD_GIVEN = f"CASE WHEN $1 <= $2 - {_OLD_STARTED} THEN $1 ELSE $2 - {_OLD_STARTED} END"
_OLD_UPDATE = (
    f"UPDATE sets SET deadline_us = deadline_us + {_OLD_GIVEN}, "
    f"reminder_us = reminder_us + {_OLD_GIVEN} WHERE status = 'active' AND deadline_us > $3 "
    "RETURNING set_id, channel_id, deadline_us"
)
"""Schema 28's give-back of a gateway outage (bot/storage/clocks.py before schema 29)."""


def _ms(start: float) -> str:
    return f"{(time.perf_counter() - start) * 1000:.0f} ms"


async def _columns(db: Connection, table: str) -> list[str]:
    """The names of ``table``'s columns, in order."""
    if db.dialect is Dialect.POSTGRESQL:
        rows = await db.fetch_all(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position",
            (table,),
        )
    else:
        rows = await db.fetch_all(f"SELECT name FROM pragma_table_info('{table}') ORDER BY cid")
    return [str(row[0]) for row in rows]


async def copy_sets(services: Services, sets: int, servers: int) -> None:
    """``sets`` sets in progress over ``servers`` servers: the one started, and copies."""
    changed = {
        "matches": {"match_id": "g.match_id + n", "guild_id": f"g.guild_id + n % {servers}"},
        "sets": {
            "set_id": "g.set_id + n",
            "channel_id": "g.channel_id + n",
            "match_id": "g.match_id + n",
            "guild_id": f"g.guild_id + n % {servers}",
        },
    }
    async with services.database.transaction() as db:
        if db.dialect is Dialect.POSTGRESQL:
            series = f"generate_series(1, {sets - 1}) n"
        else:
            await db.execute(
                "CREATE TEMP TABLE series AS WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL "
                f"SELECT n + 1 FROM s WHERE n < {sets - 1}) SELECT n FROM s"
            )
            series = "series"
        for table, values in changed.items():
            columns = await _columns(db, table)
            chosen = ", ".join(values.get(column, f"g.{column}") for column in columns)
            names = ", ".join(columns)
            await db.execute(
                f"INSERT INTO {table} ({names}) SELECT {chosen} FROM {table} g, {series}"
            )
        await db.execute("ANALYZE")


async def _stale(services: Services, rows: int, sets: int) -> None:
    """``rows`` intervals given to clocks no longer running (an earlier ply of the sets)."""
    async with services.database.transaction() as db:
        await db.execute_many(
            "INSERT INTO given_back (kind, target_id, ply, start_us, end_us) "
            "VALUES ('set', ?, 0, ?, ?) ON CONFLICT DO NOTHING",
            [(1 + k % sets, k, k + 1) for k in range(rows)],
        )


async def _count(services: Services) -> int:
    async with services.database.snapshot() as db:
        row = await db.fetch_one("SELECT count(*) FROM given_back")
    return 0 if row is None else int(str(row[0]))


_WRITTEN_PLY = 1_000
"""The ply of the intervals :func:`_writes` forgets and notes (no set's clock runs for it)."""


Write = Callable[[Connection, list[Given], list[Given]], Awaitable[None]]
"""A way to forget intervals and note others in a transaction (:func:`replace_given`)."""


async def _writes(
    services: Services, intervals: int, runs: int, writes: dict[str, Write]
) -> dict[str, str]:
    """The median time of each of ``writes`` (by its name) forgetting ``intervals`` intervals
    and noting as many: each interval merged into a longer one from its own start (a key
    forgotten and noted again), as a give-back over that many clocks does. Each run starts from
    the forgotten rows stored; the ways take turns, run by run, so that other work on the
    machine slows each alike."""
    forgotten = [Given(("set", k, _WRITTEN_PLY), k, k + 1) for k in range(1, intervals + 1)]
    added = [Given(g.key, g.start_us, g.end_us + 1) for g in forgotten]
    times: dict[str, list[float]] = {name: [] for name in writes}
    for _ in range(runs):
        for name, write in writes.items():
            async with services.database.transaction() as db:
                await db.execute("DELETE FROM given_back WHERE ply = ?", (_WRITTEN_PLY,))
                await replace_given(db, [], forgotten)
            async with services.database.transaction() as db:
                start = time.perf_counter()
                await write(db, forgotten, added)
                times[name].append((time.perf_counter() - start) * 1000)
    async with services.database.transaction() as db:
        await db.execute("DELETE FROM given_back WHERE ply = ?", (_WRITTEN_PLY,))
    return {
        name: f"median {statistics.median(each):.0f} ms "
        f"(of {runs}: {min(each):.0f}–{max(each):.0f})"
        for name, each in times.items()
    }


async def _median(
    runs: int, before: Callable[[], Awaitable[None]], work: Callable[[], Awaitable[object]]
) -> str:
    """The median time of ``runs`` runs of ``work``, each after ``before`` (not timed)."""
    times = []
    for _ in range(runs):
        await before()
        start = time.perf_counter()
        await work()
        times.append((time.perf_counter() - start) * 1000)
    return (
        f"median {statistics.median(times):.0f} ms (of {runs}: {min(times):.0f}–{max(times):.0f})"
    )


async def _run(database: str, args: argparse.Namespace) -> None:
    clock = FakeClock()
    services = await Services.open(database, clock=clock)
    try:
        challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
        await services.challenges.accept(challenge.challenge_id, BOB)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await copy_sets(services, args.sets, args.servers)
        for round_ in range(1, args.rounds + 1):
            clock.advance(timedelta(minutes=1))
            since = clock.now
            clock.advance(timedelta(seconds=10))
            start = time.perf_counter()
            resumed = await services.clocks.give_back_outage(since)
            took = _ms(start)
            print(
                f"  gateway give-back {round_}: {len(resumed.clocks)} clocks in {took}, "
                f"{await _count(services)} given_back rows"
            )

        async def nothing() -> None:
            pass

        async def thread() -> None:
            clock.advance(timedelta(minutes=1))
            since = clock.now
            clock.advance(timedelta(seconds=10))
            await services.clocks.give_back_closed(since, channel_id=CHANNEL)

        async def stale() -> None:
            await _stale(services, args.stale, args.sets)

        rows = await _count(services)
        print(f"  one thread's give-back, {rows} rows: {await _median(args.runs, nothing, thread)}")
        await stale()
        rows = await _count(services)
        print(
            f"  one thread's give-back, {rows} rows ({args.stale} stale): "
            f"{await _median(args.runs, stale, thread)}"
        )
        await stale()
        start = time.perf_counter()
        await services.clocks.forget_given_back()
        took = _ms(start)
        print(f"  forgetting {args.stale} stale rows: {took}, {await _count(services)} rows left")
        clock.advance(timedelta(minutes=1))
        since = clock.now
        clock.advance(timedelta(seconds=10))
        outages = [(GUILD + k, since, clock.now) for k in range(args.servers)]
        start = time.perf_counter()
        burst = await services.clocks.give_back_servers(outages)
        moved = sum(len(resumed.clocks) for resumed in burst)
        print(f"  {args.servers} servers back in one burst: {moved} clocks in {_ms(start)}")
        ways: dict[str, Write] = {
            f"{args.intervals} intervals forgotten and {args.intervals} noted": replace_given
        }
        if services.database.dialect is Dialect.POSTGRESQL:
            ways["the same, a statement per row"] = replace_given_row_by_row
        for way, median in (await _writes(services, args.intervals, args.runs, ways)).items():
            print(f"  {way}: {median}")
        if services.database.dialect is Dialect.POSTGRESQL:
            async with services.database.transaction() as db:
                assert isinstance(db, PostgresConnection)  # asyncpg's own placeholders
                start = time.perf_counter()
                found = await db.raw.fetch(_OLD_UPDATE, 10_000_000, 2**62, 0)
                print(f"  schema 28's single UPDATE: {len(found)} clocks in {_ms(start)}")
    finally:
        await services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backend", choices=BACKENDS, default="both")
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=2_500)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--stale", type=int, default=40_000)
    parser.add_argument("--intervals", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(on_each_backend(args.backend, lambda database: _run(database, args)))


if __name__ == "__main__":
    main()
