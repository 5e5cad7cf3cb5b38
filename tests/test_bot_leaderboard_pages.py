"""/leaderboard's Previous and Next while ratings move: a page turns from the row it ended (or
began) on, so nobody is listed twice or skipped, and each rank is the one the player has now.
Buttons posted before (an offset in their id) still turn pages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.services.domain import StandingKey
from bot.views.leaderboard import LeaderboardButton
from engine import RULESETS
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin, StoredMessage
from tests.test_bot_busy_server import ESTABLISHED, LINE, rated

pytest_plugins = ["tests.discord_standin.fixtures"]

FIRST = 10_000
"""The user id of the best rated player; the next best is FIRST + 1, and so on."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a fresh server."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def ladder(table: Harness, players: int) -> StoredMessage:
    """``players`` established players rated 1600, 1590, 1580…, and carol's /leaderboard."""
    await rated(table, {FIRST + n: (1600.0 - 10 * n, ESTABLISHED) for n in range(players)})
    return await table.reply_text(table.carol, "leaderboard")


async def rerate(table: Harness, user_id: int, rating: float) -> None:
    """``user_id``'s rating becomes ``rating`` (a game of theirs ended meanwhile)."""
    assert table.bot is not None
    async with table.bot.services.database.transaction() as db:
        await db.execute(
            "UPDATE ratings SET rating = ? WHERE guild_id = ? AND user_id = ?",
            (rating, table.guild.id, user_id),
        )


def listed(message: StoredMessage) -> list[tuple[int, int]]:
    """The (rank, user id) of each line of the page the message shows."""
    lines = str(message.embeds[0]["description"]).splitlines()
    found = [LINE.match(line) for line in lines]
    return [(int(m[1]), FIRST + int(m[2]) % 10_000) for m in found if m is not None]


async def press(table: Harness, message: StoredMessage, label: str) -> None:
    """carol presses the message's Previous or Next."""
    await table.standin.click(message, str(message.button(label)["custom_id"]), table.carol)


async def test_a_player_falling_from_page_one_does_not_hide_the_first_of_page_two(
    table: Harness,
) -> None:
    """20 players; the 3rd drops to last after page 1 was shown: Next lists the 11th to the
    20th as first shown, the 11th now ranked 10th (by offset, the 11th was skipped)."""
    board = await ladder(table, 20)
    assert listed(board) == [(n + 1, FIRST + n) for n in range(10)]
    await rerate(table, FIRST + 2, 1000.0)
    await press(table, board, "Next")
    assert listed(board) == [(n, FIRST + n) for n in range(10, 20)]


async def test_a_player_rising_to_page_one_does_not_repeat_its_last_line(table: Harness) -> None:
    """20 players; the 16th rises to first after page 1 was shown: Next lists the 11th to the
    20th but him, those he passed each ranked one lower than before (by offset, the 10th came
    again)."""
    board = await ladder(table, 20)
    await rerate(table, FIRST + 15, 2000.0)
    await press(table, board, "Next")
    assert listed(board) == [(n + 1 + (n < 15), FIRST + n) for n in range(10, 20) if n != 15]
    assert "Players 12–20 of 20" in str(board.embeds[0]["footer"]["text"])


async def test_previous_lists_the_players_right_before_the_page(table: Harness) -> None:
    """25 players paged to the third page (21st to 25th); the 4th drops to last: Previous
    lists the ten right before the 21st, the 11th to the 20th, each ranked one higher. Previous
    is off on the top page and Next on the last, both on where there is more each way."""
    board = await ladder(table, 25)
    assert board.button("Previous").get("disabled")  # the top: nothing before it
    await press(table, board, "Next")
    await press(table, board, "Next")
    assert listed(board) == [(n + 1, FIRST + n) for n in range(20, 25)]
    assert board.button("Next").get("disabled")  # the last page
    await rerate(table, FIRST + 3, 1000.0)
    await press(table, board, "Previous")
    assert listed(board) == [(n, FIRST + n) for n in range(10, 20)]
    assert not board.button("Previous").get("disabled")  # the 1st to the 9th are before it
    assert not board.button("Next").get("disabled")


async def test_previous_near_the_top_shows_the_whole_first_page(table: Harness) -> None:
    """25 players paged to the 11th to 20th; the 4th drops to last: Previous, with nine left
    before the 11th, lists the whole first page (the 1st to the 11th but the 4th, ranked 1 to
    10; before: the nine alone), and Next from there the 12th to the 21st, nobody twice."""
    board = await ladder(table, 25)
    await press(table, board, "Next")
    assert listed(board) == [(n + 1, FIRST + n) for n in range(10, 20)]
    await rerate(table, FIRST + 3, 1000.0)
    await press(table, board, "Previous")
    assert listed(board) == [(n + 1 - (n > 3), FIRST + n) for n in range(11) if n != 3]
    assert "Players 1–10 of 25" in str(board.embeds[0]["footer"]["text"])
    assert board.button("Previous").get("disabled")  # the top: nothing before it
    await press(table, board, "Next")
    assert listed(board) == [(n, FIRST + n) for n in range(11, 21)]


async def test_a_button_posted_before_keys_still_turns_the_page(table: Harness) -> None:
    """A Next posted with an offset (``leaderboard:<server>:10:next:…``) shows players 11 to
    20; that page's own Next shows the rest."""
    board = await ladder(table, 25)
    old = f"leaderboard:{table.guild.id}:10:next:brandubh:{table.carol.id}"
    await table.standin.forged_click(board, old, table.carol)
    await table.standin.wait_until(lambda: board.edit_count == 1, timeout=15)
    assert listed(board) == [(n + 1, FIRST + n) for n in range(10, 20)]
    assert all(c.startswith("lb:brandubh:") for c in board.custom_ids())
    await press(table, board, "Next")
    assert listed(board) == [(n + 1, FIRST + n) for n in range(20, 25)]


@given(
    rating=st.floats(allow_nan=False, allow_infinity=False),
    provisional=st.booleans(),
    # Every id a template reads (bot/views/id_numbers.py), past today's 19-digit snowflakes.
    user_id=st.integers(min_value=0, max_value=8_999_999_999_999_999_999),
    ruleset=st.sampled_from(sorted(RULESETS)),
    direction=st.sampled_from(["prev", "next"]),
)
def test_a_page_buttons_id_fits_discord_and_gives_its_key_back(
    rating: float, provisional: bool, user_id: int, ruleset: str, direction: str
) -> None:
    """Any finite rating, 19-digit ids and the longest ruleset name make a button id of at
    most Discord's 100 characters that the button's template reads back exactly."""
    key = StandingKey(provisional, rating, user_id)
    button = LeaderboardButton(ruleset, direction, key, viewer_id=user_id)
    custom_id = str(button.item.custom_id)
    assert len(custom_id) <= 100, custom_id
    match = button.template.fullmatch(custom_id)
    assert match is not None, custom_id
    read = asyncio.run(LeaderboardButton.from_custom_id(cast(Any, None), button.item, match))
    assert (read.key, read.direction, read.ruleset, read.viewer_id) == (
        key,
        direction,
        ruleset,
        user_id,
    )
