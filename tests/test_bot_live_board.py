"""One live board: only the newest board has buttons; one message per round against the computer."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.ai_pool import AIPool
from bot.flow import game_flow, player_moves, set_ends
from bot.views import common as view_common
from bot.views import confirm as confirm_views
from engine import Game
from tests.bot_harness import (
    Harness,
    eventually,
    move_button,
    next_drawing_waits,
    running_bot,
    timers_checked,
)
from tests.discord_standin import DiscordStandin, FakeMember, StoredMessage
from tests.test_bot_refusals import SHUFFLE

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


def boards(table: Harness) -> list[StoredMessage]:
    """The public messages with a board picture, oldest first."""
    return [
        m
        for m in table.public_messages()
        if any(a.filename.endswith(".png") for a in m.attachments)
    ]


def live_board(db_path: Path) -> int | None:
    """The board the bot has recorded as live, read from another connection."""
    with sqlite3.connect(db_path, timeout=10) as raw:
        row = raw.execute("SELECT message_id FROM live_boards").fetchone()
    return None if row is None else int(row[0])


async def until_live(table: Harness, message_id: int) -> None:
    """Wait until the bot has recorded ``message_id`` as the live board (just after posting)."""
    await eventually(lambda: asyncio.to_thread(live_board, table.db_path), message_id)


def forget_live_boards(db_path: Path) -> None:
    """Remove what the bot knows of live boards, from another connection (off the event loop)."""
    with sqlite3.connect(db_path, timeout=10) as raw:
        raw.execute("DELETE FROM live_boards")


async def test_only_the_newest_board_has_buttons(table: Harness) -> None:
    """After a move the previous board loses its Move button; the new one has it."""
    first = await table.challenge_accepted(table.alice, table.bob)
    assert move_button(first)
    second = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: first.components == [], timeout=15)
    assert move_button(second)
    assert [b.id for b in boards(table) if b.components] == [second.id]


async def test_a_press_on_an_old_board_points_at_the_live_one(table: Harness) -> None:
    """A board posted before live boards existed keeps its button; a press links the live one."""
    first = await table.challenge_accepted(table.alice, table.bob)
    await until_live(table, first.id)
    await asyncio.to_thread(forget_live_boards, table.db_path)  # as if an older bot posted it
    second = await table.move(table.alice, "d1-b1")
    await until_live(table, second.id)
    assert first.components, "a board the bot never recorded keeps its buttons"
    pressed = await table.standin.click(first, move_button(first), table.bob)
    reply = await pressed.wait_original()
    assert reply.ephemeral
    assert reply.content == (
        "This board is out of date: play on the newest one, "
        f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{second.id}"
    )


async def resign_set(table: Harness, who: FakeMember) -> StoredMessage:
    """``who`` resigns the set being played; returns its final board."""
    asked = await table.reply_text(who, "resign")
    started = asked.created_at
    await table.standin.click(asked, asked.custom_ids()[0], who)
    return await table.wait_board(lambda m: "resigned" in m.content and m.created_at >= started)


async def set_1_board_kept_its_buttons(table: Harness) -> tuple[StoredMessage, int]:
    """A match of two sets whose first board kept its buttons (posted, say, before live boards
    existed), and set 1 resigned by bob: set 2 is being played. Returns that first board and
    set 2's live board."""
    first = await table.challenge_accepted(table.alice, table.bob, sets=2)
    await until_live(table, first.id)
    await asyncio.to_thread(forget_live_boards, table.db_path)
    await table.move(table.alice, "d1-b1")
    over = await resign_set(table, table.bob)
    set_2 = await table.wait_board(
        lambda m: m.id >= over.id and any(c.startswith("move:") for c in m.custom_ids())
    )
    await until_live(table, set_2.id)
    assert first.components, "a board the bot never recorded keeps its buttons"
    return first, set_2.id


async def test_a_press_on_set_1s_board_during_set_2_says_where_set_2_is(table: Harness) -> None:
    """bob presses Move on a board of set 1 while set 2 is played: the match is not over, so
    he reads that set 1 is, and where set 2's newest board is."""
    first, live = await set_1_board_kept_its_buttons(table)
    pressed = await table.standin.click(first, move_button(first), table.bob)
    reply = await pressed.wait_original()
    assert reply.ephemeral
    assert reply.content == (
        "This board is from set 1, which is over: set 2 is played on the newest board, "
        f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{live}"
    )


async def set_2_after_alice_resigned(table: Harness) -> str:
    """alice resigns set 1 of the match being played; returns what a press from set 1 then
    reads: set 1 is over, and where set 2's newest board is."""
    over = await resign_set(table, table.alice)
    set_2 = await table.wait_board(
        lambda m: m.id >= over.id and any(c.startswith("move:") for c in m.custom_ids())
    )
    await until_live(table, set_2.id)
    return (
        "This board is from set 1, which is over: set 2 is played on the newest board, "
        f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{set_2.id}"
    )


async def test_play_it_anyway_from_set_1_during_set_2_says_where_set_2_is(
    table: Harness,
) -> None:
    """bob's "Play it anyway" under a repetition warning of set 1, pressed once set 2 is
    played, says set 1 is over and where set 2 is, as the board's own buttons do."""
    await table.challenge_accepted(table.alice, table.bob, sets=2)
    for ply, text in enumerate(SHUFFLE):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    warning = await table.reply_text(table.bob, "move", {"move": "e5-e4"})
    assert "third time" in warning.content, warning.content
    told = await set_2_after_alice_resigned(table)
    posts = len(table.public_messages())
    [confirm] = warning.custom_ids()
    pressed = await (await table.standin.click(warning, confirm, table.bob)).wait_original()
    assert pressed.ephemeral
    assert pressed.content == told
    assert len(table.public_messages()) == posts


async def test_a_resignation_confirmed_during_set_2_says_where_set_2_is(
    table: Harness,
) -> None:
    """bob asked to resign set 1 and confirms once alice has resigned it and set 2 is played:
    he reads that set 1 is over and where set 2 is, and set 2 is not resigned."""
    await table.challenge_accepted(table.alice, table.bob, sets=2)
    asked = await table.reply_text(table.bob, "resign")
    told = await set_2_after_alice_resigned(table)
    posts = len(table.public_messages())
    [confirm] = asked.custom_ids()
    pressed = await (await table.standin.click(asked, confirm, table.bob)).wait_original()
    assert pressed.ephemeral
    assert pressed.content == told
    assert len(table.public_messages()) == posts


async def test_a_press_on_a_board_of_a_finished_match_says_the_match_is_over(
    table: Harness,
) -> None:
    """Once set 2 is over too, a press on set 1's board says the match is over (not a game:
    the match had two)."""
    first, _ = await set_1_board_kept_its_buttons(table)
    await resign_set(table, table.alice)
    pressed = await table.standin.click(first, move_button(first), table.bob)
    reply = await pressed.wait_original()
    assert reply.ephemeral
    assert reply.content == "This board belongs to a match that is over."


async def test_a_takeback_on_set_1s_board_asks_nothing_in_set_2(table: Harness) -> None:
    """With no live board known (boards of an older bot), bob's Takeback under set 1's board
    while set 2 is played says set 1 is over, in either form of the button: it asks alice
    nothing about his move of set 2."""
    first, _ = await set_1_board_kept_its_buttons(table)
    moved = await table.move(table.bob, "d1-b1")  # bob attacks in set 2
    await until_live(table, moved.id)
    await asyncio.to_thread(forget_live_boards, table.db_path)
    posts = len(table.public_messages())
    [button] = [c for c in first.custom_ids() if c.startswith("takeback:")]
    earlier = ":".join(button.split(":")[:2])  # takeback:<set id>, as the first boards had it
    for pressed in (
        await table.standin.click(first, button, table.bob),
        await table.standin.forged_click(first, earlier, table.bob),
    ):
        reply = await pressed.wait_original()
        assert reply.ephemeral, reply.content
        assert reply.content == (
            "This board is from set 1, which is over: set 2 is played on the newest board."
        )
    assert len(table.public_messages()) == posts, "alice was asked about set 2's move"


async def test_board_command_pings_nobody(table: Harness) -> None:
    """A spectator's /board shows whose turn it is without notifying anyone."""
    await table.challenge_accepted(table.alice, table.bob)
    shown = await table.reply_text(table.carol, "board")
    assert f"<@{table.alice.id}>" in shown.content
    assert shown.pinged_user_ids() == set()


async def test_a_board_drawn_while_a_move_lands_does_not_take_the_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol's /board is still being drawn when alice's move lands: the board after the move
    keeps the buttons, and carol's picture of the position before it comes without any."""
    await table.challenge_accepted(table.alice, table.bob)
    drawing, moved = next_drawing_waits(monkeypatch, game_flow)  # /board's own drawing
    shown = await table.standin.slash(table.guild, table.channel, table.carol, "board", wait=False)
    await asyncio.wait_for(drawing.wait(), timeout=15)
    after = await table.move(table.alice, "d1-b1")
    await until_live(table, after.id)
    moved.set()
    await table.standin.wait_answered(shown, timeout=10)
    old = await shown.wait_original()
    await table.standin.wait_until(lambda: old.components == [], timeout=15)
    assert old.content.startswith("No move yet.")
    assert [b.id for b in boards(table) if b.components] == [after.id]
    assert await asyncio.to_thread(live_board, table.db_path) == after.id


async def test_a_board_posted_after_the_next_move_does_not_take_its_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's move is stored but her board is slow to draw; bob's /move lands and his board
    is out first: his board, the newest, keeps the buttons, and alice's, out of date when it
    arrives, comes without any (before, hers took them and pointed at itself)."""
    await table.challenge_accepted(table.alice, table.bob)
    drawing, moved = next_drawing_waits(monkeypatch, player_moves)  # alice's drawing
    alices = await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
    )
    await asyncio.wait_for(drawing.wait(), timeout=15)
    bobs = await table.move(table.bob, "c4-c2")
    await until_live(table, bobs.id)
    moved.set()
    await table.standin.wait_answered(alices, timeout=10)
    await table.standin.wait_until(
        lambda: any("played d1-b1" in b.content for b in boards(table)), timeout=10
    )
    late = next(b for b in boards(table) if "played d1-b1" in b.content)
    await table.standin.wait_until(lambda: late.components == [], timeout=15)
    assert [b.id for b in boards(table) if b.components] == [bobs.id]
    assert await asyncio.to_thread(live_board, table.db_path) == bobs.id


async def test_a_board_slow_to_post_is_not_posted_again_by_the_outbox(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's board is still being drawn when the outbox's time for it comes (Discord or
    the drawing slow for over 10 s): it is posted once, as her move's answer, not also by
    the outbox."""
    await table.challenge_accepted(table.alice, table.bob)
    drawing, owed_time = next_drawing_waits(monkeypatch, player_moves)  # alice's drawing
    moved = await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
    )
    await asyncio.wait_for(drawing.wait(), timeout=15)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed board
    await timers_checked(table)  # the outbox has looked at it
    owed_time.set()
    await table.standin.wait_answered(moved, timeout=10)
    await table.wait_board(lambda m: "played d1-b1" in m.content)
    await timers_checked(table)  # the outbox has looked again since it was out
    assert [b.content.splitlines()[0] for b in boards(table)][1:] == [
        "**alice** (attackers) played d1-b1."
    ]


async def test_a_set_end_slow_to_post_is_not_posted_again_when_the_move_board_is_out(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's board is slow to draw, bob resigns meanwhile and his set's end is slow to post:
    alice's move coming out first (told in a line, her set over) leaves the set's end to bob's
    post, not also to the outbox (before, her board's claim and his, on the same move, ended
    together with hers)."""
    await table.challenge_accepted(table.alice, table.bob)
    assert table.bot is not None
    flow = table.bot.flow
    posting, posted = asyncio.Event(), asyncio.Event()
    post = flow.post_in_channel

    async def posted_after_the_outbox_looked(*args: Any, **kwargs: Any) -> int | None:
        posting.set()
        await posted.wait()
        return await post(*args, **kwargs)

    drawing, moved = next_drawing_waits(monkeypatch, player_moves)  # alice's drawing
    moving = await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
    )
    await asyncio.wait_for(drawing.wait(), timeout=15)
    monkeypatch.setattr(flow, "post_in_channel", posted_after_the_outbox_looked)
    asked = await table.reply_text(table.bob, "resign")
    [confirm] = asked.custom_ids()
    await table.standin.click(asked, confirm, table.bob, wait=False)
    await asyncio.wait_for(posting.wait(), timeout=15)
    moved.set()  # alice's move is out (told in a line: her set ended), and marked
    await table.standin.wait_answered(moving, timeout=10)
    await table.standin.wait_until(
        lambda: any("played d1-b1" in m.content for m in table.public_messages()), timeout=10
    )
    table.advance(timedelta(seconds=30))  # the outbox's turn for the set's end
    await timers_checked(table)  # the outbox has looked at it
    posted.set()
    await table.wait_board(lambda m: "resigned" in m.content)
    await timers_checked(table)  # the outbox has looked again since it was out
    assert len([b for b in boards(table) if "resigned" in b.content]) == 1


async def test_a_set_end_slow_to_draw_is_posted_once(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob resigns and his set's final board is still being drawn when the outbox's time for
    it comes: it is posted once, as his resignation's answer, not also by the outbox."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    asked = await table.reply_text(table.bob, "resign")
    [confirm] = asked.custom_ids()
    drawing, owed_time = next_drawing_waits(monkeypatch, set_ends)  # the set's end
    await table.standin.click(asked, confirm, table.bob, wait=False)
    await asyncio.wait_for(drawing.wait(), timeout=15)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the set's end
    await timers_checked(table)  # the outbox has looked at it
    owed_time.set()
    await table.wait_board(lambda m: "resigned" in m.content)
    await timers_checked(table)  # the outbox has looked again since it was out
    assert len([b for b in boards(table) if "resigned" in b.content]) == 1


async def test_a_set_end_whose_question_is_slow_to_edit_is_posted_once(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's resignation is stored, but the edit of his question into "You resigned" is slow
    (Discord slow) past the outbox's time for the set's end: that is posted once."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    editing, owed_time = asyncio.Event(), asyncio.Event()
    edit = view_common.update_message

    async def edited_after_the_outbox_looked(*args: Any, **kwargs: Any) -> None:
        editing.set()
        await owed_time.wait()
        await edit(*args, **kwargs)

    asked = await table.reply_text(table.bob, "resign")
    [confirm] = asked.custom_ids()
    monkeypatch.setattr(confirm_views, "update_message", edited_after_the_outbox_looked)
    await table.standin.click(asked, confirm, table.bob, wait=False)
    await asyncio.wait_for(editing.wait(), timeout=15)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the set's end
    await timers_checked(table)  # the outbox has looked at it
    owed_time.set()
    await table.wait_board(lambda m: "resigned" in m.content)
    await timers_checked(table)  # the outbox has looked again since it was out
    assert len([b for b in boards(table) if "resigned" in b.content]) == 1


async def test_a_round_against_the_computer_is_one_message(table: Harness) -> None:
    """The player's move is acknowledged, then that message becomes the board with both moves."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    before = len(table.public_messages())
    reply = await table.move(table.alice, "d1-b1")
    assert "I am thinking" in reply.content
    assert reply.pinged_user_ids() == set()
    await table.standin.wait_until(lambda: bool(reply.attachments), timeout=10)
    assert len(table.public_messages()) == before + 1
    lines = reply.content.splitlines()
    assert lines[0] == "**alice** (attackers) played d1-b1."
    assert "(defenders) played" in lines[1]
    assert f"<@{table.alice.id}>, your move" in reply.content
    assert move_button(reply)


class WaitingPool(AIPool):
    """A computer opponent that thinks until the test lets it answer."""

    def __init__(self) -> None:
        super().__init__(workers=1)
        self.go = asyncio.Event()

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        await self.go.wait()
        return str(game.legal_moves()[0])


async def test_moving_while_the_computer_thinks_is_refused_without_a_ping(
    table: Harness,
) -> None:
    """alice moving again before the computer replied is told it is thinking; nobody pinged."""
    assert table.bot is not None
    pool = WaitingPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.move(table.alice, "d1-b1")
    early = await table.move(table.alice, "d2-c2")
    assert early.ephemeral
    assert early.content == "I am still thinking about my move: wait for my reply."
    pool.go.set()


async def test_a_set_change_is_one_message(table: Harness) -> None:
    """The set-ending move posts one message: set 1's last board and set 2's first board."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN[:-1]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    before = len(table.public_messages())
    last = await table.move(table.alice, ATTACKERS_WIN[-1])
    assert len(table.public_messages()) == before + 1
    assert "is over" in last.content
    assert "Set 2 begins" in last.content
    final, opening = (a.filename for a in last.attachments)
    assert re.fullmatch(r"end-\d+\.png", final), final  # named after set 1, which it ends
    assert opening == "set-2.png"
    assert move_button(last)
