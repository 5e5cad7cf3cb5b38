"""Previous / Next ids already posted under lists keep working: each is read by one registered
button, which gives back what it names and makes the same id again."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import discord
import pytest

from bot.services.domain import StandingKey
from bot.services.puzzle_leaderboard import Period, SolverKey
from bot.views import DYNAMIC_ITEMS
from bot.views.games import GamesButton
from bot.views.leaderboard import LeaderboardButton
from bot.views.puzzle_board import SolversButton
from bot.views.waiting import WaitingButton


def read_back(custom_id: str) -> discord.ui.DynamicItem[Any]:
    """The button the bot makes of a press of ``custom_id``: the one registered item whose
    template takes it, as discord.py picks it."""
    found = [
        (item, match)
        for item in DYNAMIC_ITEMS
        if (match := item.__discord_ui_compiled_template__.fullmatch(custom_id)) is not None
    ]
    assert len(found) == 1, (custom_id, found)
    item, match = found[0]
    placeholder = discord.ui.Button[Any](custom_id=custom_id)
    return asyncio.run(item.from_custom_id(cast(Any, None), placeholder, match))


def fields(button: discord.ui.DynamicItem[Any]) -> tuple[object, ...]:
    """What a page button read from its id names, and its label."""
    label = cast(discord.ui.Button[Any], button.item).label
    if isinstance(button, LeaderboardButton):
        return (button.ruleset, button.direction, button.key, button.viewer_id, label)
    if isinstance(button, SolversButton):
        return (button.period, button.viewer_id, button.direction, button.key, label)
    if isinstance(button, WaitingButton):
        return (button.guild_id, button.player_id, button.direction, button.challenge_id, label)
    if isinstance(button, GamesButton):
        ids = (button.guild_id, button.player_id, button.offset)
        return (*ids, button.direction, button.match_id, label)
    raise AssertionError(f"not a page button: {button!r}")


BIG = 123456789012345678
"""A user id of Discord's size (a snowflake)."""


@pytest.mark.parametrize(
    ("custom_id", "named"),
    [
        (
            f"lb:brandubh:next:0:1553.25:{BIG}:{BIG + 1}",
            ("brandubh", "next", StandingKey(False, 1553.25, BIG), BIG + 1, "Next"),
        ),
        (
            "lb:tablut:prev:1:-0.5:42",
            ("tablut", "prev", StandingKey(True, -0.5, 42), None, "Previous"),
        ),
        (
            f"pzb:30d:{BIG}:next:3:4:1700000000000000:43",
            (Period.LAST_30_DAYS, BIG, "next", SolverKey(3, 4, 1700000000000000, 43), "Next"),
        ),
        (
            "pzb:all:7:prev:0:1:5:8",
            (Period.ALL_TIME, 7, "prev", SolverKey(0, 1, 5, 8), "Previous"),
        ),
        ("waiting:1:2:all", (1, 2, "all", None, "All waiting challenges")),
        ("waiting:1:0:prev:77", (1, 0, "prev", 77, "Previous")),
        ("waiting:1:0:next", (1, 0, "next", None, "Next")),
        ("games:1:2:10:next:55", (1, 2, 10, "next", 55, "Next")),
        ("games:1:0:0:prev", (1, 0, 0, "prev", None, "Previous")),
    ],
)
def test_a_posted_page_buttons_id_is_read_back_as_it_was_made(
    custom_id: str, named: tuple[object, ...]
) -> None:
    """A Previous / Next (or All waiting challenges) id as the bot posted it is taken by one
    button, which reads what it names and would post the very same id."""
    button = read_back(custom_id)
    assert fields(button) == named
    assert button.item.custom_id == custom_id
