"""Presses that ask Discord whether a member is still in the server before answering (Accept,
Rematch) are deferred in time when Discord is slow to say, as a slow database read is.

The lookup gives up after bot/flow/members.py's MEMBER_LOOKUP_LIMIT (1 s), but it comes after
other work on the same press, which may have used the rest of the 3 s: here the limit is
lifted and the lookup takes 4 s, so only the press's own deferral keeps it in time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import pytest

import bot.flow.members
from tests.bot_harness import challenge_id, running_bot
from tests.discord_standin import DiscordStandin
from tests.test_bot_rematch import accepted_in_thread, attackers_win, rematch_id
from tests.test_bot_slow_first_reads import in_time

pytest_plugins = ["tests.discord_standin.fixtures"]

SLOW_LOOKUP_SECONDS = 4.0
"""How long Discord takes to answer a member lookup: past Discord's 3 s."""


def slow_member_lookups(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, Discord answers each member lookup after SLOW_LOOKUP_SECONDS, and the bot
    waits for it."""
    real = discord.Guild.fetch_member

    async def slow(self: discord.Guild, user_id: int) -> discord.Member:
        await asyncio.sleep(SLOW_LOOKUP_SECONDS)
        return await real(self, user_id)

    monkeypatch.setattr(discord.Guild, "fetch_member", slow)
    monkeypatch.setattr(bot.flow.members, "MEMBER_LOOKUP_LIMIT", 2 * SLOW_LOOKUP_SECONDS)


async def test_an_accept_whose_member_lookup_is_slow_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's challenge while Discord takes 4 s to say alice is still a member:
    the press is deferred in time, and the game then begins."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        posted = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        slow_member_lookups(monkeypatch)
        record = await table.standin.click(
            posted, f"challenge:accept:{challenge_id(posted)}", table.bob, wait=False
        )
        await in_time(table, record)
        await table.wait_board(timeout=15)


async def test_a_rematch_whose_member_lookup_is_slow_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice presses Rematch after beating bob while Discord takes 4 s to say bob is still a
    member: the press is deferred in time, and the rematch then offered to her privately."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        over = await attackers_win(table, await accepted_in_thread(table, table.alice, table.bob))
        slow_member_lookups(monkeypatch)
        record = await table.standin.click(over, rematch_id(over), table.alice, wait=False)
        await in_time(table, record)
        offered = await record.wait_followup(timeout=15)
        assert offered.ephemeral
        assert offered.content.startswith("Rematch offered in")
