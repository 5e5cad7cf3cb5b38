"""`python -m bot` as an admin runs it: one bot per file, damaged files and no Discord refused.

Every test starts the real bot in its own process and reads its exit code and standard error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sqlite3
import sys
from pathlib import Path

import asyncpg

from bot.__main__ import EXIT_CONFIG, EXIT_DNS, EXIT_IN_USE, EXIT_TLS, EXIT_UNREACHABLE
from bot.storage import Database, schema_version
from bot.storage.errors import DatabaseUnavailable, DatabaseUnreachable
from bot.storage.postgresql import postgres_error
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

ROOT = Path(__file__).resolve().parent.parent

_NO_DNS = """
import runpy, socket, sys

def no_dns(host, *args, **kwargs):
    # What the resolver answers when the name cannot be looked up (no DNS server, no network).
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

socket.getaddrinfo = no_dns
sys.argv = ["bot"]
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


def bot_env(standin: DiscordStandin | None, **extra: str) -> dict[str, str]:
    """The environment of a bot process: the stand-in's addresses and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    if standin is not None:
        env.update(standin.env)
    else:  # never the real Discord: a port on 127.0.0.1 where nothing listens
        port = closed_port()
        env["DISCORD_API_BASE"] = f"http://127.0.0.1:{port}/api/v10"
        env["DISCORD_GATEWAY_URL"] = f"ws://127.0.0.1:{port}/gateway"
    env.update({"PYTHONPATH": str(ROOT), "BRANDUBH_GUILD_READY_TIMEOUT": "0.1"})
    env.update(extra)
    return env


async def start_bot(cwd: Path, env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    """``python -m bot`` (or ``python -c`` with ``args``) in ``cwd``."""
    command = args or ("-m", "bot")
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *command,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def refused(process: asyncio.subprocess.Process, within: float = 30) -> tuple[int, str]:
    """The exit code and the standard error of a bot that should stop by itself."""
    _, stderr = await asyncio.wait_for(process.communicate(), within)
    assert process.returncode is not None
    return process.returncode, stderr.decode()


def one_line(stderr: str) -> str:
    """The single line on standard error (and no traceback)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


async def test_a_second_bot_on_the_same_file_is_refused(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A second `python -m bot` on the same database exits 3 with one line while the first
    plays on; after the first is killed with SIGKILL a new one starts."""
    guild = discord_standin.add_guild("Tafl Club", channels=["games"])
    alice = discord_standin.add_member(guild, "alice")
    first = await start_bot(tmp_path, bot_env(discord_standin))
    try:
        await discord_standin.wait_synced("challenge", timeout=60)
        await discord_standin.wait_ready(timeout=60)
        second = await start_bot(tmp_path, bot_env(discord_standin))
        code, stderr = await refused(second, within=20)
        assert code == EXIT_IN_USE
        line = one_line(stderr)
        assert "already using the database" in line
        assert str(first.pid) in line
        assert first.returncode is None, "the first bot keeps running"
        reply = await discord_standin.slash(guild, guild.channel("games"), alice, "rules")
        assert reply.answered
        first.send_signal(signal.SIGKILL)
        await first.wait()
        identified = discord_standin.gateway.identify_count
        third = await start_bot(tmp_path, bot_env(discord_standin))
        try:
            await discord_standin.wait_until(
                lambda: discord_standin.gateway.identify_count > identified,
                timeout=60,
                waiting_for="the bot started after the SIGKILL to connect",
            )
        finally:
            third.send_signal(signal.SIGTERM)
            stdout_bytes, stderr_bytes = await asyncio.wait_for(third.communicate(), 60)
        assert third.returncode == 0, stderr_bytes.decode()
        if sys.platform != "win32":  # the bot runs on uvloop wherever it is a dependency
            assert "Event loop: uvloop" in stdout_bytes.decode()
    finally:
        if first.returncode is None:
            first.kill()
            await first.wait()


async def damaged_database(path: Path) -> None:
    """A real database file with its tables' pages overwritten in the middle."""
    database = await Database.open(path)
    async with database.transaction() as db:
        await db.execute_many(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, 0)",
            [(user_id, f"player {user_id} " + "x" * 200) for user_id in range(1, 3000)],
        )
    await database.close()
    size = path.stat().st_size  # noqa: ASYNC240 - a test's one stat call, not a hot path
    page = 4096
    with path.open("r+b") as raw:
        for offset in range(2 * page, size - page, 7 * page):
            raw.seek(offset + 100)
            raw.write(b"\xde\xad\xbe\xef" * 256)
    check = sqlite3.connect(path)
    try:
        verdict = check.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as error:
        verdict = str(error)
    finally:
        check.close()
    assert verdict != "ok"


async def test_a_damaged_database_is_refused_with_exit_2(tmp_path: Path) -> None:
    """A damaged file stops start-up with one line naming it and exit code 2."""
    await damaged_database(tmp_path / "brandubh.sqlite3")
    process = await start_bot(tmp_path, bot_env(None, DISCORD_TOKEN="x.y.z"))
    code, stderr = await refused(process)
    assert code == EXIT_CONFIG == 2
    line = one_line(stderr)
    assert "damaged" in line
    assert "brandubh.sqlite3" in line
    assert "backup" in line


async def test_a_database_newer_than_the_bot_is_refused_with_exit_2_unchanged(
    tmp_path: Path,
) -> None:
    """An operator who rolled the bot back: a file of a newer schema stops start-up with one
    line naming it and both versions, exit code 2, and the file is left as it was."""
    path = tmp_path / "brandubh.sqlite3"
    database = await Database.open(path)
    async with database.transaction() as db:
        await db.execute("INSERT INTO players (user_id, display_name, seen_us) VALUES (1, 'a', 0)")
    await database.close()
    newer = schema_version() + 1
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute(f"PRAGMA user_version = {newer}")
    with contextlib.closing(sqlite3.connect(path)) as raw:
        before = list(raw.iterdump())
    process = await start_bot(tmp_path, bot_env(None, DISCORD_TOKEN="x.y.z"))
    code, stderr = await refused(process)
    assert code == EXIT_CONFIG == 2
    line = one_line(stderr)
    assert "brandubh.sqlite3" in line
    assert f"schema version {newer}, newer than this bot's {schema_version()}" in line
    with contextlib.closing(sqlite3.connect(path)) as raw:
        assert int(raw.execute("PRAGMA user_version").fetchone()[0]) == newer
        assert list(raw.iterdump()) == before


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_connection_refused_is_one_line_and_exit_4(tmp_path: Path) -> None:
    """Nothing listening at Discord's address: one line saying so, exit code 4."""
    port = closed_port()
    env = bot_env(
        None,
        DISCORD_TOKEN="x.y.z",
        DISCORD_API_BASE=f"http://127.0.0.1:{port}/api/v10",
        DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{port}/gateway",
    )
    code, stderr = await refused(await start_bot(tmp_path, env))
    assert code == EXIT_UNREACHABLE
    line = one_line(stderr)
    assert f"cannot connect to Discord at 127.0.0.1:{port}" in line
    assert "refused" in line.lower()


async def test_an_unreachable_postgresql_database_is_one_line_and_exit_4(tmp_path: Path) -> None:
    """Nothing listening at the PostgreSQL database's address (down, not started yet): one line
    naming it, exit code 4, which the units restart on (before: 2, which they do not)."""
    port = closed_port()
    env = bot_env(
        None,
        DISCORD_TOKEN="x.y.z",
        BRANDUBH_DB=f"postgresql://brandubh:secret@127.0.0.1:{port}/brandubh",
    )
    code, stderr = await refused(await start_bot(tmp_path, env))
    assert code == EXIT_UNREACHABLE
    line = one_line(stderr)
    assert f"127.0.0.1:{port}/brandubh cannot be reached" in line
    assert "secret" not in line


async def test_a_postgresql_server_out_of_connections_is_exit_4(
    tmp_path: Path, postgres: PostgresServer | str
) -> None:
    """PostgreSQL answers "too many connections" (53300; here a role allowed none, as a
    server whose connections other programs hold): one line, exit code 4, which the units
    restart on — it usually passes (before: DatabaseBusy, exit 2, never restarted)."""
    url = await postgres_database(postgres)
    assert isinstance(postgres, PostgresServer)
    role = f"crowded_{os.getpid()}"
    admin = await asyncpg.connect(postgres.url())
    try:
        await admin.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0")
        database = url.rsplit("/", 1)[1].split("?", 1)[0]
        env = bot_env(
            None,
            DISCORD_TOKEN="x.y.z",
            BRANDUBH_DB=f"postgresql://{role}@/{database}?host={postgres.socket_dir}",
        )
        code, stderr = await refused(await start_bot(tmp_path, env))
    finally:
        await admin.execute(f"DROP ROLE IF EXISTS {role}")
        await admin.close()
    line = one_line(stderr)
    assert "too many connections" in line
    assert code == EXIT_UNREACHABLE


def test_only_a_closed_connections_interface_error_is_unreachable() -> None:
    """asyncpg's InterfaceError is a lost connection only when that connection is closed; a
    misused transaction or a closed pool is the program's bug, which starting again every
    10 s (exit code 4) would not mend. A connection reset mid-statement (08003) is reached."""
    where = "postgresql://brandubh@/brandubh"
    misuse = asyncpg.InterfaceError("cannot start; the transaction is already started")
    assert not isinstance(postgres_error(where, misuse), DatabaseUnreachable)
    assert isinstance(postgres_error(where, misuse), DatabaseUnavailable)
    closed = asyncpg.InterfaceError("connection is closed")
    assert isinstance(postgres_error(where, closed, lost=True), DatabaseUnreachable)
    reset = asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    assert isinstance(postgres_error(where, reset), DatabaseUnreachable)
    shutdown = asyncpg.AdminShutdownError("terminating connection due to administrator command")
    assert isinstance(postgres_error(where, shutdown), DatabaseUnreachable)


async def test_dns_failure_is_one_line_and_exit_5(tmp_path: Path) -> None:
    """Discord's name cannot be looked up (the resolver fails, as offline): exit code 5."""
    env = bot_env(
        None,
        DISCORD_TOKEN="x.y.z",
        DISCORD_API_BASE="http://discord.invalid/api/v10",
    )
    code, stderr = await refused(await start_bot(tmp_path, env, "-c", _NO_DNS))
    assert code == EXIT_DNS
    line = one_line(stderr)
    assert "discord.invalid" in line
    assert "DNS" in line


async def test_tls_failure_is_one_line_and_exit_6(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """HTTPS to a server that does not speak TLS (the stand-in): exit code 6."""
    port = discord_standin.base_url.rsplit(":", 1)[1]
    env = bot_env(
        discord_standin,
        DISCORD_API_BASE=f"https://127.0.0.1:{port}/api/v10",
    )
    code, stderr = await refused(await start_bot(tmp_path, env))
    assert code == EXIT_TLS
    line = one_line(stderr)
    assert "secure connection" in line
    assert f"127.0.0.1:{port}" in line
