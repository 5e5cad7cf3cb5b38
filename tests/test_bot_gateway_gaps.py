"""What reaches the bot, and what it does, across the gateway's gaps: a press while the bot's
session is lost (never delivered), one replayed by a RESUME after Discord's 3 seconds, and
changes in a server whose events were lost with the session (the fresh GUILD_CREATE carries
the state)."""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.bot_harness import (
    HANDLER_TASKS,
    Harness,
    board_thread_game,
    eventually,
    gateway_connections,
    reconnected,
    running_bot,
    settled,
    until,
)
from tests.discord_standin import DiscordStandin, FakeChannel, InteractionNotAnswered
from tests.discord_standin.model import SEND_MESSAGES, VIEW_CHANNEL
from tests.test_bot_lost_permissions import final_board_soon, lose_on_time_while_refused
from tests.test_bot_resume import cut_off, resumed

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


async def session_lost(table: Harness) -> int:
    """The gateway drops the bot for too long to resume (its session ends) and refuses it
    until :func:`back`; returns the connections counted before."""
    connections = gateway_connections(table.standin)
    await table.standin.drop_gateway(refuse_for=math.inf, resumable=False)
    return connections


async def back(table: Harness, connections: int) -> None:
    """The bot identifies anew and has heard the fresh READY and GUILD_CREATEs."""
    table.standin.reopen_gateway()
    await reconnected(table.standin, connections)
    await settled(table)


async def test_a_move_pressed_while_the_session_was_lost_is_not_played_and_the_next_is(
    table: Harness,
) -> None:
    """bob's /move while the bot's session is lost reaches nobody (his client says it failed):
    nothing is played, and once the bot is back his next /move is played, once."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    connections = await session_lost(table)
    with pytest.raises(InteractionNotAnswered, match="never delivered"):
        await table.move(table.bob, "d3-a3")
    await back(table, connections)
    played = await table.move(table.bob, "d3-c3")
    assert "played d3-c3" in played.content, played.content
    said = [m.content for m in table.public_messages()]
    assert not any("d3-a3" in text for text in said), said
    assert sum("played d3-c3" in text for text in said) == 1, said


async def test_a_move_replayed_after_discords_three_seconds_is_played_once_and_shown(
    table: Harness,
) -> None:
    """bob's /move while the bot is cut off is replayed by its RESUME 3.5 s later: Discord
    refuses its answer (his client said it failed), but the move is stored, so its board
    goes out through the channel, once, and alice's next move is played after it."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await cut_off(table)
    late = await table.standin.slash(
        table.guild, table.channel, table.bob, "move", {"move": "d3-a3"}, wait=False
    )
    await asyncio.sleep(3.5)
    await resumed(table)
    await settled(table)
    assert not late.answered
    assert late.rejected is not None
    table.advance(timedelta(minutes=1))
    await table.checks_run(2)
    await table.wait_board(lambda m: "played d3-a3" in m.content)
    played = await table.move(table.alice, "b1-b2")
    assert "played b1-b2" in played.content, played.content
    said = [m.content for m in table.public_messages()]
    assert sum("played d3-a3" in text for text in said) == 1, said


async def test_a_move_replayed_late_is_logged_as_reaching_me_late_not_as_a_busy_process(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """bob's /move replayed by a RESUME 3.5 s after he made it, its answer refused as too late,
    is logged as what is known, that it reached me 3.5 s or more after it was made (before,
    "the process is too busy", though it was not)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    caplog.set_level(logging.WARNING, logger="bot.errors")
    await cut_off(table)
    late = await table.standin.slash(
        table.guild, table.channel, table.bob, "move", {"move": "d3-a3"}, wait=False
    )
    await asyncio.sleep(3.5)
    await resumed(table)
    await table.standin.wait_until(lambda: late.rejected is not None, waiting_for="refusal")
    await settled(table)
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.errors"]
    found = re.search(r"it reached me (\d+\.\d) s after it was made", line)
    assert found is not None, line
    assert float(found[1]) >= 3.5, line
    assert "busy" not in line, line


async def test_a_channel_deleted_while_the_session_was_lost_ends_its_game_once_back(
    table: Harness,
) -> None:
    """A moderator deletes the game's channel while the bot's session is lost (its
    CHANNEL_DELETE lost with it): once the bot is back, the fresh GUILD_CREATE lacking the
    channel, the game there is ended, not left running until its deadline."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    connections = await session_lost(table)
    await table.standin.delete_channel(table.channel)
    await back(table, connections)
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: games.in_channel(table.channel.id), None)


async def test_a_permission_given_back_while_the_session_was_lost_lets_the_board_out_once_back(
    table: Harness,
) -> None:
    """alice loses on time while I may not post in #games; an admin gives Send Messages back
    while my session is lost (its CHANNEL_UPDATE lost with it): once I am back, the fresh
    GUILD_CREATE carrying the channel as it is now, the owed board comes at the next check
    (before, it waited out the refusal's pause, up to an hour)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)
    connections = await session_lost(table)
    await table.standin.set_overwrite(table.channel, table.me)  # the denial removed, unseen
    await back(table, connections)
    table.advance(timedelta(seconds=10))
    await table.checks_run(2)
    await final_board_soon(table, table.channel)


async def test_a_thread_deleted_while_the_session_was_lost_ends_its_game_once_back(
    threaded: Harness,
) -> None:
    """A moderator deletes a game's thread (not its channel) while the bot's session is lost
    (its THREAD_DELETE lost with it): once the bot is back, the fresh GUILD_CREATE lacking the
    thread and Discord confirming it is gone, the game is aborted and its line in #games says
    so, as when the deletion is seen (before, it ran on until a post or its deadline)."""
    table = threaded
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    line = table.thread_line(thread)
    connections = await session_lost(table)
    await table.standin.delete_channel(thread)
    await back(table, connections)
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: games.in_channel(thread.id), None)
    await table.standin.wait_until(lambda: "the match was aborted" in line.content, timeout=5)


async def asked_and_played(table: Harness, thread: FakeChannel, since: int) -> None:
    """The archived ``thread`` is asked of Discord (after the first ``since`` requests), and
    its game goes on: bob writes there (Discord offers no commands in an archived thread) and
    his /move is played."""
    asked = f"/api/v10/channels/{thread.id}"
    await table.standin.wait_until(
        lambda: any(c.method == "GET" and c.path == asked for c in table.standin.rest_log[since:]),
        waiting_for="the thread asked of Discord",
    )
    await settled(table)
    await table.standin.member_writes(thread, table.bob)
    played = await table.reply_text(table.bob, "move", {"move": "d3-c3"}, channel=thread)
    assert "played d3-c3" in played.content, played.content


async def test_a_thread_archived_while_the_session_was_lost_keeps_its_game(
    threaded: Harness,
) -> None:
    """A game's thread is archived while the bot's session is lost: missing from the fresh
    GUILD_CREATE's active threads, it is asked of Discord, which shows it is still there, so
    its game goes on: bob writes there (Discord offers no commands in an archived thread) and
    his /move is played."""
    table = threaded
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    connections = await session_lost(table)
    await table.standin.edit_thread(thread, archived=True)
    since = len(table.standin.rest_log)
    await back(table, connections)
    await asked_and_played(table, thread, since)


async def test_a_channel_deleted_while_the_bot_was_out_ends_its_game_when_invited_back(
    table: Harness,
) -> None:
    """The bot is kicked while its session is lost (its GUILD_DELETE lost with it, so its game
    was never aborted) and #games is deleted; invited back later, the server's GUILD_CREATE
    comes as a join, lacking the channel: the game there is ended then (before, only a server
    available looked for deleted channels, and it ran on until its deadline)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await settled(table)  # nothing owed in #games: no post there finds it gone
    connections = await session_lost(table)
    await table.standin.remove_bot_from_guild(table.guild)
    await table.standin.delete_channel(table.channel)
    assert table.bot is not None
    # A GUILD_CREATE while the shard still waits for READY's servers would come as available.
    ready = asyncio.ensure_future(table.bot.wait_for("shard_ready", timeout=60))
    await back(table, connections)
    await ready
    games = table.bot.services.games
    assert await games.in_channel(table.channel.id) is not None  # not yet known to be gone
    await table.standin.invite_bot_back(table.guild)
    await eventually(lambda: games.in_channel(table.channel.id), None)


async def test_a_server_that_removed_the_bot_while_the_session_was_lost_ends_its_game(
    table: Harness,
) -> None:
    """The bot is kicked while its session is lost (its GUILD_DELETE lost with it) and not
    invited back: the fresh READY does not list the server, and its game is aborted once the
    bot is back, as at start-up (before, only a start looked for servers left, and the game
    ran on to its deadline, lost on time and rated)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await settled(table)
    connections = await session_lost(table)
    await table.standin.remove_bot_from_guild(table.guild)
    await back(table, connections)
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: games.in_channel(table.channel.id), None)


async def back_and_left_alone(table: Harness, connections: int) -> None:
    """The bot is back, its shard's fresh READY weighed (``servers_left``): Discord was not
    asked whether the bot can still see the server, and the game in #games goes on."""
    assert table.bot is not None
    ready = asyncio.ensure_future(table.bot.wait_for("shard_ready", timeout=20))
    since = len(table.standin.rest_log)
    await back(table, connections)
    await ready
    await settled(table, tasks_named=(*HANDLER_TASKS, "brandubh-servers-left"))
    asked = f"/api/v10/guilds/{table.guild.id}"
    assert not [c for c in table.standin.rest_log[since:] if c.method == "GET" and c.path == asked]
    assert await table.bot.services.games.in_channel(table.channel.id) is not None


async def test_a_server_in_an_outage_when_the_session_is_back_is_not_weighed_as_left(
    table: Harness,
) -> None:
    """The fresh READY lists a server in an outage (its GUILD_DELETE says unavailable, no
    GUILD_CREATE comes): it is kept, as at start-up, and Discord is not asked whether the bot
    can still see it (an outage's answer is no proof the bot was removed)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await settled(table)
    connections = await session_lost(table)
    await table.standin.guild_unavailable(table.guild)
    await back_and_left_alone(table, connections)


async def test_a_server_listed_again_after_a_lost_session_keeps_its_games(
    table: Harness,
) -> None:
    """The bot's session is lost and the fresh READY lists the server again (available): it is
    left alone — Discord is not asked whether the bot can still see it, and its game goes on,
    bob's next move played. (Pins what already worked: no test said so.)"""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await settled(table)
    connections = await session_lost(table)
    await back_and_left_alone(table, connections)
    played = await table.move(table.bob, "d3-c3")
    assert "played d3-c3" in played.content, played.content


# -- a server's outage: no event of it comes until its GUILD_CREATE ----------------------------


async def outage(table: Harness) -> None:
    """The server becomes unavailable, and the bot has heard so."""
    await table.standin.guild_unavailable(table.guild)
    assert table.bot is not None
    bot = table.bot
    await until(lambda: (guild := bot.get_guild(table.guild.id)) is not None and guild.unavailable)


async def test_a_channel_deleted_during_its_servers_outage_ends_its_game_once_back(
    table: Harness,
) -> None:
    """#games is deleted while its server is unavailable (no CHANNEL_DELETE comes): once the
    server is back, its GUILD_CREATE lacking the channel, the game there is aborted (before,
    discord.py kept the channel cached, so it was never asked about and the game ran on to
    its deadline)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await settled(table)
    await outage(table)
    await table.standin.delete_channel(table.channel)
    await table.standin.guild_available(table.guild)
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: games.in_channel(table.channel.id), None)
    assert table.bot.get_channel(table.channel.id) is None


async def test_a_thread_deleted_during_its_servers_outage_ends_its_game_once_back(
    threaded: Harness,
) -> None:
    """A game's thread is deleted while its server is unavailable: once the server is back
    without it, the game is aborted and its line in #games says so, as when the deletion is
    seen (before, the thread stayed cached and its game ran on)."""
    table = threaded
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    line = table.thread_line(thread)
    await settled(table)
    await outage(table)
    await table.standin.delete_channel(thread)
    await table.standin.guild_available(table.guild)
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: games.in_channel(thread.id), None)
    await table.standin.wait_until(lambda: "the match was aborted" in line.content, timeout=5)


async def test_a_thread_archived_during_its_servers_outage_keeps_its_game(
    threaded: Harness,
) -> None:
    """A game's thread is archived while its server is unavailable: missing from the active
    threads when the server is back, it is asked of Discord, which shows it is still there,
    so its game goes on and bob's /move there is played."""
    table = threaded
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    await settled(table)
    await outage(table)
    await table.standin.edit_thread(thread, archived=True)
    since = len(table.standin.rest_log)
    await table.standin.guild_available(table.guild)
    await asked_and_played(table, thread, since)


async def test_a_thread_hidden_from_the_bot_during_its_servers_outage_keeps_its_game(
    threaded: Harness,
) -> None:
    """The bot may no longer see #games, where a game's thread is, once its server is back
    from an outage (a permission changed meanwhile, nothing deleted): the GUILD_CREATE still
    lists #games (a bot is sent every channel) but not the thread (only those it can view),
    which leaves the cache and is asked of Discord; Discord answers 403 Missing Access, not
    Unknown Channel, so the game is not aborted. (Pins what works with bot/outage_places.py.)"""
    table = threaded
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    line = table.thread_line(thread)
    await settled(table)
    await outage(table)
    await table.standin.set_overwrite(table.channel, table.me, deny=VIEW_CHANNEL)
    since = len(table.standin.rest_log)
    await table.standin.guild_available(table.guild)
    asked = f"/api/v10/channels/{thread.id}"
    await table.standin.wait_until(
        lambda: any(c.path == asked and c.status == 403 for c in table.standin.rest_log[since:]),
        waiting_for="the thread asked of Discord",
    )
    await settled(table, tasks_named=(*HANDLER_TASKS, "brandubh-game-channels-of-server"))
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(thread.id) is not None
    assert "aborted" not in line.content, line.content


async def test_a_server_in_an_outage_that_removed_the_bot_while_the_session_was_lost_is_let_go(
    table: Harness,
) -> None:
    """The server becomes unavailable, then the bot's session is lost and the server kicks it:
    the fresh READY no longer lists it, Discord says the bot cannot see it, and its game is
    aborted — and the server leaves discord.py's cache, its outage's hold ended (before, the
    cache kept it unavailable, and each check held it again for good)."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    await table.move(table.alice, "d1-b1")
    await settled(table)
    await outage(table)
    connections = await session_lost(table)
    await table.standin.remove_bot_from_guild(table.guild)
    await back(table, connections)
    assert table.bot is not None
    bot = table.bot
    await eventually(lambda: bot.services.games.in_channel(table.channel.id), None)
    await until(lambda: bot.get_guild(table.guild.id) is None)
    table.advance(timedelta(minutes=1))
    await table.checks_run()
    assert table.guild.id not in bot.timers.holds._outages
