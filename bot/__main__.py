"""Start the bot: ``python -m bot`` or the ``brandubh-bot`` console script."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

import discord
from dotenv import load_dotenv

from bot.config import ConfigError, Settings, load_settings
from bot.storage.errors import StorageError

_log = logging.getLogger(__name__)

EXIT_CONFIG = 2


async def run(settings: Settings) -> None:
    """Connect to Discord and play until the process is stopped."""
    from bot.client import BrandubhBot  # imported here so a config error is reported fast

    settings.apply_endpoints()
    async with BrandubhBot(settings) as bot:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # not on Windows
                loop.add_signal_handler(signum, lambda: bot.spawn_close())
        await bot.start(settings.token)
    await bot.close()  # waits until the database is closed, however the bot stopped


def main() -> int:
    """Read the settings, configure logging once, run the bot; return the exit code."""
    load_dotenv(".env")
    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"brandubh-bot: {error}", file=sys.stderr)
        return EXIT_CONFIG
    # Logs go to stdout: stderr is kept for the one line that says why the bot could not start.
    logging.basicConfig(
        stream=sys.stdout,
        level=settings.log_level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
    )
    try:
        asyncio.run(run(settings))
    except discord.LoginFailure:
        print(
            "brandubh-bot: Discord rejected DISCORD_TOKEN: copy the token again from the "
            "Developer Portal (Bot → Reset Token).",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    except discord.PrivilegedIntentsRequired:
        print(
            "brandubh-bot: Discord refused the gateway intents this bot asked for.", file=sys.stderr
        )
        return EXIT_CONFIG
    except StorageError as error:
        print(f"brandubh-bot: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        _log.info("Stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
