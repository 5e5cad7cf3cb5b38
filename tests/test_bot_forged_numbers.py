"""Forged numbers in button and select ids: a set id, a player's id, a page's offset or a ply too
large for the database's columns (PostgreSQL's BIGINT and INTEGER, SQLite's 64-bit integers) is
an id that does not parse, answered as a button that is not mine (any more), on both backends;
never the apology of a database failure."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, PostgresHarness, move_button
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

OVER_BIGINT = str(2**63)
"""19 digits, one past the largest BIGINT."""
TWENTY = "9" * 20
"""20 digits: past any 64-bit integer."""
OVER_INTEGER = str(2**31)
"""One past the largest INTEGER (PostgreSQL's plies)."""


@pytest.fixture(params=["sqlite", "postgresql"])
async def table(
    request: pytest.FixtureRequest,
    discord_standin: DiscordStandin,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> AsyncIterator[Harness]:
    """The bot on each backend; afterwards, nothing logged above WARNING and no traceback."""
    if request.param == "postgresql":
        postgres: PostgresServer | str = request.getfixturevalue("postgres")
        url = await postgres_database(postgres)
        harness: Harness = PostgresHarness(discord_standin, tmp_path, url)
    else:
        harness = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await harness.start()
    caplog.set_level(logging.WARNING)
    try:
        yield harness
    finally:
        await harness.stop()
    logged = [*caplog.get_records("call"), *caplog.records]
    loud = [r for r in logged if r.levelno > logging.WARNING or r.exc_info]
    assert loud == [], [r.getMessage() for r in loud]


def forged_ids(game: int, guild: int, user: int) -> list[str]:
    """Every kind of id the bot reads numbers from, each with one number out of range."""
    stamp = "0123abcd"
    return [
        f"move:{OVER_BIGINT}",
        f"move:{TWENTY}",
        f"resign-ask:{OVER_BIGINT}",
        f"resign:{OVER_BIGINT}",
        f"abort:{OVER_BIGINT}",
        f"rematch:{OVER_BIGINT}",
        f"takeback:{OVER_BIGINT}",
        f"takeback:{OVER_BIGINT}:3.2",
        f"takeback-answer:{OVER_BIGINT}:accept",
        f"challenge:accept:{OVER_BIGINT}",
        f"challenge:withdraw:{TWENTY}",
        f"repeat:{OVER_BIGINT}:0.{stamp}:d1-b1",
        f"repeat:{game}:{OVER_INTEGER}.{stamp}:d1-b1",
        f"pick:{OVER_BIGINT}:0.{stamp}:from:0",
        f"pick:{game}:{OVER_INTEGER}.{stamp}:to:0",
        f"pz:{OVER_BIGINT}:0:from:0",
        f"pz:1:{OVER_INTEGER}:to:0",
        f"pz:{OVER_BIGINT}:0:give-up",
        f"pz:1:{OVER_INTEGER}:give-up",
        f"games:{guild}:{OVER_BIGINT}:0:next",
        f"games:{guild}:{user}:0:next:{OVER_BIGINT}",
        f"games:{OVER_BIGINT}:{user}:0:prev",
        f"waiting:{guild}:{OVER_BIGINT}:all",
        f"waiting:{guild}:{user}:next:{OVER_BIGINT}",
        f"lb:brandubh:next:0:1500.0:{OVER_BIGINT}",
        f"lb:brandubh:prev:1:1500.0:{user}:{OVER_BIGINT}",
        f"leaderboard:{OVER_BIGINT}:0:next",
        f"leaderboard:{guild}:0:next:brandubh:{OVER_BIGINT}",
        f"pzb:all:{OVER_BIGINT}:next:1:1:1:{user}",
        f"pzb:all:{user}:next:1:1:{OVER_BIGINT}:{user}",
        f"pzb:30d:{user}:prev:1:1:1:{OVER_BIGINT}",
        f"puzzleboard:{OVER_BIGINT}:all:{user}:0:next",
        f"puzzleboard:{guild}:30d:{OVER_BIGINT}:0:prev",
    ]


async def test_numbers_out_of_the_databases_range_are_stale_ids(table: Harness) -> None:
    """Each forged id with a number no column can hold (2**63, 20 digits, a ply of 2**31) is
    answered privately as a button that is not mine (any more), and changes nothing (before, on
    PostgreSQL, the apology for a database failure and an ERROR in the log)."""
    board = await table.challenge_accepted(table.alice, table.bob)
    game = int(move_button(board).split(":")[1])
    stale = (
        "That button is not one of mine (any more): use the newest message, or "
        f"{table.mention('games')}."
    )
    for custom_id in forged_ids(game, table.guild.id, table.alice.id):
        record = await table.standin.forged_click(board, custom_id, table.alice)
        assert record.answered, custom_id
        answer = await record.wait_original()
        assert answer.ephemeral, custom_id
        assert answer.content == stale, custom_id
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.ply == 0
