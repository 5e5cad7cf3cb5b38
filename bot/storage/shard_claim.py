"""One process per shard on a shared PostgreSQL database: advisory locks held for its life.

SQLite has one bot per file (bot/storage/process_lock.py). On PostgreSQL several processes share
the database by design, each running its own shards; two running the same shard (a copied unit,
a second host started by mistake) would both drive its servers — both time games out, remind,
post the owed boards and the daily puzzle — and Discord sends the events of a shard to every
session identified for it. So each process holds, on a connection of its own for its whole
life, a session-level advisory lock on each of its shards (exclusive) and one on its layout
(shared: the shard count, 0 for a process running every shard); it starts only if it gets every
shard's and no other process holds another layout's (whose shards would overlap its own). The
server releases the locks when the session ends, however the process ended: a killed process
leaves none behind once PostgreSQL sees its connection close (at once on this machine; across a
network TCP keepalives, set to about 25 s here, find a vanished host).
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg
from asyncpg import Record

from bot.shards import Shards
from bot.storage.errors import DatabaseInUse
from bot.storage.postgresql import display_url, postgres_error

_log = logging.getLogger(__name__)

LAYOUT_SPACE = 0x62724C59
"""The first key of the layout's lock (``pg_advisory_lock(int, int)``); the second is the
shard count (0: every shard)."""
SHARD_SPACE = 0x62725348
"""The first key of each shard's lock; the second is the shard id."""

KEEPALIVE = {
    "tcp_keepalives_idle": "10",
    "tcp_keepalives_interval": "5",
    "tcp_keepalives_count": "3",
}
"""A host that vanished (no FIN, no RST) has its locks released in about 25 s rather than
the system's two hours (ignored on a Unix socket, where the kernel closes the session)."""

PROBE_EVERY = 30.0
"""How often, in seconds, the claim's session is asked whether it still answers. A network that
fails without a word leaves this side's socket open for ever (nothing is sent on it), while the
server ends the session and lets the locks go: unasked, the process would hold nothing
unaware, and a second process for its shards could start beside it."""
PROBE_TIMEOUT = 10.0
"""How long the probe's answer is waited for before the session is taken as lost."""
RETRY_PAUSE = 5.0
"""The pause, in seconds, between two tries to take a lost claim again."""


class _OwnSessionLingers(Exception):
    """The locks are still held by this process's own lost session (the server has not found
    it gone yet): not another process, so wait for the server to let them go."""


def name_of(shards: Shards) -> str:
    """The ``application_name`` of the claim's session, which another process's refusal names."""
    return "brandubh-bot shards " + shards.key


class ShardClaim:
    """This process's claim on its shards in the PostgreSQL database at ``url``."""

    def __init__(self, url: str, shards: Shards) -> None:
        self.url = url
        self.where = display_url(url)
        self.shards = shards
        self._connection: asyncpg.Connection[Record] | None = None
        self._lost_pid: int | None = None
        """The server backend of the session this claim last held, once lost."""

    async def acquire(self) -> None:
        """Take the claim now, or raise DatabaseInUse naming the process that runs a shard of
        ours or another layout (a StorageError when the database cannot be reached)."""
        try:
            connection: asyncpg.Connection[Record] = await asyncpg.connect(
                self.url,
                timeout=10,
                server_settings={"application_name": name_of(self.shards), **KEEPALIVE},
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as error:
            raise postgres_error(self.where, error) from error
        try:
            await self._take(connection)
        except BaseException:
            await connection.close()
            raise
        self._connection = connection

    async def _take(self, connection: asyncpg.Connection[Record]) -> None:
        layout = self.shards.layout
        await connection.execute(
            "SELECT pg_advisory_lock_shared($1::int, $2::int)", LAYOUT_SPACE, layout
        )
        other = await connection.fetchrow(
            "SELECT l.pid, a.application_name FROM pg_locks l "
            "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.objsubid = 2 AND l.classid = $1::int::oid AND l.objid <> $2::int::oid "
            "AND l.granted AND l.pid <> pg_backend_pid() ORDER BY l.pid LIMIT 1",
            LAYOUT_SPACE,
            layout,
        )
        if other is not None:
            raise self._in_use(other, "runs another layout of the shards")
        ids = (0,) if self.shards.every else self.shards.ids
        for shard in ids:
            await self._take_shard(connection, shard)

    async def _take_shard(
        self, connection: asyncpg.Connection[Record], shard: int, *, again: bool = True
    ) -> None:
        """Lock ``shard`` for this session, or raise naming its holder. A holder gone between
        the refused lock and the look at who holds it (a lost session the server just ended)
        let it go: the lock is tried ``again``, once, rather than refused naming nobody."""
        taken = await connection.fetchval(
            "SELECT pg_try_advisory_lock($1::int, $2::int)", SHARD_SPACE, shard
        )
        if taken:
            return
        holder = await connection.fetchrow(
            "SELECT l.pid, a.application_name FROM pg_locks l "
            "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.objsubid = 2 "
            "AND l.classid = $1::int::oid AND l.objid = $2::int::oid AND l.granted "
            "ORDER BY l.pid LIMIT 1",
            SHARD_SPACE,
            shard,
        )
        if holder is None and again:
            await self._take_shard(connection, shard, again=False)
            return
        if holder is not None and holder["pid"] == self._lost_pid:
            raise _OwnSessionLingers(f"our lost session still holds shard {shard}")
        what = "runs every shard" if self.shards.every else f"runs shard {shard}"
        raise self._in_use(holder, what)

    def _in_use(self, holder: Record | None, what: str) -> DatabaseInUse:
        who = "another bot process"
        if holder is not None:
            who = f"another bot process ({holder['application_name'] or 'a session'}, "
            who += f"PostgreSQL backend {holder['pid']})"
        ours = "every shard" if self.shards.every else f"shards {self.shards.describe()}"
        return DatabaseInUse(
            f"{who[0].upper()}{who[1:]} already {what} on the database {self.where}: stop it "
            f"first, or give this process ({ours}) shards no other process runs.",
            self.where,
        )

    async def keep(self) -> DatabaseInUse:
        """Hold the claim for the life of the process: whenever its session ends (the database
        restarted, the network failed) or stops answering a probe (PROBE_EVERY), take it again,
        trying every RETRY_PAUSE — waiting while the old session, not found gone by the server
        yet, still holds the locks. Returns the refusal if another process took a shard of ours
        meanwhile: this process must then stop."""
        while True:
            connection = self._connection
            if connection is not None:
                pid = connection.get_server_pid()
                await _lost(connection)
                self._lost_pid = pid
                self._connection = None
                _log.warning("The claim on %s lost its session: taking it again", self.where)
            try:
                await self.acquire()
            except DatabaseInUse as error:
                return error
            except Exception as error:
                _log.warning("Could not take the claim on %s again yet: %s", self.where, error)
                await asyncio.sleep(RETRY_PAUSE)
                continue
            if connection is not None:
                _log.info("The claim on %s is held again", self.where)

    async def release(self) -> None:
        """Let the claim go (the server also does when the session ends). Idempotent. A session
        that does not answer within PROBE_TIMEOUT (the network gone) is dropped on this side,
        where the process's stop waited for it for ever."""
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                await connection.close(timeout=PROBE_TIMEOUT)
            except Exception as error:  # closed on this side all the same
                _log.warning("The claim's session did not close: %s", error or type(error).__name__)


async def _lost(connection: asyncpg.Connection[Record]) -> None:
    """Return once ``connection``'s session has ended, or has not answered a probe (the
    connection is then dropped on this side)."""
    while not await _ended(connection, PROBE_EVERY):
        try:
            await connection.fetchval("SELECT 1", timeout=PROBE_TIMEOUT)
        except Exception as error:
            _log.warning("The claim's session did not answer: %s", error or type(error).__name__)
            connection.terminate()
            return


async def _ended(connection: asyncpg.Connection[Record], within: float) -> bool:
    """Whether ``connection``'s session ends within ``within`` seconds."""
    ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def closed(_: object) -> None:
        if not ended.done():
            ended.set_result(None)

    connection.add_termination_listener(closed)
    try:
        if not connection.is_closed():
            await asyncio.wait_for(asyncio.shield(ended), within)
    except TimeoutError:
        return False
    finally:
        connection.remove_termination_listener(closed)
    return True
