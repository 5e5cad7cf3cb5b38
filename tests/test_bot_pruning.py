"""The bot's timers delete, hourly, the boards delivered of sets that ended a week ago."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from engine import read_record
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


def _rows(table: Harness, sql: str) -> int:
    with sqlite3.connect(table.db_path, timeout=10) as raw:
        return int(raw.execute(sql).fetchone()[0])


async def test_boards_out_of_a_game_ended_a_week_ago_are_deleted_and_its_moves_kept(
    table: Harness,
) -> None:
    """A game played and resigned, then eight days: its boards' outbox rows are gone, its
    moves are not, and it still exports."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    await table.move(table.bob, "c4-c2")
    ask = await table.reply_text(table.alice, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.alice)
    await table.checks_run()  # the set's end is out
    assert _rows(table, "SELECT count(*) FROM announcements WHERE delivered_us IS NULL") == 0
    assert _rows(table, "SELECT count(*) FROM announcements") == 3
    table.advance(timedelta(days=8))
    await table.checks_run()
    assert _rows(table, "SELECT count(*) FROM announcements") == 0
    assert _rows(table, "SELECT count(*) FROM moves") == 2
    message = await (await table.slash(table.alice, "export", {"game": 1})).wait_followup()
    text = message.attachments[0]
    assert [str(r.move) for r in read_record(text.data.decode()).records] == ["d1-b1", "c4-c2"]
