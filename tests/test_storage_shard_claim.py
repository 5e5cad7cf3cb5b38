"""One process per shard on PostgreSQL: the claims a shard process holds on its shards
(bot/storage/shard_claim.py), on the session's throwaway server."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.shards import EVERY, Shards
from bot.storage.errors import DatabaseInUse
from bot.storage.shard_claim import ShardClaim, name_of
from tests.conftest import postgres_database
from tests.postgres_server import PostgresServer


async def end_session_of(url: str, shards: Shards) -> None:
    """End the claim session of the process running ``shards`` (as a database restart does),
    and wait until the server has let its locks go."""
    other = await asyncpg.connect(url)
    try:
        pid = await other.fetchval(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1", name_of(shards)
        )
        assert pid is not None, "no claim session to end"
        await other.execute("SELECT pg_terminate_backend($1)", pid)
        for _ in range(100):
            if not await other.fetchval("SELECT count(*) FROM pg_locks WHERE pid = $1", pid):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the session did not end")
    finally:
        await other.close()


async def test_a_shard_is_claimed_by_one_process_and_a_layout_by_one_count(
    postgres: PostgresServer | str,
) -> None:
    """Shard 1 of 2 claimed: another claim on it, or on every shard, is refused naming shard
    1's process; shard 0 of 2 is not; once shard 1's claim is released it can be taken."""
    url = await postgres_database(postgres)
    first = ShardClaim(url, Shards(2, (1,)))
    await first.acquire()
    other = ShardClaim(url, Shards(2, (0,)))
    again = ShardClaim(url, Shards(2, (1,)))
    try:
        await other.acquire()
        with pytest.raises(DatabaseInUse, match="already runs shard 1 on") as refused:
            await again.acquire()
        assert "shards 1 of 2" in str(refused.value)
        with pytest.raises(DatabaseInUse, match="runs another layout of the shards"):
            await ShardClaim(url, EVERY).acquire()
        with pytest.raises(DatabaseInUse, match="runs another layout of the shards"):
            await ShardClaim(url, Shards(4, (3,))).acquire()
        await first.release()
        await again.acquire()
    finally:
        for claim in (first, other, again):
            await claim.release()


async def test_a_claim_whose_session_ended_is_taken_again(
    postgres: PostgresServer | str,
) -> None:
    """The claim's session ends (the database restarted): it is taken again, and a second
    process for the shard is still refused."""
    url = await postgres_database(postgres)
    shards = Shards(2, (1,))
    claim = ShardClaim(url, shards)
    await claim.acquire()
    kept = asyncio.create_task(claim.keep())
    try:
        await end_session_of(url, shards)
        for _ in range(100):
            if await _holds(url, shards):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the claim was not taken again")
        with pytest.raises(DatabaseInUse, match="already runs shard 1"):
            await ShardClaim(url, shards).acquire()
        assert not kept.done()
    finally:
        kept.cancel()
        await claim.release()


async def test_a_claim_taken_over_meanwhile_stops_the_process(
    postgres: PostgresServer | str,
) -> None:
    """The claim's session ends and another process takes the shard before it is taken
    again: keeping it returns the refusal (the process must stop)."""
    url = await postgres_database(postgres)
    shards = Shards(2, (1,))
    claim = ShardClaim(url, shards)
    await claim.acquire()
    await end_session_of(url, shards)
    successor = ShardClaim(url, shards)
    await successor.acquire()
    try:
        refusal = await asyncio.wait_for(claim.keep(), timeout=10)
        assert "already runs shard 1" in str(refusal)
    finally:
        await successor.release()
        await claim.release()


async def _holds(url: str, shards: Shards) -> bool:
    """Whether a session of the process running ``shards`` holds its locks."""
    other = await asyncpg.connect(url)
    try:
        count = await other.fetchval(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1",
            name_of(shards),
        )
    finally:
        await other.close()
    return bool(count >= 1 + len(shards.ids))
