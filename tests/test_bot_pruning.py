"""What a bot running for long keeps: the outbox rows of games ended a week ago go (the
timers' hourly sweep), and so does its memory of the challenges it made long ago."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.services.pruning import PruningService, Swept
from engine import read_record
from tests.bot_harness import Harness, challenge_id, running_bot
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


async def _two_moves_then_resigned(table: Harness) -> None:
    """alice and bob play a move each, then alice resigns: the set's end is out."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    await table.move(table.bob, "c4-c2")
    ask = await table.reply_text(table.alice, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.alice)
    await table.checks_run()


async def test_boards_out_of_a_game_ended_a_week_ago_are_deleted_and_its_moves_kept(
    table: Harness,
) -> None:
    """A game played and resigned, then eight days: its boards' outbox rows are gone, its
    moves are not, and it still exports."""
    await _two_moves_then_resigned(table)
    assert _rows(table, "SELECT count(*) FROM announcements WHERE delivered_us IS NULL") == 0
    assert _rows(table, "SELECT count(*) FROM announcements") == 3
    table.advance(timedelta(days=8))
    await table.checks_run()
    assert _rows(table, "SELECT count(*) FROM announcements") == 0
    assert _rows(table, "SELECT count(*) FROM moves") == 2
    message = await (await table.slash(table.alice, "export", {"game": 1})).wait_followup()
    text = message.attachments[0]
    assert [str(r.move) for r in read_record(text.data.decode()).records] == ["d1-b1", "c4-c2"]


async def test_presses_on_a_challenge_deleted_a_week_after_its_match_are_refused_as_closed(
    table: Harness,
) -> None:
    """bob accepted alice's challenge and resigned at once; eight days on, the timers' sweep has
    deleted the challenge (before, it stayed for good). A press of Accept, Decline or Withdraw
    on its post (buttons a post keeps when its edit was cut off by a restart and the first
    board could not reach it) is told privately "That challenge is no longer open.", starts
    no game and leaves the post as it is. The newest challenge is kept: none takes its id."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    number = challenge_id(reply)
    assert (await table.standin.click(reply, f"challenge:accept:{number}", table.bob)).answered
    await table.wait_board(lambda m: m.created_at >= reply.created_at)
    ask = await table.reply_text(table.bob, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    await table.checks_run()
    await table.reply_text(table.carol, "challenge", {"opponent": table.alice})  # the newest
    table.advance(timedelta(days=8))
    await table.checks_run()
    assert _rows(table, f"SELECT count(*) FROM challenges WHERE challenge_id = {number}") == 0
    shown = reply.content
    for action, who in (("accept", table.bob), ("decline", table.bob), ("withdraw", table.alice)):
        pressed = await table.standin.forged_click(reply, f"challenge:{action}:{number}", who)
        answer = await pressed.wait_original()
        assert (answer.ephemeral, answer.content) == (True, "That challenge is no longer open.")
    assert reply.content == shown
    assert _rows(table, "SELECT count(*) FROM sets") == 1


async def test_a_check_deletes_a_few_batches_and_the_next_checks_the_rest(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backlog past a check's batches is not swept in one check (late boards and time-outs
    would wait for all of it): each check deletes its batches, the following ones the rest,
    then the sweep waits an hour."""
    await _two_moves_then_resigned(table)
    assert _rows(table, "SELECT count(*) FROM announcements") == 3
    bot = table.bot
    assert bot is not None
    sweeps: list[Swept] = []
    pruning = PruningService(bot.services.database, bot.clock, batch=1, batches=1)
    real = pruning.prune

    async def noted() -> Swept:
        sweeps.append(await real())
        return sweeps[-1]

    monkeypatch.setattr(pruning, "prune", noted)
    monkeypatch.setattr(bot.services, "pruning", pruning)
    table.advance(timedelta(days=8))
    await table.checks_run(6)
    assert [(swept.deleted, swept.more_left) for swept in sweeps] == [
        (1, True),
        (1, True),
        (1, True),
        (0, False),
    ]
    assert _rows(table, "SELECT count(*) FROM announcements") == 0


async def test_the_bot_remembers_the_challenges_it_made_for_an_hour_not_for_its_life(
    table: Harness,
) -> None:
    """Challenges made and withdrawn an hour apart over a day: the bot's note of those it made
    (whose post may be under way) holds the last hour's, not one per challenge ever made."""
    for _ in range(12):
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        withdraw = f"challenge:withdraw:{challenge_id(reply)}"
        assert (await table.standin.click(reply, withdraw, table.alice)).answered
        table.advance(timedelta(hours=2))
    assert table.bot is not None
    assert len(table.bot.flow.challenges.made_here) == 1
