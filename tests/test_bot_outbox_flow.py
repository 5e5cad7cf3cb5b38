"""The flow's own posts and the outbox: a board is posted once, whoever posts it, however
slowly, and whatever became of Discord's answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.flow import computer_turns as turns
from bot.flow import set_ends
from bot.storage.errors import StorageError
from tests.bot_harness import (
    Harness,
    eventually,
    next_drawing_waits,
    running_bot,
    settled,
    timers_checked,
)
from tests.discord_standin import DiscordStandin, rest_messages
from tests.foreign_lock import foreign_write_lock

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


OUTAGE_SECONDS = 60.0
"""Longer than any REST fault window here lasts: the test ends it (``end_faults``) once what it
waits for happened during it."""


def _channel_posts(method: str, path: str) -> bool:
    return method == "POST" and path.startswith("/channels/") and path.endswith("/messages")


def posts_in(table: Harness, since: int) -> int:
    """How many messages the bot asked Discord to create in the game's channel (answered or
    not) since the REST log's entry ``since``."""
    path = f"/channels/{table.channel.id}/messages"
    return sum(
        call.method == "POST" and call.path.endswith(path)
        for call in table.standin.rest_log[since:]
    )


async def nothing_owed(table: Harness) -> None:
    """Let the outbox's checks run (its pauses passed) until it owes nothing."""
    assert table.bot is not None
    for _ in range(100):
        if not await table.bot.services.announcements.due():
            table.advance(timedelta(minutes=5))
            await timers_checked(table)  # a check under way has finished
            if not await table.bot.services.announcements.due():
                return
        table.advance(timedelta(minutes=2))
        await table.checks_run()  # the outbox's round at that time
    raise AssertionError("a board stayed owed")


async def test_the_computers_board_whose_answer_was_lost_is_posted_once(table: Harness) -> None:
    """Discord takes the computer's opening board, posted in the channel, but its answer is lost
    (a 503, which discord.py does not send again): the outbox posts the owed board with the
    nonce the flow's post carried, and Discord returns that message instead of a second board
    (before, the flow's post had a nonce of its own: two boards)."""
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await nothing_owed(table)
    played = [m for m in table.public_messages() if "(attackers) played" in m.content]
    assert len(played) == 1, [m.content for m in played]


async def test_a_loss_on_time_whose_answer_was_lost_is_posted_once(table: Harness) -> None:
    """alice runs out of time; Discord takes the set's final board but its answer is lost: the
    outbox's post of it returns that board instead of a second one."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    table.advance(timedelta(days=1, seconds=1))  # alice's move timer runs out
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await nothing_owed(table)
    ends = [m for m in table.public_messages() if "ran out of time" in m.content]
    assert len(ends) == 1, [m.content for m in ends]


async def test_a_board_deleted_before_the_outbox_tried_again_is_not_posted_anew(
    table: Harness,
) -> None:
    """The computer's opening board is made but its answer lost, and a moderator deletes it
    before the outbox tries again: Discord will not make a message of that nonce again (404
    Unknown Message), so the board counts as out rather than refused and retried for good."""
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    [board] = [m for m in table.public_messages() if "(attackers) played" in m.content]
    table.standin.delete_message(board)
    since = len(table.standin.rest_log)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await nothing_owed(table)
    assert posts_in(table, since) == 1  # one try, answered Unknown Message
    assert not [m for m in table.public_messages() if "(attackers) played" in m.content]


async def test_a_deleted_board_not_recorded_is_not_posted_once_discord_forgets_its_nonce(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's opening board is made, its answer lost, and deleted by a moderator; the
    outbox's try is answered Unknown Message, but the database fails to record the board out,
    past the minutes Discord holds the nonce: it is not posted anew, and is recorded once the
    database takes it (before, it stayed owed, and the next try after the nonce was forgotten
    posted the deleted board again)."""
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    [board] = [m for m in table.public_messages() if "(attackers) played" in m.content]
    table.standin.delete_message(board)
    assert table.bot is not None
    announcements = table.bot.services.announcements
    record = announcements.posted
    failing = [True]

    async def fails(*args: Any, **kwargs: Any) -> None:
        if failing:
            raise StorageError("database is locked")
        await record(*args, **kwargs)

    monkeypatch.setattr(announcements, "posted", fails)
    since = len(table.standin.rest_log)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await table.standin.wait_until(lambda: posts_in(table, since) == 1, timeout=30)
    await timers_checked(table)
    monkeypatch.setattr(rest_messages, "NONCE_WINDOW", timedelta(0))  # Discord forgot it
    table.advance(timedelta(seconds=10))
    await table.checks_run(2)
    failing.clear()
    await nothing_owed(table)
    assert posts_in(table, since) == 1  # one try, answered Unknown Message
    assert not [m for m in table.public_messages() if "(attackers) played" in m.content]


async def test_the_computers_reply_slow_to_post_is_not_posted_again_by_the_outbox(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's reply to alice's move is still being edited into her line when the
    outbox's time for it comes (Discord slow): the reply's claim keeps the outbox off it, so
    it is her line, not also a board of its own."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    replying, owed_time = asyncio.Event(), asyncio.Event()
    reply = turns.ComputerTurns._replace_or_send

    async def replaced_after_the_outbox_looked(
        self: turns.ComputerTurns, *args: Any, **kwargs: Any
    ) -> int:
        replying.set()
        await owed_time.wait()
        return await reply(self, *args, **kwargs)

    monkeypatch.setattr(turns.ComputerTurns, "_replace_or_send", replaced_after_the_outbox_looked)
    line = await table.move(table.alice, "d1-b1")
    await asyncio.wait_for(replying.wait(), timeout=10)
    since = len(table.standin.rest_log)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed reply
    await timers_checked(table)  # the outbox has looked at it
    owed_time.set()
    await table.standin.wait_until(lambda: "(defenders) played" in line.content, timeout=10)
    await timers_checked(table)  # the outbox has looked again since
    assert posts_in(table, since) == 0
    replies = [m for m in table.public_messages() if "(defenders) played" in m.content]
    assert [m.id for m in replies] == [line.id]


async def test_a_resignation_announced_without_its_press_is_not_posted_again_by_the_outbox(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's resignation is slow to store (another program holds the database) and Discord
    refuses its press's deferral, so the stored end is announced on its own, drawn slower than
    the outbox's grace: the set end's own claim keeps the outbox off it, so Discord is asked
    for it once (the press's claim is never made; the nonce would only hide a second post)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    asked = await table.reply_text(table.bob, "resign")
    [confirm] = asked.custom_ids()
    drawing, owed_time = next_drawing_waits(monkeypatch, set_ends)  # the set's end
    since = len(table.standin.rest_log)
    expired = table.standin.fail_rest(
        404, seconds=60, code=10062, matching=lambda _m, p: p.endswith("/callback")
    )
    async with foreign_write_lock(table.db_path, 2.5):
        await table.standin.click(asked, confirm, table.bob, wait=False)
        await table.standin.wait_until(lambda: expired.hits >= 1, timeout=10)
    await asyncio.wait_for(drawing.wait(), timeout=10)
    table.standin.end_faults()
    table.advance(timedelta(seconds=30))  # the outbox's turn for the set's end
    await timers_checked(table)  # the outbox has looked at it
    owed_time.set()
    await table.wait_board(lambda m: "resigned" in m.content)
    await nothing_owed(table)
    assert posts_in(table, since) == 1
    assert len([m for m in table.public_messages() if "resigned" in m.content]) == 1


async def test_a_claim_made_after_its_post_ended_leaves_the_board_to_the_outbox(
    table: Harness,
) -> None:
    """A claim made once its post is over (a task outliving it, at shutdown) does not keep the
    outbox off the board for good: the owed board is still posted (before, never)."""
    await table.challenge_accepted(table.alice, table.bob)
    # Answered as one too late is (Unknown interaction), which discord.py does not send again
    # (a 5xx it would, for half a minute): the move's answer fails at once.
    table.standin.fail_rest(
        404, seconds=OUTAGE_SECONDS, code=10062, matching=lambda m, p: "/interactions/" in p
    )
    await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
    )
    assert table.bot is not None
    games = table.bot.services.games

    async def ply() -> int | None:
        game = await games.in_channel(table.channel.id)
        return None if game is None else game.ply

    await eventually(ply, 1)
    game = await games.in_channel(table.channel.id)
    assert game is not None
    with table.bot.flow.outbox.posting() as claim:
        pass
    claim(game.set_id, 1)  # too late: the post it was for is over
    await settled(table)  # the move's answer failed: its own claim is over
    table.standin.end_faults()
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await nothing_owed(table)
    boards = [m for m in table.public_messages() if "played d1-b1" in m.content]
    assert len(boards) == 1


async def test_my_reply_posted_apart_and_deleted_takes_thinking_off_the_line(
    table: Harness,
) -> None:
    """My reply to alice could not be edited into her line (Discord refused the edit), was
    posted apart with its answer lost, and a moderator deleted it before the outbox tried
    again: her line no longer says "I am thinking…" (before, only a reply the outbox posted
    itself took it off)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)

    def edits(method: str, path: str) -> bool:
        return method == "PATCH" and "/messages/" in path

    refused = table.standin.fail_rest(503, seconds=OUTAGE_SECONDS, matching=edits)
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…"), line.content
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    [reply] = [m for m in table.public_messages() if "(defenders) played" in m.content]
    table.standin.delete_message(reply)
    assert refused.hits >= 1  # the edit of her line was refused
    await settled(table, tasks_named=("computer-move-",))  # my turn, every edit refused, is over
    table.standin.end_faults()  # Discord takes edits again
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed reply
    await nothing_owed(table)
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"), timeout=10)


async def test_my_reply_is_posted_when_its_nonce_cannot_be_read(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """My reply must be posted apart (Discord refused the edit of alice's line) and the
    database cannot say its owed board's nonce: it goes out at once with a nonce of
    discord.py's own (before, the failed read skipped the post, left to the outbox)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    assert table.bot is not None

    async def unreadable(set_id: int, ply: int, *, first: bool = False) -> str:
        raise StorageError("database is locked")

    monkeypatch.setattr(table.bot.services.announcements, "nonce", unreadable)

    def edits(method: str, path: str) -> bool:
        return method == "PATCH" and "/messages/" in path

    table.standin.fail_rest(503, seconds=30, matching=edits)
    await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(
        lambda: any("(defenders) played" in m.content for m in table.public_messages()),
        timeout=10,
    )


async def test_my_reply_edited_in_with_its_answer_lost_is_not_posted_again(
    table: Harness,
) -> None:
    """Discord makes the edit of alice's line into my reply but its answer is lost (a 503):
    the line reads as my reply, so no board of its own is posted (before, a second board)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)

    def edits(method: str, path: str) -> bool:
        return method == "PATCH" and "/messages/" in path

    lost = table.standin.lose_answers(503, requests=1, matching=edits)
    line = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: "(defenders) played" in line.content, timeout=10)
    assert lost.hits == 1
    table.advance(timedelta(seconds=30))  # the outbox's turn, were the reply still owed
    await nothing_owed(table)
    replies = [m for m in table.public_messages() if "(defenders) played" in m.content]
    assert [m.id for m in replies] == [line.id]
