"""A board sent as a followup (a press's where I may not send messages, a slow Accept's first
board), its answer lost after Discord made it: shown once, not tried again by discord.py, found
and noted out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.flow import game_flow, posts
from bot.services.challenges import ChallengeService
from bot.views import common
from tests.bot_harness import Harness, challenge_id, running_bot, settled
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import SEND_MESSAGES
from tests.test_bot_stored_answers import first_only

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def followup_posts(method: str, path: str) -> bool:
    """Whether a REST request is an interaction's followup."""
    return method == "POST" and "/webhooks/" in path


async def test_a_press_board_whose_followup_answer_is_lost_shows_once(table: Harness) -> None:
    """Without Send Messages, alice plays d1-b1 with the picker; Discord makes its board (a
    followup) but its answer is lost (502): the board shows once, and the outbox posts it no
    second time (before, discord.py sent the followup again and it showed twice)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    lost = table.standin.lose_answers(502, requests=1, matching=followup_posts)
    played = await table.standin.select(step_two, where, table.alice, ["d1-b1"])
    await played.wait_followups()
    await settled(table)  # the press's answer is done, tried again or not
    assert lost.hits == 1
    await table.standin.set_overwrite(table.channel, table.me)  # the outbox may post again
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    shown = [m for m in table.public_messages() if "played d1-b1." in m.content]
    assert len(shown) == 1, [m.content for m in shown]
    assert "**alice** (attackers) played d1-b1." in shown[0].content


async def test_a_press_board_whose_followup_discord_did_not_make_is_sent_again(
    table: Harness,
) -> None:
    """Without Send Messages, alice plays d1-b1 with the picker; Discord answers its board's
    followup 503 without making it: the channel, read, shows it was not made, so it is sent
    again and shows once (before, it was left owed to the outbox, which may not post here: no
    board until I may send messages again)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    down = table.standin.fail_rest(503, seconds=30, matching=first_only(followup_posts))
    played = await table.standin.select(step_two, where, table.alice, ["d1-b1"])
    await played.wait_followups()
    await settled(table)
    assert down.hits == 1
    shown = [m for m in table.public_messages() if "played d1-b1." in m.content]
    assert len(shown) == 1, [m.content for m in shown]
    assert "**alice** (attackers) played d1-b1." in shown[0].content
    assert "your move as the defenders" in shown[0].content


async def test_a_slow_accepts_first_board_whose_followup_answer_is_lost_shows_once(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's Accept is slow to store (deferred), so its first board is a followup; Discord
    makes it but its answer is lost (502): the board shows once, and the outbox posts it no
    second time (before, discord.py sent the followup again and it showed twice)."""
    real_accept = ChallengeService.accept

    async def slow_accept(self: ChallengeService, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(common.ANSWER_BEFORE + 0.5)  # deferred meanwhile
        return await real_accept(self, *args, **kwargs)

    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=False) as table:
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        monkeypatch.setattr(ChallengeService, "accept", slow_accept)
        lost = table.standin.lose_answers(502, requests=1, matching=followup_posts)
        accepted = await table.standin.click(
            reply, f"challenge:accept:{challenge_id(reply)}", table.bob
        )
        await accepted.wait_followups()
        await settled(table)
        assert lost.hits == 1
        table.advance(timedelta(seconds=11))
        await table.checks_run(2)
        boards = [m for m in table.public_messages() if m.attachments]
        assert len(boards) == 1, [m.content for m in boards]
        assert "your move as the attackers" in boards[0].content


async def test_a_slow_boards_followup_discord_did_not_make_is_not_taken_for_its_thinking(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /board is slow to draw (deferred publicly: Discord shows "thinking…" in its
    place), and Discord answers its followup 503 without making it: the placeholder, in the
    channel, is not taken for the board, which is sent again and shows (before, the
    placeholder counted as made: everyone read "thinking…" for good, and it became the live
    board)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    drawn = posts.board_post

    async def slow_board_post(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(common.ANSWER_BEFORE + 0.5)  # deferred meanwhile
        return await drawn(*args, **kwargs)

    monkeypatch.setattr(game_flow, "board_post", slow_board_post)
    down = table.standin.fail_rest(503, seconds=30, matching=first_only(followup_posts))
    shown = await table.slash(table.alice, "board")
    await shown.wait_followups()
    await settled(table)
    assert down.hits == 1
    [again] = [m for m in table.public_messages() if m.content.startswith("No move yet.")]
    assert again.attachments
    assert not again.loading
    assert again.custom_ids()
