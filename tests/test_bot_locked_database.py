"""Another program holding the database's write lock freezes no channel and loses no move."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from bot.storage.errors import SAVE_FAILED
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, InteractionRecord
from tests.foreign_lock import foreign_write_lock

pytest_plugins = ["tests.discord_standin.fixtures"]

LOCK_SECONDS = 8.0
"""Longer than the bot's 5 s busy timeout by enough that a move whose write starts late on a
loaded machine (up to 3 s after the lock was taken) still meets the lock for the whole 5 s."""


async def start_game(
    table: Harness, challenger: FakeMember, opponent: FakeMember, channel: FakeChannel
) -> None:
    """A game in ``channel``; the challenger attacks and moves first."""
    reply = await table.reply_text(challenger, "challenge", {"opponent": opponent}, channel=channel)
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", opponent)
    await table.wait_board(channel=channel)


async def readers_during_lock(
    table: Harness, side: FakeChannel, lobby: FakeChannel, until: float
) -> list[InteractionRecord]:
    """/board, /rules and /move's autocomplete in other channels until ``until``."""
    standin = table.standin
    records: list[InteractionRecord] = []
    while time.monotonic() < until:
        records.append(await table.slash(table.admin, "board", channel=side))
        records.append(await table.slash(table.admin, "rules", channel=lobby))
        choices = await standin.autocomplete(
            table.guild, side, table.carol, "move", focused="move", value="d"
        )
        assert choices, "the player to move is offered moves"
        records.append(standin.interaction_log[-1])
    return records


async def test_a_foreign_write_lock_freezes_no_channel(
    discord_standin: DiscordStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """While another program holds the write lock for 8 s, other channels are answered in time,
    and the move that could not be saved is refused in one sentence and can be played after."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        side = table.guild.channel("side")
        lobby = table.guild.channel("lobby")
        await start_game(table, table.alice, table.bob, table.channel)
        await start_game(table, table.carol, table.admin, side)
        caplog.set_level(logging.WARNING)
        async with foreign_write_lock(table.db_path, LOCK_SECONDS):
            started = time.monotonic()
            move = asyncio.create_task(table.slash(table.alice, "move", {"move": "d1-b1"}))
            records = await readers_during_lock(table, side, lobby, started + LOCK_SECONDS - 1)
            blocked_move = await move
        times = [r.response_time.total_seconds() for r in records if r.response_time]
        assert len(times) == len(records) >= 6
        assert max(times) < 3.0, times
        assert blocked_move.response_time is not None
        assert blocked_move.response_time.total_seconds() < 3.0
        refusal = await blocked_move.wait_original(timeout=15)
        assert refusal.content == str(SAVE_FAILED)
        assert str(table.db_path) not in refusal.content
        active = await table.bot.services.games.in_channel(table.channel.id)  # type: ignore[union-attr]
        assert active is not None
        assert active.ply == 0, "the refused move changed nothing"
        again = await table.move(table.alice, "d1-b1")
        assert "played d1-b1" in again.content
        tracebacks = [r for r in caplog.records if r.exc_info and "bot" in r.name]
        assert tracebacks == []
