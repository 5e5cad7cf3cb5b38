"""One process per shard on PostgreSQL: the claims a shard process holds on its shards
(bot/storage/shard_claim.py), on the session's throwaway server."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.shards import EVERY, Shards
from bot.storage import shard_claim
from bot.storage.errors import DatabaseInUse
from bot.storage.shard_claim import ShardClaim, name_of
from tests.conftest import postgres_database
from tests.postgres_server import SUPERUSER, PostgresServer


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
        await _taken_again(url, shards, kept)
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


async def _taken_again(
    url: str, shards: Shards, kept: asyncio.Task[DatabaseInUse], lost: int | None = None
) -> None:
    """Wait until the process running ``shards`` holds its claim again (on a session other
    than ``lost``), while keeping it goes on: a second process for the shard is refused."""
    for _ in range(100):
        pid = await _claim_pid(url, shards)
        if pid is not None and pid != lost and await _holds(url, shards):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the claim was not taken again")
    with pytest.raises(DatabaseInUse, match="already runs shard 1"):
        await ShardClaim(url, shards).acquire()
    assert not kept.done()


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


class SilentNetwork:
    """The network between a process and the server (a TCP stand-in on 127.0.0.1 in front of
    the server's Unix socket) whose links can fail without a word: cut, neither end is told,
    as when a cable or a router goes (no FIN, no RST). Links made after a cut work."""

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self.pumps: list[asyncio.Task[None]] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.listener: asyncio.Server | None = None

    async def url(self, database_url: str) -> str:
        """The URL of the database at ``database_url`` through this network."""
        self.listener = await asyncio.start_server(self._link, "127.0.0.1", 0)
        port = self.listener.sockets[0].getsockname()[1]
        return f"postgresql://{SUPERUSER}@127.0.0.1:{port}{urlsplit(database_url).path}"

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        socket = next(self.server.socket_dir.glob(".s.PGSQL.*[0-9]"))
        to_reader, to_writer = await asyncio.open_unix_connection(str(socket))
        self.writers += [writer, to_writer]
        self.pumps.append(asyncio.create_task(_pump(reader, to_writer)))
        self.pumps.append(asyncio.create_task(_pump(to_reader, writer)))

    def cut(self) -> None:
        """Stop carrying anything on the links made so far; keep their sockets open."""
        for pump in self.pumps:
            pump.cancel()
        self.pumps.clear()

    async def close(self) -> None:
        self.cut()
        for writer in self.writers:
            writer.close()
        if self.listener is not None:
            self.listener.close()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


async def _claim_pid(url: str, shards: Shards) -> int | None:
    """The backend of the session of the process running ``shards`` that holds the lock on
    its (first) shard."""
    other = await asyncpg.connect(url)
    try:
        pid: int | None = await other.fetchval(
            "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND l.classid = $1::int::oid AND l.objid = $2::int::oid AND a.application_name = $3",
            shard_claim.SHARD_SPACE,
            shards.ids[0],
            name_of(shards),
        )
    finally:
        await other.close()
    return pid


async def test_a_claim_lost_without_a_word_is_found_and_taken_again(
    postgres: PostgresServer | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The network to the database fails without a word while the server ends the claim's
    session (its keepalives found nobody): the process asks its session now and then, finds
    it gone and takes the claim again, so a second process for its shard is still refused —
    where it held nothing, unaware, and a second process started beside it."""
    monkeypatch.setattr(shard_claim, "PROBE_EVERY", 0.2)
    monkeypatch.setattr(shard_claim, "PROBE_TIMEOUT", 0.5)
    url = await postgres_database(postgres)
    assert not isinstance(postgres, str)
    network = SilentNetwork(postgres)
    shards = Shards(2, (1,))
    claim = ShardClaim(await network.url(url), shards)
    await claim.acquire()
    kept = asyncio.create_task(claim.keep())
    try:
        network.cut()
        await end_session_of(url, shards)
        await _taken_again(url, shards, kept)
    finally:
        kept.cancel()
        await claim.release()
        await network.close()


async def test_a_claim_still_held_by_its_own_lost_session_is_waited_for(
    postgres: PostgresServer | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The network fails without a word and the process takes its claim again before the
    server has ended the old session: the locks that session still holds are its own, so it
    waits for the server to let them go and takes them — where it stopped, refused by itself,
    and its servers went unplayed (the single process's unit does not restart on that)."""
    monkeypatch.setattr(shard_claim, "PROBE_EVERY", 0.2)
    monkeypatch.setattr(shard_claim, "PROBE_TIMEOUT", 0.5)
    monkeypatch.setattr(shard_claim, "RETRY_PAUSE", 0.1)
    url = await postgres_database(postgres)
    assert not isinstance(postgres, str)
    network = SilentNetwork(postgres)
    shards = Shards(2, (1,))
    claim = ShardClaim(await network.url(url), shards)
    await claim.acquire()
    lost = await _claim_pid(url, shards)
    kept = asyncio.create_task(claim.keep())
    try:
        network.cut()
        await asyncio.sleep(2)  # found lost, and tried again against its own old session
        assert not kept.done(), kept.result()
        other = await asyncpg.connect(url)  # the server's keepalives find nobody at last
        try:
            await other.execute("SELECT pg_terminate_backend($1)", lost)
        finally:
            await other.close()
        await _taken_again(url, shards, kept, lost)
    finally:
        kept.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await kept
        await claim.release()
        await network.close()
