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
from tests.discord_standin import DiscordStandin, StoredMessage
from tests.discord_standin.model import EMBED_LINKS
from tests.test_bot_busy_server import ESTABLISHED, rated

pytest_plugins = ["tests.discord_standin.fixtures"]

T = TypeVar("T")

FIRST = 10_000
"""The user id of the best rated player of a leaderboard; the next best is FIRST + 1, and so on."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def privately(interaction: discord.Interaction[Any], work: Awaitable[T], **_: object) -> T:
    """``within_deadline`` for work slower than ANSWER_BEFORE, deferred privately: its public
    answer is posted in the channel apart, as one that may still refuse."""

    async def slow() -> T:
        await asyncio.sleep(ANSWER_BEFORE + 0.5)
        return await work

    return await within_deadline(interaction, slow(), ephemeral=True)


def deferred_privately_when_slow(monkeypatch: pytest.MonkeyPatch, cog: str) -> None:
    """The commands of ``cog`` (a module's name) defer privately, their answers posted apart."""
    # The cog's module as the bot loaded it (discord.py loads an extension anew).
    monkeypatch.setattr(sys.modules[cog], "within_deadline", privately)


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
    deferred_privately_when_slow(monkeypatch, "bot.cogs.lobby")
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


async def leaderboard_as_text(table: Harness, monkeypatch: pytest.MonkeyPatch) -> StoredMessage:
    """20 players; carol's /leaderboard posted apart where the bot lacks Embed Links: its first
    page as text (the 1st to the 10th)."""
    await rated(table, {FIRST + n: (1600.0 - 10 * n, ESTABLISHED) for n in range(20)})
    await table.standin.set_overwrite(table.channel, table.me, deny=EMBED_LINKS)
    deferred_privately_when_slow(monkeypatch, "bot.cogs.standings")
    await table.slash(table.carol, "leaderboard")

    def boards() -> list[StoredMessage]:
        return [
            m
            for m in table.standin.recorder.messages_in(table.channel, include_deleted=False)
            if "Players 1–10 of 20" in m.content and not m.ephemeral
        ]

    await table.standin.wait_until(lambda: bool(boards()), waiting_for="the leaderboard as text")
    [board] = boards()
    assert board.embeds == []
    return board


async def test_a_text_lists_next_page_is_text_while_embed_links_is_denied(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leaderboard posted as text, Next pressed while the bot still lacks Embed Links: the
    second page replaces the first as text, no embed beside it."""
    board = await leaderboard_as_text(table, monkeypatch)
    await table.standin.click(board, str(board.button("Next")["custom_id"]), table.carol)
    assert board.embeds == []
    assert "Players 11–20 of 20" in board.content, board.content
    assert "Players 1–10" not in board.content, board.content


async def test_a_text_lists_page_turned_with_embed_links_back_is_an_embed_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leaderboard posted as text, Next pressed once Embed Links is allowed again: the
    second page is an embed, and the first page's text is gone (not shown above it)."""
    board = await leaderboard_as_text(table, monkeypatch)
    await table.standin.set_overwrite(table.channel, table.me)
    await table.standin.click(board, str(board.button("Next")["custom_id"]), table.carol)
    assert board.content == ""
    [embed] = board.embeds
    assert "Players 11–20 of 20" in str(embed["footer"]["text"])
