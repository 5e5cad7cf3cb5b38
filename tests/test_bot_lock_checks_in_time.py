"""Asking Discord whether a thread the cache holds locked still is (up to a second,
bot/locked_refusals.py ``LOCK_CHECK_WAITS``) is deferred in time like a slow read: an
interaction that reached the bot late would otherwise spend that second before any answer,
then its own work, past Discord's 3 s."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, board_thread_game, running_bot
from tests.discord_standin import DiscordStandin, InteractionRecord
from tests.test_bot_locked_threads import held

pytest_plugins = ["tests.discord_standin.fixtures"]

LATE_DELIVERY_SECONDS = 1.2
"""How long Discord takes to deliver the interaction: under the 1.5 s after which the bot
defers at once (bot/views/common.py ``ANSWER_BEFORE``), so it defers 0.3 s after."""

SHOWN_AFTER_SECONDS = 0.7
"""How long Discord takes to show the thread (a 429 asking to wait that long first): well
under the bot's second for the question (a busy machine's requests take their time too), so
the thread is shown open, and well after the deferral."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads; the bot without Manage Threads (its default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


@pytest.mark.parametrize("way", ["/move", "Move"])
async def test_a_late_move_in_a_thread_whose_unlock_was_missed_is_deferred_before_discord_says(
    table: Harness, way: str
) -> None:
    """A moderator locks alice's thread, then unlocks it and the bot misses that; her /move
    (or Move press) there reaches the bot a second late, and Discord takes almost a second to
    show the thread open: the interaction is deferred before Discord's answer comes, and her
    move is then played (or her picker opened), in time (before: the question came first,
    unguarded, leaving well under a second of Discord's 3 for all that follows)."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False, announce=False)
    thread_path = f"/channels/{thread.id}"
    table.standin.rate_limit(
        retry_after=SHOWN_AFTER_SECONDS,
        matching=lambda method, path: method == "GET" and path == thread_path,
    )
    table.standin.delivery_delay = LATE_DELIVERY_SECONDS
    record: InteractionRecord
    if way == "/move":
        record = await table.standin.slash(
            table.guild, thread, table.alice, "move", {"move": "d1-b1"}, wait=False
        )
    else:
        [move] = [c for c in board.custom_ids() if c.startswith("move:")]
        record = await table.standin.click(board, move, table.alice, wait=False)
    table.standin.delivery_delay = 0.0
    await table.standin.wait_until(lambda: record.answered, timeout=3.5)
    if way == "/move":
        await table.wait_board(lambda m: "played d1-b1" in m.content, channel=thread, timeout=15)
    else:
        picker = await record.wait_followup(timeout=15)
        assert picker.ephemeral
        assert "Which piece" in picker.content, picker.content
    [shown] = [
        call
        for call in table.standin.recorder.rest_log
        if call.method == "GET" and call.path.endswith(thread_path) and call.status == 200
    ]
    assert record.answered_at is not None
    assert record.answered_at < shown.at, "the answer waited for Discord to show the thread"
    await held(table, thread, is_held=False)
