"""/games and /help, end to end: finding the games in progress, and a first-timer's guide."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.cogs.info import help_text
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def start_game(table: Harness, challenger_name: str, opponent_name: str) -> int:
    """Two new members play a game in a thread of #games; returns the thread's id."""
    challenger = table.standin.add_member(table.guild, challenger_name)
    opponent = table.standin.add_member(table.guild, opponent_name)
    await table.standin.announce_guild(table.guild)
    line = await table.reply_text(challenger, "challenge", {"opponent": opponent})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", opponent)
    assert line.thread is not None
    return line.thread.id


async def test_games_lists_each_game_with_a_link_and_pages(table: Harness) -> None:
    """Twelve games: the first page lists ten with their threads; Next shows the other two."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(12)]
    listing = await table.reply_text(table.carol, "games")
    embed = listing.embeds[0]
    assert embed["footer"]["text"] == "Games 1–10 of 12"
    first = embed["description"].splitlines()[0]
    assert first == (
        "**a0** (attackers) vs **b0** (defenders) · Brandubh (World Tafl Federation) · "
        f"set 1 of 2 · move 1 · a0 to move · <#{threads[0]}>"
    )
    assert listing.pinged_user_ids() == set()
    next_id = next(c for c in listing.custom_ids() if c.endswith(":next"))
    await table.standin.click(listing, next_id, table.carol)
    assert listing.embeds[0]["footer"]["text"] == "Games 11–12 of 12"
    assert f"<#{threads[11]}>" in listing.embeds[0]["description"]


async def test_games_filters_by_player(table: Harness) -> None:
    """/games player:@x lists only x's games."""
    await start_game(table, "ann", "ben")
    await start_game(table, "cat", "dan")
    [cat] = [m for m in table.guild.members if m.name == "cat"]
    listing = await table.reply_text(table.alice, "games", {"player": cat})
    [line] = listing.embeds[0]["description"].splitlines()
    assert line.startswith("**cat** (attackers) vs **dan** (defenders)")
    assert listing.embeds[0]["title"].startswith("Games in progress of cat")


async def test_games_says_so_when_nothing_is_being_played(table: Harness) -> None:
    """With no game in progress /games says how to start one."""
    listing = await table.reply_text(table.alice, "games")
    assert listing.embeds[0]["description"] == (
        f"No game in progress. Start one with {table.mention('challenge')}."
    )


async def test_help_is_a_private_guide(table: Harness) -> None:
    """/help answers privately with the guide: how to start, the three ways to move, commands."""
    reply = await table.reply_text(table.alice, "help")
    assert reply.ephemeral
    assert reply.content == help_text()
    for words in ("`/challenge opponent:@someone`", "`/move d1-d3`", "press **Move**", "move 9"):
        assert words in reply.content
    for command in ("games", "rules", "board", "resign"):
        assert table.mention(command) in reply.content  # a click puts it in the message box
    assert len(reply.content) <= 2000


async def test_no_game_here_points_at_games(table: Harness) -> None:
    """/board in a channel without a game says where the games are."""
    reply = await table.reply_text(table.alice, "board")
    assert reply.content == (
        f"There is no game in progress in this channel: {table.mention('games')} lists where the"
        " games are."
    )


async def test_games_in_a_private_channel_are_listed_only_inside_it(table: Harness) -> None:
    """A game and an open challenge in a channel @everyone cannot see are left out of /games
    asked anywhere else (the list is public), counted out too, and listed inside it."""
    standin, guild = table.standin, table.guild
    staff = guild.channel("side")
    view = discord.Permissions(view_channel=True)
    await standin.set_overwrite(staff, guild, deny=view)
    for member in (table.admin, table.carol, table.me):
        await standin.set_overwrite(staff, member, allow=view)
    line = await table.reply_text(
        table.admin, "challenge", {"opponent": table.carol}, channel=staff
    )
    await standin.click(line, f"challenge:accept:{challenge_id(line)}", table.carol)
    assert line.thread is not None
    waiting = await table.reply_text(table.carol, "challenge", {}, channel=staff)
    assert not waiting.ephemeral
    public_game = await start_game(table, "ann", "ben")

    outside = (await table.reply_text(table.bob, "games")).embeds[0]
    assert outside["description"].splitlines() == [
        "**ann** (attackers) vs **ben** (defenders) · Brandubh (World Tafl Federation) · "
        f"set 1 of 2 · move 1 · ann to move · <#{public_game}>"
    ]
    assert outside.get("fields", []) == []

    inside = (await table.reply_text(table.admin, "games", channel=staff)).embeds[0]
    assert f"<#{line.thread.id}>" in inside["description"]
    assert f"<#{public_game}>" in inside["description"]
    [field] = inside["fields"]
    assert field["value"].startswith("**carol** · ")
    in_thread = (await table.reply_text(table.carol, "games", channel=line.thread)).embeds[0]
    assert f"<#{line.thread.id}>" in in_thread["description"]
