"""Starting the bot: commands synced only when they change, a rejected token is one clear line."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.bot_harness import Harness
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]

ROOT = Path(__file__).resolve().parent.parent

EXPECTED_OPTIONS = {
    "challenge": ["opponent", "ruleset", "sets", "side", "level", "time"],
    "move": ["move"],
    "board": [],
    "resign": [],
    "takeback": [],
    "leaderboard": ["ruleset"],
    "stats": ["player", "ruleset"],
    "rules": ["ruleset"],
    "export": ["game"],
    "settings": [
        "ruleset",
        "time",
        "allow",
        "disallow",
        "everywhere",
        "threads",
        "language",
        "open_challenge_role",
        "no_open_challenge_role",
    ],
    "abort": ["game"],
    "games": ["player"],
    "help": [],
    "analyse": ["game"],
    "puzzle": ["play", "stats", "leaderboard", "daily"],
}


async def test_commands_have_the_documented_options(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Every slash command is synced, guild-only and for servers that installed the bot only
    (never as a member's own app, in servers I am not in), with exactly the documented option
    names."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        synced = {c["name"]: c for c in discord_standin.synced_commands()}
        assert {name: [o["name"] for o in c.get("options", [])] for name, c in synced.items()} == (
            EXPECTED_OPTIONS
        )
        assert all(c.get("contexts") == [0] for c in synced.values())
        assert all(c.get("integration_types") == [0] for c in synced.values())
        assert synced["move"]["options"][0]["autocomplete"] is True
    finally:
        await table.stop()


async def test_commands_are_not_synced_again_when_unchanged(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A restart with the same commands does not sync them again."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        assert discord_standin.recorder.command_syncs == 1
        await table.restart()
        assert discord_standin.recorder.command_syncs == 1
    finally:
        await table.stop()


async def test_a_sync_state_that_cannot_be_written_costs_only_a_sync(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Where the sync state cannot be written (here a directory is in its way), the bot still
    starts and plays, and syncs again at the next start."""
    (tmp_path / "bot.sqlite3.commands.json").mkdir()
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        assert discord_standin.recorder.command_syncs == 1
        await table.challenge_accepted(table.alice, table.bob)
        await table.restart()
        assert discord_standin.recorder.command_syncs == 2
    finally:
        await table.stop()


def commands_read(method: str, path: str) -> bool:
    """The start-up's read of the global commands (their ids)."""
    return method == "GET" and path.endswith("/commands")


def commands_synced(method: str, path: str) -> bool:
    """A sync of the commands."""
    return method == "PUT" and path.endswith("/commands")


async def test_a_long_rate_limit_on_the_commands_ids_does_not_stop_the_start(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Discord answers the start-up's read of the commands' ids with a ten-minute 429: the bot
    starts all the same and plays (RateLimited, which discord.py raises past 30 s, ended it)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        limited = discord_standin.rate_limit(retry_after=600, matching=commands_read)
        await table.restart()
        assert limited.hits == 1
        await table.challenge_accepted(table.alice, table.bob)
    finally:
        await table.stop()


async def test_a_long_rate_limit_on_the_sync_starts_the_bot_and_syncs_at_the_next_start(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Discord answers a start-up's sync of changed commands with a ten-minute 429 (syncs have a
    daily limit): the bot starts on the commands synced before and plays, and the next start
    syncs them (RateLimited ended the start)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        (tmp_path / "bot.sqlite3.commands.json").unlink()  # as if the commands had changed
        limited = discord_standin.rate_limit(retry_after=600, matching=commands_synced)
        await table.restart()
        assert limited.hits == 1
        assert discord_standin.recorder.command_syncs == 1
        await table.challenge_accepted(table.alice, table.bob)
        await table.restart()
        assert discord_standin.recorder.command_syncs == 2
    finally:
        await table.stop()


async def test_rejected_token_exits_2_with_one_line(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """`python -m bot` with a token Discord refuses prints one line on stderr and exits 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    env.update(discord_standin.env)
    env.update({"DISCORD_TOKEN": "not-the-token", "PYTHONPATH": str(ROOT)})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1
    assert "DISCORD_TOKEN" in lines[0]
    assert "not-the-token" not in stderr.decode()


async def test_sigterm_stops_the_bot_cleanly(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """`python -m bot` stops on SIGTERM with exit code 0 and no traceback."""
    discord_standin.add_guild("Tafl Club")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "BRANDUBH_"))}
    env.update(discord_standin.env)
    env.update({"PYTHONPATH": str(ROOT), "BRANDUBH_GUILD_READY_TIMEOUT": "0.1"})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await discord_standin.wait_synced("challenge", timeout=60)
    await discord_standin.wait_ready(timeout=60)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    assert b"Traceback" not in stdout + stderr
    assert discord_standin.token.encode() not in stdout + stderr


async def test_development_guilds_get_the_commands_instead_of_everyone(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """With DISCORD_GUILD_IDS the commands are synced to that server and not globally."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", dev_guild=True)
    await table.start()
    try:
        names = {c["name"] for c in discord_standin.synced_commands(table.guild)}
        assert set(EXPECTED_OPTIONS) == names
        assert discord_standin.synced_commands() == []
        reply = await table.reply_text(table.alice, "rules")
        assert "corner" in reply.content
        # Those commands have an id per server: messages name them as text, not as mentions.
        reply = await table.reply_text(table.alice, "board")
        assert "`/games` lists where the games are" in reply.content
    finally:
        await table.stop()
