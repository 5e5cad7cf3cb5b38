"""A board the flow posts late keeps the nonce it was owed with: the set ending at its ply
meanwhile (an admin's abort from elsewhere) owes the final board anew there, under a nonce of
its own, and the outbox's post of that board is made (it is not returned as the late one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.flow import player_moves
from bot.storage.errors import DatabaseUnavailable
from tests.bot_harness import Harness, next_drawing_waits, running_bot, settled
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


async def final_board_posted(table: Harness) -> list[str]:
    """The outbox's turn (past the grace of the board owed last): the channel's boards."""
    await settled(table)
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    return [m.content for m in table.public_messages() if m.attachments]


async def test_a_moves_board_posted_after_an_abort_at_its_ply_leaves_the_final_board_its_nonce(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /move is slow (deferred privately, its board posted apart) and an admin aborts
    the game just before its board is posted (once the flow found the set still standing), at
    the same instant: the move's board carries the nonce its move owed it with, so the
    outbox's post of the final board is made too, telling both it was aborted (before, the
    move's board took the final board's nonce, and Discord returned it for the outbox's post:
    nobody was told)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    abort_before_posted(table, monkeypatch)
    drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    await table.slash(table.alice, "move", {"move": "d1-b1"})  # its deferral
    await asyncio.wait_for(drawing.wait(), 20)
    go_on.set()
    boards = await final_board_posted(table)
    assert len(boards) == 3, boards  # the first board, the move's, the final one
    assert "aborted" in boards[2].lower(), boards


async def test_my_reply_posted_after_an_abort_at_its_ply_leaves_the_final_board_its_nonce(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """My reply to alice's move is posted apart (Discord refused the edit of her line) and an
    admin aborts the game just before it is posted, at the same instant: my board carries the
    nonce my move owed it with, so the outbox's post of the final board is made too (before,
    my board took its nonce, and Discord returned mine for it)."""
    await my_reply_apart(table, monkeypatch, abort_before_posted=True)


async def test_a_takeback_board_posted_after_an_abort_at_its_ply_leaves_the_final_board_its_nonce(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice takes back her move and my reply with a slow /takeback (deferred privately, its
    board posted apart) and an admin aborts the game just before its board is posted (once the
    flow found the set still standing), at the same instant: the takeback's board carries the
    nonce the takeback owed it with, so the outbox's post of the final board is made too
    (before, it took the final board's)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    reply = await table.move(table.alice, "d1-b1")
    await table.wait_board(lambda m: m.id == reply.id)  # my reply is in it
    assert table.bot is not None
    services = table.bot.services
    undone, go_on = asyncio.Event(), asyncio.Event()
    ask = services.takebacks.ask

    async def held_once_stored(*args: Any, **kwargs: Any) -> Any:
        asked = await ask(*args, **kwargs)
        undone.set()
        await go_on.wait()
        return asked

    monkeypatch.setattr(services.takebacks, "ask", held_once_stored)
    asking = asyncio.create_task(table.slash(table.alice, "takeback"))
    await asyncio.wait_for(undone.wait(), 20)
    abort_before_posted(table, monkeypatch)
    await asking  # deferred privately while held
    go_on.set()
    await table.standin.wait_until(
        lambda: any("took back" in m.content for m in table.public_messages()), timeout=10
    )
    boards = await final_board_posted(table)
    assert "took back" in boards[-2], boards
    assert "aborted" in boards[-1].lower(), boards


async def test_my_reply_found_stored_after_its_write_failed_leaves_the_final_board_its_nonce(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """My move's write answers an error though it was stored (found so on reading again), my
    reply is posted apart, and an admin aborts the game just before it is posted, at the same
    instant: my board carries the nonce my move owed it with, so the outbox's post of the
    final board is made too (before, my board read the final board's nonce when posted)."""
    stored_though_failed(table, monkeypatch)
    await my_reply_apart(table, monkeypatch, abort_before_posted=True)


async def test_my_reply_found_stored_then_aborted_before_its_board_is_read_leaves_the_final_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """My move's write answers an error though it was stored, and an admin aborts the game
    after my move is found stored, before its board is read, and the database fails the look
    at whether the set still stands (so my board is posted): my board is the one my move
    owed, the one before the final board's, so the outbox's post of the final board is made
    too (read as the board owed last, my board would take the final board's nonce, and
    nobody would be told of the abort)."""
    assert table.bot is not None
    games = table.bot.services.games
    stored_though_failed(table, monkeypatch)
    read = games.with_move_board

    get = games.get

    async def unreadable(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(games, "get", get)
        raise DatabaseUnavailable("the database is down for a moment")

    async def aborted_first(*args: Any, **kwargs: Any) -> Any:
        await games.abort(table.channel.id)
        monkeypatch.setattr(games, "get", unreadable)
        return await read(*args, **kwargs)

    monkeypatch.setattr(games, "with_move_board", aborted_first)
    await my_reply_apart(table, monkeypatch, abort_before_posted=False)


def abort_before_posted(table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next board the flow posts under the nonce its move (or takeback) owed it with has
    its game aborted by an admin just before it is posted, once the flow found the set still
    standing."""
    assert table.bot is not None
    flow, games = table.bot.flow, table.bot.services.games
    nonce = flow.owed_nonce

    async def aborted_first(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(flow, "owed_nonce", nonce)
        await games.abort(table.channel.id)
        return await nonce(*args, **kwargs)

    monkeypatch.setattr(flow, "owed_nonce", aborted_first)


def stored_though_failed(table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """My next move's write is stored, then answers an error (the answer to its commit lost)."""
    assert table.bot is not None
    games = table.bot.services.games
    play = games.play_computer_move

    async def stored_then_failed(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(games, "play_computer_move", play)
        await play(*args, **kwargs)
        raise DatabaseUnavailable("the answer to its commit was lost")

    monkeypatch.setattr(games, "play_computer_move", stored_then_failed)


async def my_reply_apart(
    table: Harness, monkeypatch: pytest.MonkeyPatch, *, abort_before_posted: bool
) -> None:
    """alice challenges me and plays d1-b1 while Discord refuses edits (404 Unknown Message),
    so my reply is posted apart (with ``abort_before_posted``, an admin aborts the game just
    before it is posted, once the flow found the set still standing, at the same instant);
    once the outbox had its turn, the channel's last boards are my reply's and the final
    one."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    assert table.bot is not None
    flow = table.bot.flow
    nonce = flow.board_nonce

    async def aborted_first(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(flow, "board_nonce", nonce)
        await games.abort(table.channel.id)
        return await nonce(*args, **kwargs)

    games = table.bot.services.games
    if abort_before_posted:
        monkeypatch.setattr(flow, "board_nonce", aborted_first)

    def edits(method: str, path: str) -> bool:
        return method == "PATCH" and "/messages/" in path

    table.standin.fail_rest(404, seconds=30, code=10008, matching=edits)  # Unknown Message
    await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(
        lambda: any("(defenders) played" in m.content for m in table.public_messages()),
        timeout=10,
    )
    table.standin.end_faults()
    boards = await final_board_posted(table)
    assert "aborted" in boards[-1].lower(), boards
    assert "(defenders) played" in boards[-2], boards
