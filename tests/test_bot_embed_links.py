"""Embeds where the bot lacks Embed Links (a server denies it to stop link previews): Discord
drops a channel message's embeds without a word (and refuses a message left with nothing),
while an interaction's answer keeps them, so a list posted in the channel goes as text."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, TypeVar

import discord
import pytest

from bot.views.common import ANSWER_BEFORE, within_deadline
from bot.views.embed_text import CONTENT_LIMIT, embed_as_text
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import EMBED_LINKS

pytest_plugins = ["tests.discord_standin.fixtures"]

T = TypeVar("T")


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def test_the_standin_drops_a_posts_embeds_without_embed_links(table: Harness) -> None:
    """A post carrying text and an embed where the bot lacks Embed Links is posted without its
    embed; one carrying only an embed is refused (Missing Permissions)."""
    assert table.bot is not None
    await table.standin.set_overwrite(table.channel, table.me, deny=EMBED_LINKS)
    channel = table.bot.get_partial_messageable(table.channel.id)
    posted = await channel.send("the list", embed=discord.Embed(title="Games"))
    assert posted.content == "the list"
    assert posted.embeds == []
    with pytest.raises(discord.Forbidden):
        await channel.send(embed=discord.Embed(title="Games"))


async def test_a_list_posted_in_the_channel_without_embed_links_is_text(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/games deferred privately (slow), its public answer posted in the channel apart, where
    the bot lacks Embed Links: the list is the post's text (its title, the game, its count),
    not an embed Discord would drop, leaving the buttons alone."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.standin.set_overwrite(table.channel, table.me, deny=EMBED_LINKS)

    async def privately(
        interaction: discord.Interaction[Any], work: Awaitable[T], **_: object
    ) -> T:
        async def slow() -> T:
            await asyncio.sleep(ANSWER_BEFORE + 0.5)
            return await work

        return await within_deadline(interaction, slow(), ephemeral=True)

    # The cog's module as the bot loaded it (discord.py loads an extension anew).
    monkeypatch.setattr(sys.modules["bot.cogs.lobby"], "within_deadline", privately)
    await table.slash(table.carol, "games")

    def listings() -> list[str]:
        return [
            m.content
            for m in table.standin.recorder.messages_in(table.channel, include_deleted=False)
            if "Games in progress" in m.content and not m.ephemeral
        ]

    await table.standin.wait_until(lambda: bool(listings()), waiting_for="the list as text")
    [listing] = listings()
    assert listing.startswith("**Games in progress — "), listing
    assert "Games 1–1 of 1" in listing, listing


def test_a_long_embed_as_text_is_cut_at_a_line_within_discords_limit() -> None:
    """An embed whose text passes 2000 characters is cut at a line's end, an ellipsis after."""
    embed = discord.Embed(title="Games", description="\n".join(f"game {n}" for n in range(400)))
    text = embed_as_text(embed)
    assert len(text) <= CONTENT_LIMIT
    assert text.startswith("**Games**\n\ngame 0\n")
    assert text.endswith("\n…")
    assert text.splitlines()[-2].startswith("game ")
