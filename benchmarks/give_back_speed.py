"""How long a give-back takes over many running clocks, on a throwaway PostgreSQL.

Run from the repository root::

    .venv/bin/python -m benchmarks.give_back_speed --sets 10000 --servers 2500

It starts the tests' throwaway server (tests/postgres_server.py, a Unix socket, no TCP), starts
one set through the services, and copies it (its match too) into ``--sets`` sets spread over
``--servers`` servers. Then it times: the gateway's return (one shard per process) given back to
every clock, ``--rounds`` times a minute apart (each adds a ``given_back`` row per clock, as
routine reconnects do); one thread's give-back with those rows in the table, and the forgetting
alone; every server back in one burst (:meth:`GameService.give_back_servers`, one transaction);
and, for comparison, the single UPDATE that gave a gateway outage back before schema 29.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import timedelta

from bot.services import Services
from bot.storage import clocks
from bot.storage.postgresql import PostgresConnection
from tests import postgres_server
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


async def _copies(services: Services, sets: int, servers: int) -> None:
    """``sets`` sets in progress over ``servers`` servers: the one started, and copies."""
    spread = f"g.guild_id + n % {servers}"
    async with services.database.transaction() as db:
        await db.execute(
            "INSERT INTO matches SELECT (jsonb_populate_record(NULL::matches, to_jsonb(g) || "
            f"jsonb_build_object('match_id', g.match_id + n, 'guild_id', {spread}))).* "
            f"FROM matches g, generate_series(1, {sets - 1}) n"
        )
        await db.execute(
            "INSERT INTO sets SELECT (jsonb_populate_record(NULL::sets, to_jsonb(g) || "
            "jsonb_build_object('set_id', g.set_id + n, 'channel_id', g.channel_id + n, "
            f"'match_id', g.match_id + n, 'guild_id', {spread}))).* "
            f"FROM sets g, generate_series(1, {sets - 1}) n"
        )
        await db.execute("ANALYZE")


async def _run(sets: int, servers: int, rounds: int) -> None:
    server = postgres_server.start()
    if isinstance(server, str):
        raise SystemExit(f"No PostgreSQL: {server}.")
    try:
        clock = FakeClock()
        services = await Services.open(await postgres_server.create_database(server), clock=clock)
        try:
            challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
            await services.challenges.accept(challenge.challenge_id, BOB)
            await services.games.play(CHANNEL, ALICE, "d1-c1")
            await _copies(services, sets, servers)
            for round_ in range(1, rounds + 1):
                clock.advance(timedelta(minutes=1))
                since = clock.now
                clock.advance(timedelta(seconds=10))
                start = time.perf_counter()
                resumed = await services.games.give_back_outage(since)
                took = _ms(start)
                async with services.database.snapshot() as db:
                    row = await db.fetch_one("SELECT count(*) FROM given_back")
                noted = 0 if row is None else int(str(row[0]))
                print(
                    f"gateway give-back {round_}: {len(resumed.clocks)} clocks in {took}, "
                    f"{noted} given_back rows"
                )
            clock.advance(timedelta(minutes=1))
            since = clock.now
            clock.advance(timedelta(seconds=10))
            start = time.perf_counter()
            await services.games.give_back_closed(since, channel_id=CHANNEL)
            print(f"one thread's give-back: {_ms(start)}")
            async with services.database.transaction() as db:
                start = time.perf_counter()
                await clocks.forget_given(db)
                print(f"forgetting alone: {_ms(start)}")
            clock.advance(timedelta(minutes=1))
            since = clock.now
            clock.advance(timedelta(seconds=10))
            outages = [(GUILD + k, since, clock.now) for k in range(servers)]
            start = time.perf_counter()
            burst = await services.games.give_back_servers(outages)
            moved = sum(len(resumed.clocks) for resumed in burst)
            print(f"{servers} servers back in one burst: {moved} clocks in {_ms(start)}")
            async with services.database.transaction() as db:
                assert isinstance(db, PostgresConnection)  # asyncpg's own placeholders
                start = time.perf_counter()
                rows = await db.raw.fetch(_OLD_UPDATE, 10_000_000, 2**62, 0)
                print(f"schema 28's single UPDATE: {len(rows)} clocks in {_ms(start)}")
        finally:
            await services.close()
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=2_500)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(_run(args.sets, args.servers, args.rounds))


if __name__ == "__main__":
    main()
