"""Names cannot ping or format: a hostile nickname plays a whole set and nobody is pinged by it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def test_a_hostile_nickname_pings_nobody_and_shows_as_text(table: Harness) -> None:
    """'@everyone <@carol> **x**' plays bob: carol is never pinged, nor everyone; the name's
    Markdown and mention show as plain text; only the player to move is ever notified."""
    evil = table.standin.add_member(
        table.guild, "evil", nick=f"@everyone <@{table.carol.id}> **x**"
    )
    await table.standin.announce_guild(table.guild)
    line = await table.reply_text(evil, "challenge", {"opponent": table.bob, "sets": 1})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    for ply, text in enumerate(ATTACKERS_WIN):
        who = evil if ply % 2 == 0 else table.bob
        reply = await table.reply_text(who, "move", {"move": text}, channel=thread)
        assert not reply.ephemeral, reply.content
    await table.reply_text(table.carol, "games")
    await table.reply_text(table.carol, "leaderboard")
    await table.reply_text(table.carol, "stats", {"player": evil})
    everything = table.standin.messages(table.channel) + table.standin.messages(thread)
    assert everything
    for message in everything:
        assert table.carol.id not in message.pinged_user_ids(), message.content
        assert message.pinged_user_ids() <= {evil.id, table.bob.id}, message.content
        parse = (message.allowed_mentions or {}).get("parse", [])
        assert "everyone" not in parse
        assert "roles" not in parse
    shown = [m.content for m in table.standin.messages(thread) if "played d1-b1" in m.content]
    assert shown == [
        f"**@\u200beveryone <@\u200b{table.carol.id}> \\*\\*x\\*\\*** (attackers) played d1-b1."
        + shown[0].split("played d1-b1.")[1]
    ]


async def test_a_server_name_with_markdown_shows_as_text_in_the_titles(table: Harness) -> None:
    """A server named "**Tafl** __Club__": /leaderboard's and /games' titles show the name as
    written, not as bold and underlined text."""
    table.guild.name = "**Tafl** __Club__"
    await table.standin.announce_guild(table.guild)
    for command in ("leaderboard", "games"):
        shown = await table.reply_text(table.alice, command)
        title = shown.embeds[0]["title"]
        assert title.endswith(" — \\*\\*Tafl\\*\\* \\_\\_Club\\_\\_"), title
