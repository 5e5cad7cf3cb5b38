"""The boards a set's end leaves: a set that ends while my reply's board is drawn shows its
final board last, and no "your move" after it; my move that ends a set, stored though its write
answered an error, shows the final board once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.flow import computer_turns as turns
from engine import Game
from tests.bot_harness import HANDLER_TASKS, Harness, next_drawing_waits, running_bot, settled
from tests.discord_standin import DiscordStandin
from tests.test_bot_board_nonces import stored_though_failed
from tests.test_bot_failed_set_end_posts import KING_ESCAPES, ScriptedPool, alice_plays, answered

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time, alice attacking against me."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        await harness.slash(harness.alice, "challenge", {"opponent": harness.me})
        await harness.wait_board(lambda m: "your move as the attackers" in m.content)
        yield harness


async def test_a_set_aborted_while_my_reply_is_drawn_shows_no_move_after_its_end(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin aborts the game while my reply to alice's move is drawn: the aborted board is
    the channel's last, and her line tells my move in place of "I am thinking…", without a
    board asking anyone to move (before, my reply was edited into it after the aborted board
    was out: "your move as the attackers", with its buttons)."""
    drawing, go_on = next_drawing_waits(monkeypatch, turns)
    line = await table.move(table.alice, "d1-b1")
    await asyncio.wait_for(drawing.wait(), 20)
    aborted = await table.abort(table.admin)
    go_on.set()
    await settled(table, tasks_named=(*HANDLER_TASKS, "computer-move-"))
    after = [m for m in table.public_messages() if m.created_at >= aborted.created_at]
    assert [m.id for m in after] == [aborted.id], [m.content for m in after]
    played, mine = line.content.split("\n")  # no "I am thinking…", no "your move"
    assert played == "**alice** (attackers) played d1-b1."
    assert mine.startswith("**Brandubh (level 3)** (defenders) played "), mine
    assert not line.attachments
    assert not line.custom_ids()


class DetouringPool(ScriptedPool):
    """:class:`ScriptedPool` playing :data:`KING_ESCAPES`, but the king's winning c7-a7 the
    second time only: the first time, c7-c6."""

    def __init__(self) -> None:
        super().__init__(KING_ESCAPES)
        self.detoured = False

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        if game.ply == len(KING_ESCAPES) - 1 and not self.detoured:
            self.detoured = True
            return "c7-c6"
        return await super().choose_move(game, level, seed=seed)


async def test_my_winning_move_found_stored_after_a_takeback_shows_its_final_board_once(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice takes back her move and my reply at move 8, plays it again, and my reply, the
    king's escape, is stored though its write answers an error: its final board (alice's line)
    carries the nonce my move owed it with, the second owed at that ply, and is noted out, so
    the outbox posts no second one (read as a set's end owed anew there, it would)."""
    assert table.bot is not None
    table.bot.ai = DetouringPool()
    await alice_plays(table, KING_ESCAPES[:7])  # my reply to her g5-g6: c7-c6
    await table.slash(table.alice, "takeback")
    await table.standin.wait_until(
        lambda: any("took back" in m.content for m in table.public_messages()), timeout=10
    )
    stored_though_failed(table, monkeypatch)
    table.advance(timedelta(seconds=1))  # owed after my start: no look in the history for it
    line = await table.move(table.alice, KING_ESCAPES[6])
    await table.standin.wait_until(lambda: answered(line), waiting_for="my winning reply")
    await settled(table, tasks_named=(*HANDLER_TASKS, "computer-move-"))
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    ends = [m.content for m in table.public_messages() if "Set 1 of 2 is over" in m.content]
    assert len(ends) == 1, ends
    assert "c7-a7" in ends[0], ends
