"""A board drawn while its set moves on (an admin's /abort, a takeback) is not posted after
the board that moved it on: a member's move (typed or picked) and an accepted takeback are told
in one line, pinging nobody, without buttons; my reply to a move taken back meanwhile is told in
the player's line."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from bot.flow import computer_turns as turns
from bot.flow import game_flow, player_moves
from bot.flow import takebacks as takebacks_flow
from tests.bot_harness import (
    HANDLER_TASKS,
    Harness,
    move_button,
    next_drawing_waits,
    running_bot,
    settled,
)
from tests.discord_standin import DiscordStandin
from tests.discord_standin.recorder import StoredMessage
from tests.test_bot_failed_reads import games_fail_once_in
from tests.test_bot_features import ATTACKERS_WIN
from tests.test_bot_takeback import answer_button, ask

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


async def aborted_while_drawn(
    table: Harness, drawing: asyncio.Event, go_on: asyncio.Event, doing: Awaitable[object]
) -> StoredMessage:
    """An admin aborts the game once ``drawing`` is set (``doing`` under way, a board drawn),
    which is then drawn (``go_on``); the aborted board."""
    acting = asyncio.ensure_future(doing)
    await asyncio.wait_for(drawing.wait(), 20)
    aborted = await table.abort(table.admin)
    go_on.set()
    await acting
    return aborted


async def told_after(table: Harness, aborted: StoredMessage, line: str) -> None:
    """The channel shows ``line`` alone (no board, no buttons, nobody pinged), and the aborted
    board is its last board, with nothing after it asking anyone to move."""
    await table.standin.wait_until(
        lambda: any(m.content == line for m in table.public_messages()), timeout=10
    )
    await settled(table)
    [told] = [m for m in table.public_messages() if m.content.startswith(line)]
    assert not told.attachments
    assert not told.custom_ids()
    assert told.pinged_user_ids() == set()
    boards = [m for m in table.public_messages() if m.attachments]
    assert boards[-1].id == aborted.id, [m.content for m in boards]
    asking = [
        m.content
        for m in table.public_messages()
        if "your move" in m.content and m.created_at >= aborted.created_at
    ]
    assert not asking, asking


async def test_a_move_typed_while_the_set_is_aborted_is_told_not_shown_as_a_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin aborts alice and bob's game while the board after alice's /move is drawn: its
    answer, posted apart, tells her move in one line, and the aborted board stays the last
    (before, "@bob, your move" with live buttons after it, pinging bob)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    moving = table.slash(table.alice, "move", {"move": "d1-b1"})  # deferred while drawn
    aborted = await aborted_while_drawn(table, drawing, go_on, moving)
    await told_after(table, aborted, "**alice** (attackers) played d1-b1.")


async def test_a_move_picked_while_the_set_is_aborted_is_told_not_shown_as_a_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin aborts the game while the board after alice's picked d1-b1 is drawn: its
    message tells her move in one line (before, a board asking bob to move, pinging him)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    opened = await table.standin.click(board, move_button(board), table.alice)
    picker = await opened.wait_original()
    [pieces] = picker.custom_ids()
    chosen = await table.standin.select(picker, pieces, table.alice, ["d1"])
    step_two = await chosen.wait_original()
    [where] = step_two.custom_ids()
    drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    pressed = table.standin.select(step_two, where, table.alice, ["d1-b1"])
    aborted = await aborted_while_drawn(table, drawing, go_on, pressed)
    await told_after(table, aborted, "**alice** (attackers) played d1-b1.")


async def test_a_takeback_accepted_while_the_set_is_aborted_is_told_not_shown_as_a_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback and an admin aborts the game while the board after it is
    drawn: the takeback is told in one line after the aborted board (before, a board asking
    alice to move again, pinging her, with live buttons)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    drawing, go_on = next_drawing_waits(monkeypatch, takebacks_flow)
    accepting = table.standin.click(request, answer_button(request, "accept"), table.bob)
    aborted = await aborted_while_drawn(table, drawing, go_on, accepting)
    await told_after(table, aborted, "alice's move 1 was taken back.")


async def test_my_reply_to_a_move_taken_back_meanwhile_is_told_in_the_line(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice takes back her move and my reply while my reply's board is drawn: the board
    after the takeback is the channel's last, and her line tells my move in place of "I am
    thinking…" (before, my board for the position taken back was edited into it, asking her
    to move there with live buttons)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    drawing, go_on = next_drawing_waits(monkeypatch, turns)
    line = await table.move(table.alice, "d1-b1")
    await asyncio.wait_for(drawing.wait(), 20)
    await table.slash(table.alice, "takeback")
    taken_back = await table.wait_board(lambda m: "took back" in m.content)
    go_on.set()
    await settled(table, tasks_named=(*HANDLER_TASKS, "computer-move-"))
    boards = [m for m in table.public_messages() if m.attachments]
    assert boards[-1].id == taken_back.id, [m.content for m in boards]
    played, mine = line.content.split("\n")
    assert played == "**alice** (attackers) played d1-b1."
    assert mine.startswith("**Brandubh (level 3)** (defenders) played "), mine
    assert not line.attachments
    assert not line.custom_ids()


async def test_a_move_whose_set_cannot_be_read_again_is_shown_as_its_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database fails the look at alice and bob's set before her move's board is posted:
    the board is posted as drawn, asking bob to move with its buttons, not lost nor owed (pins
    behaviour that works: a failed read there must not cost the board)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    failed = games_fail_once_in(table, monkeypatch, "moved_on")
    board = await table.move(table.alice, "d1-b1")
    assert failed == ["moved_on"]
    assert board.attachments
    assert "your move as the defenders" in board.content
    assert board.custom_ids()


async def test_a_board_shown_while_the_set_is_aborted_comes_without_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol's /board is drawn while an admin aborts the game: it shows the position, says the
    game is over, asks nobody to move and has no buttons (before, "@alice, your move" with live
    buttons after the aborted board)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    drawing, go_on = next_drawing_waits(monkeypatch, game_flow)  # /board's own drawing
    shown = await table.standin.slash(table.guild, table.channel, table.carol, "board", wait=False)
    await asyncio.wait_for(drawing.wait(), 20)
    await table.abort(table.admin)
    go_on.set()
    await table.standin.wait_answered(shown, timeout=10)
    board = await shown.wait_original()
    await settled(table)
    assert board.content == "That game is over."
    assert board.attachments
    assert not board.custom_ids()
    assert board.pinged_user_ids() == set()


async def test_a_board_shown_while_the_set_ends_shows_the_next_sets_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol's /board is drawn while alice's move wins set 1 of two: it shows set 2's opening
    board, with its buttons, not set 1's position asking for a move (before, set 1's board with
    live buttons after the set's end)."""
    await table.challenge_accepted(table.alice, table.bob, sets=2)
    for ply, text in enumerate(ATTACKERS_WIN[:-1]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    drawing, go_on = next_drawing_waits(monkeypatch, game_flow)  # /board's own drawing
    shown = await table.standin.slash(table.guild, table.channel, table.carol, "board", wait=False)
    await asyncio.wait_for(drawing.wait(), 20)
    ending = await table.move(table.alice, ATTACKERS_WIN[-1])
    assert "Set 2 begins" in ending.content
    go_on.set()
    await table.standin.wait_answered(shown, timeout=10)
    board = await shown.wait_original()
    await settled(table)
    assert board.content.startswith("No move yet."), board.content
    assert board.attachments
    assert board.custom_ids()
    assert board.pinged_user_ids() == set()
