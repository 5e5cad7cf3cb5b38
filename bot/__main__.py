"""Start the bot: ``python -m bot`` or the ``brandubh-bot`` console script."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys

import aiohttp
import discord
import yarl
from dotenv import load_dotenv

from bot import event_loop
from bot.config import ConfigError, Settings, load_settings
from bot.storage.errors import DatabaseBusy, DatabaseInUse, DatabaseUnreachable, StorageError
from bot.storage.process_lock import ProcessLock
from bot.storage.shard_claim import ShardClaim

_log = logging.getLogger(__name__)

EXIT_CONFIG = 2
"""The settings, the token or the database file cannot be used (damaged, not SQLite, newer)."""
EXIT_IN_USE = 3
"""Another bot process already uses the database file (PostgreSQL: runs a shard of ours)."""
EXIT_UNREACHABLE = 4
"""Discord, or the PostgreSQL database, could not be reached (yet): connection refused, reset or
timed out, or the server still starting up. Worth starting again; the units restart on it."""
EXIT_DNS = 5
"""Discord's host name could not be resolved."""
EXIT_TLS = 6
"""The secure (TLS) connection to Discord failed: a certificate or handshake error."""


async def run(settings: Settings) -> None:
    """Connect to Discord and play until the process is stopped. On PostgreSQL the process
    first claims its shards: a shard another process runs refuses it (DatabaseInUse)."""
    claim = None
    if settings.database_url is not None:
        # Shared by design, but each shard by one process (bot/storage/shard_claim.py).
        claim = ShardClaim(settings.database_url, settings.shards)
        await claim.acquire()
    try:
        await _run_claimed(settings, claim)
    finally:
        if claim is not None:
            await claim.release()  # once the database is closed: nothing more is written


async def _run_claimed(settings: Settings, claim: ShardClaim | None) -> None:
    from bot.client import BrandubhBot  # imported here so a config error is reported fast
    from bot.services import Services

    # The database first: a damaged or foreign file is refused before Discord is contacted.
    services = await Services.open(settings.database, shards=settings.shards)
    if settings.shard_count is not None:
        _log.info("Running shards %s", settings.shards.describe())
    _log.info("Event loop: %s", event_loop.name())
    settings.apply_endpoints()
    refused: list[DatabaseInUse] = []
    async with BrandubhBot(settings, services=services) as bot:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # not on Windows
                loop.add_signal_handler(signum, lambda: bot.spawn_close())
        if claim is not None:

            async def keep_claim() -> None:
                refused.append(await claim.keep())
                _log.error("%s", refused[0])
                bot.spawn_close()  # another process drives our servers now: stop

            bot.spawn(keep_claim(), name="brandubh-shard-claim")
        await bot.start(settings.token)
    await bot.close()  # waits until the database is closed, however the bot stopped
    if refused:
        raise refused[0]


def unreachable(error: BaseException, api_base: str) -> tuple[int, str] | None:
    """The exit code and one line for a failure to reach Discord, or None if it is not one."""
    url = yarl.URL(api_base)
    where = f"{url.host}:{url.port}"
    if isinstance(error, aiohttp.ClientSSLError):
        reason = getattr(error.os_error, "reason", None) or error.os_error
        return EXIT_TLS, (
            f"the secure connection to Discord at {where} failed ({reason}): check the system "
            "clock, the CA certificates and any proxy between the bot and Discord."
        )
    if isinstance(error, aiohttp.ClientConnectorError):
        if isinstance(error.os_error, socket.gaierror):
            return EXIT_DNS, (
                f"cannot look up Discord's address {url.host} (DNS failure: "
                f"{error.os_error.strerror}): check the network and DNS settings."
            )
        failure = error.os_error
        reason = os.strerror(failure.errno) if failure.errno else (failure.strerror or failure)
        return EXIT_UNREACHABLE, f"cannot connect to Discord at {where} ({reason})."
    if isinstance(error, aiohttp.ClientConnectionError | TimeoutError):
        return EXIT_UNREACHABLE, f"the connection to Discord at {where} failed ({error!r})."
    return None


def main() -> int:
    """Read the settings, configure logging once, run the bot; return the exit code."""
    load_dotenv(".env")
    try:
        settings = load_settings()
    except ConfigError as error:
        return _fail(str(error), EXIT_CONFIG)
    if settings.database_url is not None:
        # PostgreSQL is shared by design: shard processes each drive their own servers.
        return _run_logged(settings)
    lock = ProcessLock(settings.db_path)
    try:
        lock.acquire()
    except DatabaseInUse as error:
        return _fail(str(error), EXIT_IN_USE)
    except OSError as error:
        return _fail(f"cannot create the lock file {lock.path}: {error.strerror}.", EXIT_CONFIG)
    try:
        return _run_logged(settings)
    finally:
        lock.release()


def _fail(line: str, code: int) -> int:
    print(f"brandubh-bot: {line}", file=sys.stderr)
    return code


def _run_logged(settings: Settings) -> int:
    # Logs go to stdout: stderr is kept for the one line that says why the bot could not start.
    logging.basicConfig(
        stream=sys.stdout,
        level=settings.log_level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
    )
    try:
        event_loop.run(run(settings))
    except discord.LoginFailure:
        return _fail(
            "Discord rejected DISCORD_TOKEN: copy the token again from the "
            "Developer Portal (Bot → Reset Token).",
            EXIT_CONFIG,
        )
    except discord.PrivilegedIntentsRequired:
        return _fail("Discord refused the gateway intents this bot asked for.", EXIT_CONFIG)
    except DatabaseInUse as error:  # another process runs a shard of ours (PostgreSQL)
        return _fail(str(error), EXIT_IN_USE)
    except (DatabaseUnreachable, DatabaseBusy) as error:
        # PostgreSQL down, starting up, or out of connections (53300, mostly another program's,
        # which it gives back); a lock held a while: it usually passes, so worth starting again.
        return _fail(str(error), EXIT_UNREACHABLE)
    except StorageError as error:
        return _fail(str(error), EXIT_CONFIG)
    except KeyboardInterrupt:
        _log.info("Stopped.")
    except Exception as error:
        failure = unreachable(error, settings.api_base)
        if failure is None:
            raise
        code, line = failure
        return _fail(line, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
