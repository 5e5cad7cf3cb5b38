"""A move that ends a set, stored but whose post cannot be made (drawing the board fails): the
outbox owes the board, and the match goes on all the same — the computer opens the next set."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.ai_pool import AIPool
from bot.flow.posts import board_post
from engine import Game
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

KING_ESCAPES = ["f4-f5", "c4-c1", "g4-g5", "d4-c4", "f5-f6", "c4-c7", "g5-g6", "c7-a7"]
"""Set 1, alice attacking: the defenders' last move, the king's c7-a7, wins it."""

KING_CAPTURED = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""Set 1, alice attacking: her last move, b1-b3, captures the king."""


class ScriptedPool(AIPool):
    """A computer opponent that plays ``line`` while the set follows it, else its first legal
    move (as it opens set 2)."""

    def __init__(self, line: list[str]) -> None:
        super().__init__(workers=1)
        self.line = line

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        played = [str(record.move) for record in game.records]
        if 0 < len(played) < len(self.line) and played == self.line[: len(played)]:
            return self.line[len(played)]
        return str(game.legal_moves()[0])


def fails_once(drawing: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``drawing`` (a board's post), failing at its first call as Pillow might."""
    failed: list[bool] = []

    async def drawn(*args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(True)
            raise OSError("cannot draw the board")
        return await drawing(*args, **kwargs)

    return drawn


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running, alice attacking in set 1 of two against the computer."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        await harness.slash(harness.alice, "challenge", {"opponent": harness.me})
        await harness.wait_board(lambda m: "your move as the attackers" in m.content)
        yield harness


async def alice_plays(table: Harness, moves: list[str]) -> None:
    """alice plays her ``moves`` (every other one, from the first), each answered by the
    computer before the next."""
    for text in moves[::2]:
        line = await table.move(table.alice, text)
        await table.standin.wait_until(
            partial(answered, line), waiting_for=f"the computer's reply to {text}"
        )


def answered(line: StoredMessage) -> bool:
    """Whether alice's ``line`` became the computer's reply."""
    return "(defenders) played" in line.content


def opens_set_2(message: StoredMessage) -> bool:
    """Whether ``message`` is the computer's opening move of set 2, alice to reply."""
    return "Set 2 of 2" in message.content and "(attackers) played" in message.content


async def test_a_set_the_computers_move_ends_starts_the_next_though_its_post_failed(
    table: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The computer's move wins set 1 but drawing its board fails: set 2 begins all the same,
    the computer, now attacking, opening it (it waited for a restart)."""
    assert table.bot is not None
    table.bot.ai = ScriptedPool(KING_ESCAPES)
    await alice_plays(table, KING_ESCAPES[:6])
    monkeypatch.setattr("bot.flow.computer_turns.board_post", fails_once(board_post))
    await table.move(table.alice, KING_ESCAPES[6])
    opening = await table.wait_board(opens_set_2)
    assert "your move as the defenders" in opening.content
    [failed] = [r for r in caplog.records if "its post failed" in r.getMessage()]
    assert failed.exc_info is not None
    assert "cannot draw" in str(failed.exc_info[1])


@pytest.mark.parametrize(
    "drawing",
    [
        pytest.param("bot.flow.player_moves.board_post", id="her-board"),
        pytest.param("bot.flow.set_ends.board_post", id="set-2s-first-board"),
    ],
)
async def test_a_set_a_players_move_ends_starts_the_next_though_its_post_failed(
    table: Harness, monkeypatch: pytest.MonkeyPatch, drawing: str
) -> None:
    """alice's move wins set 1 but drawing its board, or set 2's first board beside it, fails:
    set 2 begins all the same, the computer, now attacking, opening it (it waited for a
    restart), and she is told, privately, that her move is played and its board follows (she
    was asked to try a move already played)."""
    assert table.bot is not None
    table.bot.ai = ScriptedPool(KING_CAPTURED)
    await alice_plays(table, KING_CAPTURED[:4])
    monkeypatch.setattr(drawing, fails_once(board_post))
    answer = await table.move(table.alice, KING_CAPTURED[4])
    assert answer.content == (
        f"Your move {KING_CAPTURED[4]} is played, but its board could not be posted just now: "
        "it follows shortly."
    )
    assert answer.ephemeral
    opening = await table.wait_board(opens_set_2)
    assert "your move as the defenders" in opening.content
