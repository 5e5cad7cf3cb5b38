"""What happens while the bot's shard is cut off reaches it when it resumes (Discord replays the
missed dispatches before RESUMED): the bot ends in the right state, gives no time twice and
posts nothing twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.bot_harness import (
    Harness,
    board_thread_game,
    eventually,
    running_bot,
    settled,
    timers_checked,
    until,
)
from tests.discord_standin import DiscordStandin
from tests.test_bot_vanished import calls_to, carols_archived_game, game_in, rated_players

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@pytest.fixture
async def threaded(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads (the bot's default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def cut_off(table: Harness) -> None:
    """Discord's gateway drops the bot's only shard and answers its RESUME only when
    :func:`resumed` lets it; the bot notices the drop."""
    assert table.bot is not None
    holds = table.bot.timers.holds
    table.standin.gateway.resumes_wait = asyncio.Event()
    await table.standin.drop_gateway()
    await until(lambda: 0 in holds._down, timeout=10)


async def resumed(table: Harness) -> None:
    """The bot's RESUME is answered: it is sent what it missed, then RESUMED."""
    assert table.bot is not None
    assert table.standin.gateway.resumes_wait is not None
    table.standin.gateway.resumes_wait.set()
    holds = table.bot.timers.holds
    await table.standin.wait_until(
        lambda: table.standin.gateway.resume_count == 1, timeout=20, waiting_for="a RESUME"
    )
    await until(lambda: 0 not in holds._down, timeout=10)
    await table.checks_run()


async def test_a_thread_locked_while_the_shard_was_down_holds_its_clock_after_the_resume(
    threaded: Harness,
) -> None:
    """alice has four hours left when the gateway drops the bot; meanwhile a moderator locks
    and archives her thread, and two days pass. The bot resumes and hears of the lock: her
    deadline passing ends nothing, and unlocked a day later she has her four hours — the two
    days of the outage and the day locked each given once."""
    table = threaded
    board, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))
    await table.checks_run()
    await cut_off(table)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    table.advance(timedelta(days=2))
    await resumed(table)
    table.advance(timedelta(days=1))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None, "alice lost on time in the thread locked during the outage"
    await table.standin.edit_thread(thread, archived=False, locked=False)
    four_hours_on = f"<t:{int((table.now + timedelta(hours=4)).timestamp())}:R>"
    await table.standin.wait_until(lambda: four_hours_on in board.content, timeout=10)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert "played d1-b1" in played.content, played.content


async def test_a_channel_deleted_while_the_shard_was_down_ends_its_game_once(
    table: Harness,
) -> None:
    """A moderator deletes the game's channel while the gateway has dropped the bot: once it
    resumes, the game there is ended (nobody is left playing a game no one can see), and the
    bot posts nothing about it anywhere twice."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await cut_off(table)
    posted = len(table.standin.recorder.messages)
    await table.standin.delete_channel(table.channel)
    await resumed(table)
    assert table.bot is not None
    games = table.bot.services.games
    await until(lambda: table.bot is not None and table.bot.get_channel(table.channel.id) is None)
    await eventually(lambda: games.in_channel(table.channel.id), None)
    contents = [m.content for m in list(table.standin.recorder.messages.values())[posted:]]
    assert len(contents) == len(set(contents)), contents


async def test_a_server_outage_while_the_shard_was_down_gives_its_time_once(
    table: Harness,
) -> None:
    """Bob has half an hour left when the gateway drops the bot; meanwhile his server becomes
    unavailable and available again, two hours in all. Resumed, the bot hears both: bob has
    his half hour, not the two hours given twice (by the shard and by the server)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    board = await table.move(table.alice, "d1-b1")
    table.advance(timedelta(minutes=30))
    await table.checks_run()
    await cut_off(table)
    await table.standin.guild_unavailable(table.guild)
    table.advance(timedelta(hours=2))
    await table.standin.guild_available(table.guild)
    await resumed(table)
    replayed = [event for _, event in table.standin.gateway.replayed]
    assert replayed[-2:] == ["GUILD_DELETE", "GUILD_CREATE"]
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.deadline == table.now + timedelta(minutes=30)
    half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
    await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=10)


async def test_a_server_still_unavailable_when_the_shard_resumes_holds_its_clock(
    table: Harness,
) -> None:
    """Bob has half an hour left when the gateway drops the bot and his server becomes
    unavailable; the bot resumes while the server is still out and two more hours pass: bob
    has not lost on time, and when the server is back he has his half hour."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    board = await table.move(table.alice, "d1-b1")
    table.advance(timedelta(minutes=30))
    await table.checks_run()
    await cut_off(table)
    await table.standin.guild_unavailable(table.guild)
    table.advance(timedelta(hours=1))
    await resumed(table)
    table.advance(timedelta(hours=2))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None, "bob lost on time while his server was unavailable"
    await table.standin.guild_available(table.guild)
    half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
    await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=10)
    played = await table.move(table.bob, "d3-a3")
    assert "played d3-a3" in played.content, played.content


async def test_a_thread_deleted_while_the_shard_was_down_aborts_its_match_once(
    threaded: Harness,
) -> None:
    """A moderator deletes a game's thread while the gateway has dropped the bot: once it
    resumes, the challenge line in #games says the match was aborted (edited once), nothing is
    tried in the thread, and nobody is rated."""
    table = threaded
    _, thread = await board_thread_game(table)
    line = table.thread_line(thread)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await cut_off(table)
    await table.standin.delete_channel(thread)
    since = len(table.standin.rest_log)
    await resumed(table)
    await table.standin.wait_until(lambda: "the match was aborted" in line.content, timeout=10)
    table.advance(timedelta(days=2))
    await timers_checked(table)
    assert calls_to(table, table.channel, since, "PATCH") == 1
    assert calls_to(table, thread, since) == calls_to(table, thread, since, "PATCH") == 0
    assert await rated_players(table) == 0


async def test_a_resume_after_more_than_discord_keeps_identifies_anew_and_goes_on(
    table: Harness,
) -> None:
    """The server is renamed four times while the gateway has dropped the bot, and Discord
    keeps only three dispatches for a RESUME: the bot's RESUME is answered INVALID_SESSION, it
    identifies again, is sent the server as it is now, and bob's move is played."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    gateway = table.standin.gateway
    identified = gateway.identify_count
    gateway.kept_dispatches = 3
    await cut_off(table)
    for name in ("one", "two", "three", "four"):
        await table.standin.rename_guild(table.guild, name)
    assert gateway.resumes_wait is not None
    gateway.resumes_wait.set()
    await table.standin.wait_until(
        lambda: gateway.identify_count == identified + 1, timeout=20, waiting_for="an IDENTIFY"
    )
    assert gateway.resume_count == 0
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: 0 not in holds._down, timeout=10)
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    assert guild.name == "four"
    played = await table.move(table.bob, "d3-a3")
    assert "played d3-a3" in played.content, played.content


SPARE = ("one", "two", "three", "four", "five")
"""Channels with nothing in them, deleted in a burst."""


@pytest.fixture
async def spare_channels(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads, in a server with five more channels."""
    async with running_bot(
        discord_standin,
        tmp_path / "bot.sqlite3",
        threads=True,
        ai_seconds=0.02,
        channels=("games", *SPARE),
    ) as harness:
        yield harness


async def test_channels_deleted_in_a_burst_ask_of_an_archived_members_thread_at_most_twice(
    spare_channels: Harness,
) -> None:
    """carol's game is in her own thread of #games, archived (not cached); five empty channels
    are deleted while the gateway has dropped the bot, and its RESUME brings the deletions in
    a burst: her thread is asked of Discord once or twice, not once per deletion (five), and
    her game goes on."""
    table = spare_channels
    corner = await carols_archived_game(table)
    spare = [table.guild.channel(name) for name in SPARE]
    await cut_off(table)
    for channel in spare:
        await table.standin.delete_channel(channel)
    since = len(table.standin.rest_log)
    await resumed(table)
    assert table.bot is not None
    bot = table.bot
    await until(lambda: all(bot.get_channel(channel.id) is None for channel in spare))
    await settled(table)
    asked = [
        call
        for call in table.standin.rest_log[since:]
        if call.method == "GET" and call.path == f"/api/v10/channels/{corner.id}"
    ]
    assert 1 <= len(asked) <= 2, len(asked)
    assert await game_in(table, corner)() is not None
