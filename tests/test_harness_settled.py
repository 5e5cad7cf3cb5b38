"""The harness's ``settled``: what a test asserts after it holds of every event the bot was
sent, also across a lost gateway session."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, gateway_connections, running_bot, settled
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh guild."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def test_settled_waits_for_the_bot_to_come_back_on_its_new_session(
    table: Harness,
) -> None:
    """Called after ``reopen_gateway()`` with the bot's session lost, before it is back,
    ``settled`` returns once the bot is connected on its new session and has read it (it
    skipped the disconnected session and returned at once)."""
    assert table.bot is not None
    await settled(table)
    connections = gateway_connections(table.standin)
    await table.standin.drop_gateway(refuse_for=math.inf, resumable=False)
    table.standin.reopen_gateway()
    await settled(table, timeout=60)  # discord.py waits up to seconds between its tries
    assert gateway_connections(table.standin) > connections
    newest = list(table.standin.gateway.sessions.values())[-1]
    websocket = table.bot._get_websocket(shard_id=0)
    assert newest.connected
    assert (websocket.session_id, websocket.sequence) == (newest.id, newest.sequence)


async def test_settled_says_what_it_still_waits_for(table: Harness) -> None:
    """With the gateway down for good, ``settled`` gives up after its timeout, saying the
    bot's shard is not connected."""
    await table.standin.drop_gateway(refuse_for=math.inf, resumable=False)
    with pytest.raises(AssertionError, match="shard 0 is not connected"):
        await settled(table, timeout=1)
    table.standin.reopen_gateway()
