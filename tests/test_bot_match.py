"""A whole match through Discord: /challenge, Accept, moves, set 2 with sides swapped, ratings."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine import Game, Reason, Side
from tests.bot_harness import Harness, move_button, png_size, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""The king walks into b4 and is taken between b3 and b5 (5 moves)."""
DEFENDERS_WIN = ["d1-b1", "d3-a3", "d2-a2", "d4-d1", "b1-c1", "d1-g1"]
"""The king leaves by the emptied d-file and reaches the corner g1 (6 moves)."""


def test_the_scripted_games_end_as_the_tests_expect() -> None:
    """The move lists used below really are wins for the side the tests say."""
    attack = Game.from_moves(ATTACKERS_WIN)
    assert attack.outcome is not None
    assert attack.outcome.winner is Side.ATTACKERS
    assert attack.outcome.reason is Reason.KING_CAPTURED
    defence = Game.from_moves(DEFENDERS_WIN)
    assert defence.outcome is not None
    assert defence.outcome.winner is Side.DEFENDERS


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def play_set(table: Harness, moves: list[str], attacker: object, defender: object) -> None:
    """Play ``moves`` alternately, attacker first, each through /move."""
    for ply, text in enumerate(moves):
        who = attacker if ply % 2 == 0 else defender
        reply = await table.move(who, text)  # type: ignore[arg-type]
        assert not reply.ephemeral, reply.content
        assert f"played {text}" in reply.content


async def test_full_two_set_match_to_the_leaderboard(table: Harness) -> None:
    """alice beats bob in both sets; the match result and ratings reach the leaderboard."""
    first_board = await table.challenge_accepted(table.alice, table.bob)
    assert f"<@{table.alice.id}>, your move as the attackers" in first_board.content
    assert "**Brandubh (World Tafl Federation)** begins." in first_board.content
    assert png_size(first_board)[0] >= 300
    await play_set(table, ATTACKERS_WIN, table.alice, table.bob)
    set_two = await table.wait_board(lambda m: "Set 2 begins" in m.content)
    assert f"<@{table.bob.id}>, your move as the attackers" in set_two.content
    await play_set(table, DEFENDERS_WIN, table.bob, table.alice)
    last = table.public_messages()[-2:]
    ending = "\n".join(m.content for m in last)
    assert "Match over" in ending
    assert f"<@{table.alice.id}> wins the match 2–0" in ending
    assert "Ratings:" in ending
    # Two games in, both ratings are still provisional: shown with "?" as on the leaderboard.
    assert re.search(r"alice 1\d{3}\? → 1\d{3}\? \(\+\d+\)", ending), ending
    board = await table.reply_text(table.carol, "leaderboard")
    [embed] = board.embeds
    lines = embed["description"].splitlines()
    assert "alice" in lines[0]
    assert "bob" in lines[1]
    assert "1 match won" in lines[0]
    assert "0 matches won" in lines[1]
    assert "2W 0L ·" in lines[0], "no draws column while nobody has drawn"
    assert "? ·" in lines[0], "two games leave a rating provisional, shown as 1720?"


async def test_every_board_mentions_the_player_to_move_and_has_alt_text(table: Harness) -> None:
    """After a move the board names and pings whoever moves next, with a described picture."""
    await table.challenge_accepted(table.alice, table.bob)
    reply = await table.move(table.alice, "D1 b1")
    assert f"<@{table.bob.id}>, your move as the defenders" in reply.content
    [picture] = reply.attachments
    assert picture.description
    assert move_button(reply).startswith("move:")
