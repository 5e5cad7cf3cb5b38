"""Permissions and membership changing while games and challenges are on: the bot keeps its
deadlines, goes on with the game, backs off from refused posts and says what happened.

Each test was written by an attack run (stop 30) and failed before its fix.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import discord
import pytest

from bot.recently_used import RecentlyUsed
from bot.services.games import GameService
from engine import Game
from tests.bot_harness import (
    Harness,
    PostgresHarness,
    board_thread_game,
    challenge_id,
    eventually,
    gateway_connections,
    reconnected,
    running_bot,
    settled,
    timers_checked,
    until,
    waits_until_told,
)
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.discord_standin.model import (
    ATTACH_FILES,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from tests.discord_standin.recorder import InteractionRecord
from tests.foreign_lock import busy_retries, foreign_write_lock
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


@pytest.fixture
async def threaded(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads (the bot's default)."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


def refused_posts(table: Harness, channel_id: int) -> int:
    """How many channel posts by the bot Discord refused with 403 in ``channel_id``."""
    path = f"/api/v10/channels/{channel_id}/messages"
    return sum(
        1
        for call in table.standin.rest_log
        if call.method == "POST" and call.path == path and call.status == 403
    )


# -- a set's end posted late: the game goes on ----------------


async def test_computer_opens_set_two_after_a_timeout_posted_late(table: Harness) -> None:
    """alice (attackers) against the computer, two sets. While the bot may not post in the
    channel, alice runs out of time: set 2 begins with the computer attacking, and it plays
    its move although the set change could not be posted (before, nothing started its turn
    until a restart, and it lost on time). Once the permission is back, both boards come."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 2})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(days=1, seconds=1))  # alice's time runs out in set 1
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, table.channel.id), 2)
    await table.standin.set_overwrite(table.channel, table.me)  # the admin puts it right
    table.advance(timedelta(seconds=30))  # the outbox's turn
    # Set 1's final board (it also says "Set 2 begins" if the computer has not moved yet: on a
    # loaded machine its search may finish first, and then its own board opens set 2).
    await table.wait_board(lambda m: "ran out of time" in m.content, timeout=20)
    # The computer attacks in set 2 and should now play its first move.
    await table.wait_board(
        lambda m: "(attackers) played" in m.content and "Set 2 of 2" in m.content, timeout=10
    )


async def test_the_line_shows_the_result_of_a_timeout_posted_late(threaded: Harness) -> None:
    """A thread game ends on time while the bot may not post in threads: the challenge line
    in the parent channel shows the result all the same (before, only a final board posted at
    once led to that edit), and the final board follows in the thread once the permission is
    back."""
    table = threaded
    _, thread = await board_thread_game(table)
    line = table.thread_line(thread)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES_IN_THREADS)
    table.advance(timedelta(days=1, seconds=1))  # alice's time runs out
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, thread.id), None)
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread, timeout=20)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)


# -- refused posts back off; one refused board holds up nothing -------------------------


async def test_a_reminder_refused_for_a_missing_permission_is_not_retried_every_check(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot lost Send Messages in the game's channel when alice's half-time reminder falls
    due: Discord's 403 is not retried at every timer check (it was, every 5 s in production,
    until the game ended; Discord bans an IP after 10,000 invalid requests in 10 minutes)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    caplog.set_level(logging.WARNING, logger="bot.timers")
    table.advance(timedelta(hours=12, seconds=1))
    await table.checks_run(40)
    refused = refused_posts(table, table.channel.id)
    warnings = [r for r in caplog.records if "Could not post in channel" in r.getMessage()]
    assert refused <= 3, f"{refused} refused reminder posts in 40 checks ({len(warnings)} warnings)"


async def test_a_board_refused_for_a_missing_permission_backs_off(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """alice loses on time while the bot may not post in the channel: the outbox's pauses
    before trying the owed board again grow towards an hour (it tried every 10 s for ever:
    360 refused posts an hour)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    caplog.set_level(logging.INFO, logger="bot.flow.outbox")
    table.advance(timedelta(days=1, seconds=1))
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, table.channel.id), None)
    # The set's end is stored before its live post is tried: counted from that refusal (a
    # slow machine counted it among the outbox's tries, 13 where the pauses allow 12).
    await table.standin.wait_until(lambda: refused_posts(table, table.channel.id) >= 1)
    before = refused_posts(table, table.channel.id)
    for _ in range(60):  # an hour, a minute at a time
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    tries = refused_posts(table, table.channel.id) - before
    assert tries <= 12, f"the outbox was refused {tries} times in an hour and keeps trying"


async def test_one_board_refused_for_eight_minutes_stops_every_deadline_in_the_shard(
    table: Harness,
) -> None:
    """A board the outbox cannot post for a long time (the bot lost Send Messages in #games)
    fails try after try: a game in another channel still ends on time. (The pause
    ``RETRY_FIRST * 2**attempts`` overflowed at the 47th try, and the OverflowError stopped
    every later timer check before games were ended on time.)"""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(days=1, seconds=1))  # alice loses on time; the board is owed
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, table.channel.id), None)
    for _ in range(50):  # 50 tries of the outbox, as 50 × 10 s would give in production
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    side = table.guild.channel("side")
    reply = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1, "time": 60}, channel=side
    )
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.admin)
    await table.wait_board(channel=side)
    table.advance(timedelta(minutes=61))  # carol's hour in #side runs out
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=side, timeout=20)


# -- members who left ----------------------------------------------------------------------


async def leave(table: Harness, member: FakeMember) -> None:
    """``member`` leaves the server (the bot has no members intent, so it is not told)."""
    await table.standin.remove_member(member)


async def test_an_open_challenge_of_a_member_who_left_cannot_start_a_game(
    threaded: Harness,
) -> None:
    """alice posts a challenge open to anyone and leaves the server: carol's Accept closes it,
    saying why, instead of starting a match against someone who can never move."""
    table = threaded
    message = await table.reply_text(table.alice, "challenge", {"sets": 1})
    await leave(table, table.alice)
    pressed = await table.standin.click(
        message, f"challenge:accept:{challenge_id(message)}", table.carol
    )
    await pressed.wait_original()
    assert message.thread is None, "a thread and a match were started with a member who left"
    assert message.content == (
        f"{table.alice.mention} has left the server, so this challenge is closed."
    )
    assert message.components == []
    assert table.bot is not None
    waiting = await table.bot.services.challenges.waiting_for_anyone(table.guild.id)
    assert waiting.total == 0


async def test_a_member_lookup_failing_otherwise_does_not_close_a_challenge(
    threaded: Harness,
) -> None:
    """Discord answers the challenger's member lookup with a 404 that is not Unknown Member
    (10004 Unknown Guild): that is no proof alice left, so carol's Accept starts the match
    (any 404 used to close the challenge, saying alice had left the server)."""
    table = threaded
    message = await table.reply_text(table.alice, "challenge", {"sets": 1})
    asked = table.standin.fail_rest(
        404,
        seconds=60,
        code=10004,
        matching=lambda method, path: method == "GET" and "/members/" in path,
    )
    await table.standin.click(message, f"challenge:accept:{challenge_id(message)}", table.carol)
    assert message.thread is not None, message.content
    await table.wait_board(channel=message.thread)
    assert asked.hits >= 1
    assert "left the server" not in message.content


# -- a permission no game needs ------------------------------------------


async def test_denying_embed_links_to_everyone_does_not_stop_a_game(table: Harness) -> None:
    """A moderator stops link previews in #games the usual way (@everyone: Embed Links off):
    no game post carries an embed, so the game goes on (every /move there was refused with
    "I need the Embed Links permission here")."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(
        table.channel, table.guild, deny=discord.Permissions(embed_links=True)
    )
    reply = await table.move(table.alice, "d1-b1")
    assert not reply.ephemeral, reply.content


# -- a deleted thread ---------------------------------------------------------------------------


async def test_a_deleted_game_thread_does_not_stop_the_timers_for_good(threaded: Harness) -> None:
    """A moderator deletes a game's thread mid-game (the bot now aborts its game at once:
    tests/test_bot_vanished.py): a day and many timer checks later the timers go on for every
    other game."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.standin.delete_channel(thread)
    table.advance(timedelta(days=1, seconds=1))
    await table.checks_run()
    for _ in range(50):
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    await table.reply_text(table.admin, "settings", {"threads": "off"})
    side = table.guild.channel("side")
    reply = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1, "time": 60}, channel=side
    )
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.admin)
    await table.wait_board(channel=side)
    table.advance(timedelta(minutes=61))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=side, timeout=20)


async def test_a_rematch_the_parent_channel_refuses_says_where_and_what(threaded: Harness) -> None:
    """A thread match ends; meanwhile an admin took Send Messages in #games from the bot (it
    still plays in threads). bob's Rematch cannot be posted in #games: he is told so, naming
    #games and the permission (he was told "I can't play in this channel: I need the Send
    Messages, Attach Files permissions here", of the thread he was playing in)."""
    table = threaded
    _, thread = await board_thread_game(table)
    last: StoredMessage | None = None
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        last = await table.reply_text(who, "move", {"move": text}, channel=thread)
    assert last is not None
    assert "wins the game" in last.content
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    [rematch] = [c for c in last.custom_ids() if c.startswith("rematch:")]
    pressed = await table.standin.click(last, rematch, table.bob)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        f"I could not offer the rematch in <#{table.channel.id}>: I may not post there. A server "
        "admin can give me View Channel and Send Messages in that channel."
    )
    # Nothing holds the pair: once the admin puts it right, the rematch can be offered.
    await table.standin.set_overwrite(table.channel, table.me)
    again = await table.standin.click(last, rematch, table.bob)
    assert (await again.wait_original()).content.startswith("Rematch offered in")


# -- from the review of these fixes ---------------------------------------------------------


async def test_the_computer_opens_set_two_after_winning_set_one_while_refused(
    table: Harness,
) -> None:
    """The computer (defenders in set 1) wins set 1 with its own move while the bot may not
    view the channel: set 2, where it attacks, still begins with its move."""
    assert table.bot is not None
    gate = asyncio.Event()
    script = {0: "d1-b1", 1: "d3-a3", 3: "d4-d1", 5: "d1-g1"}  # the defenders win at ply 5

    async def scripted(game: Game, level: int, *, seed: int | None = None) -> str:
        if game.ply == 5:
            await gate.wait()
        return script[game.ply]

    table.bot.ai.choose_move = scripted  # type: ignore[method-assign]
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 2})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    for text, answer in (("d1-b1", "d3-a3"), ("d2-a2", "d4-d1")):
        await table.move(table.alice, text)
        await table.wait_board(lambda m, answer=answer: f"played {answer}" in m.content)
    await table.move(table.alice, "b1-c1")  # the computer's answer, winning, waits for gate
    await table.standin.set_overwrite(table.channel, table.me, deny=VIEW_CHANNEL)
    gate.set()  # its winning move is made while it cannot post
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, table.channel.id), 2)
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))
    await eventually(lambda: _set_and_ply(games, table.channel.id), (2, 1))


async def _set_number(games: GameService, channel_id: int) -> int | None:
    active = await games.in_channel(channel_id)
    return None if active is None else active.set_number


async def _set_and_ply(games: GameService, channel_id: int) -> tuple[int, int] | None:
    active = await games.in_channel(channel_id)
    return None if active is None else (active.set_number, min(active.ply, 1))


async def test_an_owed_board_is_posted_soon_after_a_connection_outage(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord unreachable at the connection level (aiohttp raises, not an HTTPException):
    once it is back, the owed board comes within seconds, not after an hour's back-off."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    real = discord.PartialMessageable.send
    down = True

    async def unreachable(
        self: discord.PartialMessageable, *args: Any, **kwargs: Any
    ) -> discord.Message:
        if down:
            raise aiohttp.ServerDisconnectedError()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(discord.PartialMessageable, "send", unreachable)
    table.advance(timedelta(days=1, seconds=1))  # alice loses on time; the board is owed
    await table.checks_run()
    for _ in range(14):  # a long outage: the outbox tries again and again
        table.advance(timedelta(hours=1))
        await table.checks_run()
    down = False
    table.advance(timedelta(seconds=11))
    await table.wait_board(lambda m: "ran out of time" in m.content)


async def test_one_timeout_failing_off_http_does_not_strand_the_others(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two games against the computer time out in one check and the first one's post fails
    with a connection error: the second game's set 2 still begins with the computer's move."""
    assert table.bot is not None
    side = table.guild.channel("side")
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 2})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.slash(table.carol, "challenge", {"opponent": table.me, "sets": 2}, channel=side)
    await table.wait_board(lambda m: "your move as the attackers" in m.content, channel=side)
    real = discord.PartialMessageable.send

    async def flaky(self: discord.PartialMessageable, *args: Any, **kwargs: Any) -> discord.Message:
        if self.id == table.channel.id:
            raise aiohttp.ServerDisconnectedError()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(discord.PartialMessageable, "send", flaky)
    table.advance(timedelta(days=1, seconds=1))
    games = table.bot.services.games
    await eventually(lambda: _set_and_ply(games, side.id), (2, 1))


async def test_accept_answers_in_time_when_the_member_lookup_is_slow(
    threaded: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord answering the member lookup slowly (a rate-limit wait, 5xx retries inside
    discord.py) does not make Accept miss the 3-second deadline."""
    table = threaded
    real = discord.Guild.fetch_member

    async def slow(self: discord.Guild, user_id: int) -> discord.Member:
        await asyncio.sleep(3.5)
        return await real(self, user_id)

    monkeypatch.setattr(discord.Guild, "fetch_member", slow)
    message = await table.reply_text(table.alice, "challenge", {"sets": 1})
    pressed = await table.standin.click(
        message, f"challenge:accept:{challenge_id(message)}", table.carol
    )
    await pressed.wait_original()
    assert message.thread is not None


async def test_a_reminder_whose_post_times_out_is_tried_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reminder post that times out (not an HTTPException) is tried again at the next
    check, and the other game's reminder due in the same check is posted too."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    side = table.guild.channel("side")
    reply = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1}, channel=side
    )
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.admin)
    await table.wait_board(channel=side)
    real = discord.PartialMessageable.send
    failures = 1

    async def flaky(self: discord.PartialMessageable, *args: Any, **kwargs: Any) -> discord.Message:
        nonlocal failures
        if "reminder" in str(args[0] if args else kwargs.get("content")) and failures:
            failures -= 1
            raise TimeoutError
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(discord.PartialMessageable, "send", flaky)
    table.advance(timedelta(hours=12, seconds=30))
    await table.standin.wait_until(
        lambda: (
            sum(
                "reminder" in m.content
                for ch in (table.channel, side)
                for m in table.public_messages(ch)
            )
            == 2
        ),
        timeout=5,
    )


async def test_a_reminder_in_a_locked_thread_is_not_retried_every_check(
    threaded: Harness,
) -> None:
    """A moderator archives and locks a game's thread: Discord answers 400 (50083) to the
    reminder, which is not tried again at every check (only what Discord could not take is)."""
    table = threaded
    _, thread = await board_thread_game(table)
    thread.archived = True
    thread.locked = True
    table.advance(timedelta(hours=12, seconds=1))
    await table.checks_run(40)
    path = f"/api/v10/channels/{thread.id}/messages"
    tries = sum(
        1
        for c in table.standin.rest_log
        if c.method == "POST" and c.path == path and c.status == 400
    )
    assert tries <= 3, f"{tries} refused reminder posts in 40 checks"


async def test_a_board_owed_to_a_locked_thread_backs_off(threaded: Harness) -> None:
    """A moderator archives and locks a game's thread and the game ends on time: Discord
    answers the owed final board with 400 (50083), a refusal like 403's, so the outbox's
    pauses grow towards an hour (it tried every 10 s, as if Discord were down)."""
    table = threaded
    _, thread = await board_thread_game(table)
    thread.archived = True
    thread.locked = True
    table.advance(timedelta(days=1, seconds=1))
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, thread.id), None)
    path = f"/api/v10/channels/{thread.id}/messages"

    def refused() -> int:
        return sum(
            1
            for c in table.standin.rest_log
            if c.method == "POST" and c.path == path and c.status == 400
        )

    before = refused()
    for _ in range(60):  # an hour, a minute at a time
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    tries = refused() - before
    # Pauses doubling from 1 s to an hour give about a dozen tries in the first hour (the
    # first minute's several tries land in whichever minute-step the test is at); every
    # 10 s, as before, gave 60.
    assert tries <= 20, f"the outbox was refused {tries} times in an hour and keeps trying"


# -- permissions given back: the owed board comes at once ----------------------------------


async def lose_on_time_while_refused(table: Harness, channel: FakeChannel) -> None:
    """alice loses on time while Discord refuses the bot's posts in ``channel``; the outbox
    tries the owed final board for 20 minutes, and so pauses for longer and longer."""
    table.advance(timedelta(days=1, seconds=1))
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, channel.id), None)
    for _ in range(20):
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    assert not [m for m in table.public_messages(channel) if "ran out of time" in m.content]


async def final_board_soon(table: Harness, channel: FakeChannel) -> None:
    """The owed final board is posted while the bot's clock stands still (the refusals' pause
    would have lasted many more minutes of it: the wait is bounded by that, not by the 20 s
    of wall time a loaded machine may need)."""
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=channel)


async def test_a_board_is_posted_soon_after_the_channel_allows_it_again(table: Harness) -> None:
    """An admin took Send Messages in #games from the bot while a game ended on time, then
    gives it back: the owed board comes at the next check, not after the refusal's pause."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)
    await table.standin.set_overwrite(table.channel, table.me)  # the denial removed
    await final_board_soon(table, table.channel)


async def stopped_while_refused(discord_standin: DiscordStandin, tmp_path: Path) -> Harness:
    """alice loses on time while the bot may not post in #games (its final board owed,
    paused after the refusals), and the bot stops: returns the stopped harness."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False, ai_seconds=0.02)
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob, sets=1)
        await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
        await lose_on_time_while_refused(table, table.channel)
    finally:
        await table.stop()
    return table


async def test_a_board_is_posted_soon_after_a_permission_given_back_while_stopped(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin took Send Messages in #games from the bot while a game ended on time, and
    gives it back while the bot is stopped: after the restart the owed board comes at the
    first check, not after the refusal's pause (up to an hour)."""
    table = await stopped_while_refused(discord_standin, tmp_path)
    try:
        await table.standin.set_overwrite(table.channel, table.me)  # the denial removed
        await table.start()
        await final_board_soon(table, table.channel)
    finally:
        await table.stop()


async def test_a_restart_leaves_a_board_still_refused_to_its_pause(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The same, but the permission is still denied at the restart: the owed board keeps its
    pause (each start does not try every refused post at once): no post is refused after it.
    (Pins behaviour that already worked.)"""
    table = await stopped_while_refused(discord_standin, tmp_path)
    try:
        refused = refused_posts(table, table.channel.id)
        await table.start()
        await table.checks_run(3)
        assert refused_posts(table, table.channel.id) == refused
    finally:
        await table.stop()


async def test_a_permission_given_back_while_the_database_is_busy_is_not_lost(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The denial is removed while another program holds the write lock for 8 s (longer than
    a write waits): noting it is tried again after the lock, and the owed board comes soon
    (before, Discord's one event was dropped, and the board waited out the refusal's pause)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)
    caplog.set_level(logging.INFO, logger="bot.flow.until_stored")
    async with foreign_write_lock(table.db_path, 8.0):
        await table.standin.set_overwrite(table.channel, table.me)  # the denial removed
        await until(lambda: busy_retries(caplog) >= 1)  # the first try has given up
    await table.wait_board(lambda m: "ran out of time" in m.content, timeout=20)


async def test_a_burst_of_channel_changes_while_the_database_is_busy_is_one_write(
    table: Harness,
) -> None:
    """An admin reorders channels (Discord sends an update for each) while another program
    holds the write lock: the server's refused boards are made due again by one background
    write waiting out the lock, not one each (before, five, each retrying for minutes)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)

    def retrying() -> int:
        return sum(
            task.get_name().startswith("brandubh-refused-boards-of-server")
            for task in asyncio.all_tasks()
            if not task.done()
        )

    async with foreign_write_lock(table.db_path, 8.0):
        for _ in range(4):
            await table.standin.set_overwrite(table.channel, table.carol)  # another change
        await table.standin.set_overwrite(table.channel, table.me)  # the denial removed
        await table.standin.wait_until(lambda: retrying() >= 1, timeout=5)
        await settled(table)  # every update has reached the bot and been weighed
        assert retrying() == 1
    await table.wait_board(lambda m: "ran out of time" in m.content, timeout=15)


async def test_a_permission_given_back_while_postgresql_is_busy_is_not_lost(
    discord_standin: DiscordStandin,
    postgres: PostgresServer | str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On PostgreSQL, another connection's open transaction holds the owed board's row when
    the denial is removed, until the write noting it has waited for the lock and given up:
    noting it is tried again after, and the owed board comes soon."""
    url = await postgres_database(postgres)
    table = PostgresHarness(discord_standin, tmp_path, url)
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob, sets=1)
        await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
        await lose_on_time_while_refused(table, table.channel)
        other = await asyncpg.connect(url)
        caplog.set_level(logging.INFO, logger="bot.flow.until_stored")
        try:
            async with other.transaction():
                held = await other.fetch(
                    "SELECT set_id FROM announcements WHERE delivered_us IS NULL FOR UPDATE"
                )
                assert held, "no owed board to hold"
                await table.standin.set_overwrite(table.channel, table.me)  # the denial removed
                await until(lambda: busy_retries(caplog) >= 1)  # the first try has given up
        finally:
            await other.close()
        await table.wait_board(lambda m: "ran out of time" in m.content)
    finally:
        await table.stop()


async def test_a_board_is_posted_soon_after_the_bots_role_allows_it_again(
    table: Harness,
) -> None:
    """An admin edits the roles so that the bot may not send messages anywhere, then gives
    the bot's own role Send Messages: the owed board comes at the next check."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    mine = next(role for role in table.me.roles if role.managed)
    granted = mine.permissions
    await table.standin.edit_role(mine, permissions=granted & ~SEND_MESSAGES)
    everyone = table.guild.everyone
    await table.standin.edit_role(everyone, permissions=everyone.permissions & ~SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)
    await table.standin.edit_role(mine, permissions=granted | SEND_MESSAGES)
    await final_board_soon(table, table.channel)


async def test_a_board_is_posted_soon_after_the_bot_is_given_a_role(table: Harness) -> None:
    """The bot may not send messages (its role and @everyone lack it) when a game ends on time;
    an admin gives the bot a "Game host" role that may: the owed board comes at the next
    check (Discord tells a bot of its own roles without the members intent)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    mine = next(role for role in table.me.roles if role.managed)
    await table.standin.edit_role(mine, permissions=mine.permissions & ~SEND_MESSAGES)
    everyone = table.guild.everyone
    await table.standin.edit_role(everyone, permissions=everyone.permissions & ~SEND_MESSAGES)
    host = await table.standin.add_role(table.guild, "Game host")
    await table.standin.edit_role(host, permissions=SEND_MESSAGES)
    await lose_on_time_while_refused(table, table.channel)
    await table.standin.give_role(table.me, host)
    await final_board_soon(table, table.channel)


async def test_a_board_is_posted_soon_after_its_thread_is_unlocked(threaded: Harness) -> None:
    """A moderator locked a game's thread and an admin aborted its game from the channel
    meanwhile: the admin is told it is aborted, and nothing went wrong (the thread refuses
    the board, which is owed). The moderator unlocks it: the owed board comes at the next
    check."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    assert table.bot is not None
    games = table.bot.services.games
    active = await games.in_channel(thread.id)
    assert active is not None
    asked = await table.reply_text(table.admin, "abort", {"game": active.set_id})
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    pressed = await table.standin.click(asked, confirm, table.admin)
    await eventually(lambda: _set_number(games, thread.id), None)
    # The abort is stored, and the admin is told so, and nothing else (before, an apology
    # followed: "something went wrong … please try again", for the board Discord refused).
    await settled(table)  # the press is answered: an apology would have followed
    assert asked.content == "You aborted the game."
    assert [m.content for m in pressed.followups] == []
    for _ in range(20):  # the owed board is refused for 20 minutes, so pauses grow
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    assert not [m for m in table.public_messages(thread) if " aborted the " in m.content]
    await table.standin.edit_thread(thread, locked=False)
    await table.wait_board(lambda m: " aborted the " in m.content, channel=thread, timeout=5)


async def thread_held(table: Harness, thread: FakeChannel, *, is_held: bool = True) -> None:
    """The bot has heard of the lock (or the unlock): ``thread`` is held (or not)."""
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id) is is_held)


async def test_a_game_in_a_locked_thread_is_not_lost_on_time(threaded: Harness) -> None:
    """A moderator locks and archives a game's thread with alice to move and four hours left:
    nobody but a moderator may post there, and Discord offers no commands in it, so her
    deadline passing meanwhile ends nothing. Unlocked two days later, her board says she has
    her four hours, and she plays (before, she lost on time, rated, while nobody could play)."""
    table = threaded
    _, thread = await board_thread_game(table)
    [board] = [m for m in table.public_messages(thread) if m.components]
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    table.advance(timedelta(days=2))
    await timers_checked(table)
    assert table.bot is not None
    games = table.bot.services.games
    assert await _set_number(games, thread.id) == 1, "alice lost on time in the locked thread"
    await table.standin.edit_thread(thread, archived=False, locked=False)
    four_hours_on = f"<t:{int((table.now + timedelta(hours=4)).timestamp())}:R>"
    await table.standin.wait_until(lambda: four_hours_on in board.content, timeout=20)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert "played d1-b1" in played.content, played.content


async def test_a_reminder_due_in_a_locked_thread_comes_once_it_is_open(
    threaded: Harness,
) -> None:
    """alice's half-time reminder falls due while a moderator has her thread locked and
    archived: it is not spent on a post Discord refuses, and comes when half her time has
    run with the thread open (the locked hours given back)."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    table.advance(timedelta(hours=13))  # past half her time, all of it locked
    await timers_checked(table)
    assert not [m for m in table.public_messages(thread) if "reminder" in m.content]
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)
    table.advance(timedelta(hours=12, minutes=1))  # half her time, open
    reminder = await table.standin.wait_for_message(
        thread, lambda m: "reminder" in m.content, timeout=20
    )
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_thread_locked_while_i_was_away_holds_its_game(threaded: Harness) -> None:
    """The thread is locked and archived while the bot is stopped (it hears nothing of it),
    alice having four hours left: when her deadline passes after the restart, Discord is
    asked about the thread, and her set is not ended. Unlocked two days later, she is given
    back the time from when it was archived, not from when the bot found it so: she has her
    four hours again, to the second (no more: the stand-in dates the archiving by the bot's
    clock, so a give-back from too early is not hidden by the cap at what her clock ran)."""
    table = threaded
    _, thread = await board_thread_game(table)
    [board] = [m for m in table.public_messages(thread) if m.components]
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    await table.stop()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await table.start()
    table.advance(timedelta(days=2))
    await timers_checked(table)
    assert table.bot is not None
    assert await _set_number(table.bot.services.games, thread.id) == 1
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)
    four_hours_on = f"<t:{int((table.now + timedelta(hours=4)).timestamp())}:R>"
    await timers_checked(table)  # she is not lost on time now
    assert await _set_number(table.bot.services.games, thread.id) == 1, "lost once unlocked"
    await table.standin.wait_until(lambda: four_hours_on in board.content, timeout=20)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert "played d1-b1" in played.content, played.content


async def test_a_thread_locked_before_a_restart_still_holds_its_game(threaded: Harness) -> None:
    """A moderator locks and archives alice's thread with four hours left, her deadline
    passes, and the bot is restarted before the thread is opened again: she is not lost on
    time once it opens (the locked days before the restart are given back too)."""
    table = threaded
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    table.advance(timedelta(days=2))
    await timers_checked(table)  # held
    await table.stop()
    await table.start()
    table.advance(timedelta(minutes=1))
    await timers_checked(table)
    assert table.bot is not None
    games = table.bot.services.games
    assert await _set_number(games, thread.id) == 1, "alice lost on time after the restart"
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)
    await timers_checked(table)
    assert await _set_number(games, thread.id) == 1, "alice lost on time once it opened"
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert "played d1-b1" in played.content, played.content


def reminders(table: Harness, thread: FakeChannel) -> tuple[int, int]:
    """The reminders posted in ``thread``, and those Discord refused there."""
    path = f"/api/v10/channels/{thread.id}/messages"
    refused = sum(
        1
        for call in table.standin.rest_log
        if call.method == "POST" and call.path == path and call.status >= 400
    )
    return len([m for m in table.public_messages(thread) if "reminder" in m.content]), refused


async def test_a_thread_locked_before_a_restart_holds_its_reminder(threaded: Harness) -> None:
    """A moderator locks and archives alice's thread two hours into her day, and the bot is
    restarted: the hold is kept, so her half-time reminder, due while it is still locked, is
    not spent on a post Discord refuses; once it opens it comes when half her time has run
    with the thread open (before, the restart forgot the hold: the reminder was refused and
    never sent, and she lost on time for the hours it was locked)."""
    table = threaded
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=2))
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    await table.stop()
    await table.start()
    table.advance(timedelta(hours=13))  # past half her time, the thread locked
    await timers_checked(table)
    assert reminders(table, thread) == (0, 0)
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)
    table.advance(timedelta(hours=9, minutes=59))  # not yet half her time with it open
    await timers_checked(table)  # and 33 s more
    assert reminders(table, thread) == (0, 0)
    table.advance(timedelta(minutes=2))
    reminder = await table.standin.wait_for_message(
        thread, lambda m: "reminder" in m.content, timeout=20
    )
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_reminder_refused_in_a_thread_locked_while_i_was_away_comes_once_it_is_open(
    threaded: Harness,
) -> None:
    """The thread is locked and archived while the bot is stopped (it hears nothing of it):
    alice's half-time reminder after the restart is refused, and Discord, asked why, shows
    the thread locked; it is held, and the reminder comes once it is open and half her time
    has run (before, the refused reminder was never sent again)."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.stop()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await table.start()
    table.advance(timedelta(hours=13))  # past half her time, the thread locked
    await table.checks_run(10)
    assert reminders(table, thread) == (0, 1)  # refused once, not every check
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)
    table.advance(timedelta(hours=12, minutes=1))  # half her time, open
    reminder = await table.standin.wait_for_message(
        thread, lambda m: "reminder" in m.content, timeout=5
    )
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_locked_thread_without_a_game_is_not_held(threaded: Harness) -> None:
    """A moderator locks and archives a thread whose game is over (tidying up): nothing is
    held for it (the bot does not keep, for as long as it runs, every thread ever locked in
    every server it is in)."""
    table = threaded
    _, thread = await board_thread_game(table)
    assert table.bot is not None
    games = table.bot.services.games
    active = await games.in_channel(thread.id)
    assert active is not None
    asked = await table.reply_text(table.admin, "abort", {"game": active.set_id})
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    await table.standin.click(asked, confirm, table.admin)
    await eventually(lambda: _set_number(games, thread.id), None)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await settled(table)  # the bot has weighed the lock
    assert thread.id not in table.bot.timers.holds._closed_threads


async def test_a_thread_opened_while_the_gateway_was_down_is_held_no_more(
    threaded: Harness,
) -> None:
    """A moderator locks alice's thread, then opens it again while Discord's gateway has
    dropped the bot (it never hears of the opening): once the bot is back her clock runs
    again, and her deadline passing ends the set on time (it is not held for ever)."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    assert table.bot is not None
    holds = table.bot.timers.holds
    connections = gateway_connections(table.standin)
    await table.standin.drop_gateway(refuse_for=math.inf)
    await until(lambda: bool(holds._down))  # the bot hears that it was dropped
    # Opened meanwhile: the bot is sent no THREAD_UPDATE (no connection to send it on).
    thread.archived = thread.locked = False
    table.standin.reopen_gateway()
    await reconnected(table.standin, connections)
    await until(lambda: not holds._down)  # the bot hears that it is back
    await thread_held(table, thread, is_held=False)  # Discord asked about it once back
    table.advance(timedelta(days=1, minutes=1))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread, timeout=20)


# -- moves where I may only answer: played, not lost on time ---------------------------------

ANSWERS_ONLY = (
    "I can only answer commands in this channel, not post on my own, until a server admin "
    "gives me the {permission} permission here: your opponent may not be reminded of their turn."
)


SHOWN_AS_TEXT = (
    "Until a server admin gives me the Attach Files permission here, I show boards as text, "
    "without their picture."
)
BOARD_AS_TEXT = "\n> Brandubh (World Tafl Federation) board, 7x7."
"""Where a board's picture stands where I may attach files: its alt text, quoted."""


def slow_to_store_moves(table: Harness) -> None:
    """Every move takes 2 s to store from now on (the database busy), so that a /move is
    deferred privately before it is known to be played."""
    assert table.bot is not None
    games = table.bot.services.games
    real = games.play

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(2.0)
        return await real(*args, **kwargs)

    games.play = slow  # type: ignore[method-assign]


async def moved_where_refused(
    table: Harness,
    who: FakeMember,
    text: str,
    *,
    channel: FakeChannel | None = None,
    picture: bool = True,
) -> tuple[StoredMessage, StoredMessage]:
    """``who`` plays ``text`` with /move where I may not post on my own (or attach files,
    then not ``picture``): the public board that answers it, and the note only ``who``
    sees."""
    record: InteractionRecord = await table.slash(who, "move", {"move": text}, channel=channel)
    board = await record.wait_original()
    assert not board.ephemeral, board.content
    if picture:
        assert any(a.filename.endswith(".png") for a in board.attachments), board.content
    else:
        assert board.attachments == [], board.content
        assert BOARD_AS_TEXT in board.content
    [note] = await record.wait_followups()
    assert note.ephemeral
    return board, note


async def test_moves_are_played_where_i_may_not_send_messages(table: Harness) -> None:
    """An admin takes Send Messages in #games from the bot mid-game: alice's and bob's /move
    are played, each answered with the board (an interaction's answer needs no Send Messages),
    so neither loses on time for the admin's setting (alice's /move was refused, and she lost
    the set on time, rated). Once the permission is back nothing is posted twice."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(hours=20))
    board, note = await moved_where_refused(table, table.alice, "d1-b1")
    assert "**alice** (attackers) played d1-b1." in board.content
    assert f"<@{table.bob.id}>, your move as the defenders" in board.content
    assert board.allowed_user_ids() == {table.bob.id}
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages")
    table.advance(timedelta(hours=20))
    board, _ = await moved_where_refused(table, table.bob, "c4-c2")
    assert "**bob** (defenders) played c4-c2." in board.content
    table.advance(timedelta(hours=20))  # 60 hours: each moved within their day
    await table.checks_run()
    assert table.bot is not None
    assert await _set_and_ply(table.bot.services.games, table.channel.id) == (1, 1)
    assert not [m for m in table.public_messages() if "ran out of time" in m.content]
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await settled(table)
    await table.checks_run(2)  # a second post would have come by now
    assert len([m for m in table.public_messages() if "played c4-c2" in m.content]) == 1


async def test_the_note_of_what_waits_comes_once_a_set_to_each_player(table: Harness) -> None:
    """Where I may not send messages, alice and bob are each told once what waits, at their
    first move of the set, not at every move (it came with each move)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    _board, note = await moved_where_refused(table, table.alice, "d1-b1")
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages")
    _board, note = await moved_where_refused(table, table.bob, "c4-c2")
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages")
    again = await table.slash(table.alice, "move", {"move": "b4-b5"})
    board = await again.wait_original()
    assert "**alice** (attackers) played b4-b5." in board.content
    await settled(table)  # her /move is answered: a note would have followed
    assert again.followups == []


async def test_the_notes_of_what_waits_are_remembered_up_to_a_bound(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot remembers the last notes of what waits it gave (here one), not one per set
    ever played where it lacked a permission: the one forgotten is told once more."""
    assert table.bot is not None
    table.bot.flow.player_moves.noted = RecentlyUsed(1)
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    await moved_where_refused(table, table.alice, "d1-b1")
    await moved_where_refused(table, table.bob, "c4-c2")
    assert len(table.bot.flow.player_moves.noted) == 1
    _board, note = await moved_where_refused(table, table.alice, "b4-b5")
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages")


async def test_a_move_is_played_where_i_may_not_attach_files(table: Harness) -> None:
    """Without Attach Files in #games, alice's /move is played and answered with the board as
    text, its picture's alt text in place of the picture (Discord refuses a file in an
    interaction's answer there); her note says boards are shown as text until an admin gives
    the permission, and bob's, whose Discord speaks German, is in German."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    board, note = await moved_where_refused(table, table.alice, "d1-b1", picture=False)
    assert board.content.startswith("**alice** (attackers) played d1-b1.\n")
    assert f"<@{table.bob.id}>, your move as the defenders" in board.content
    assert "Last move: attackers d1-b1. The king is on d4." in board.content
    assert "Attackers (8): b1, d2, a4, b4, f4, g4, d6, d7." in board.content
    assert board.allowed_user_ids() == {table.bob.id}
    assert note.content == SHOWN_AS_TEXT
    table.bob.user.locale = "de"
    board, note = await moved_where_refused(table, table.bob, "c4-c2", picture=False)
    assert "**bob** (defenders) played c4-c2." in board.content
    assert note.content == (
        "Bis ein Server-Admin mir hier die Berechtigung Dateien anhängen gibt, zeige ich Bretter "
        "als Text, ohne Bild."
    )
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.ply == 2


async def test_the_picker_plays_where_i_may_not_attach_files(table: Harness) -> None:
    """Without Attach Files, alice plays with the Move button's picker: its second step has no
    picture, the picker becomes "You played d1-b1." with the note, and the board follows as
    text (Discord refused the second step and the board, each with its picture)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    step_two = await table.picked(board, table.alice)
    assert step_two.content == "Where does d1 go?"
    assert step_two.attachments == []
    [where] = step_two.custom_ids()
    await table.standin.select(step_two, where, table.alice, ["d1-b1"])
    shown = await table.standin.wait_for_message(
        table.channel, lambda m: not m.ephemeral and "played d1-b1." in m.content
    )
    assert shown.attachments == []
    assert "**alice** (attackers) played d1-b1." in shown.content
    assert BOARD_AS_TEXT in shown.content
    assert shown.custom_ids(), "the board as text carries the game's buttons"
    assert step_two.content == "You played d1-b1.\n" + SHOWN_AS_TEXT


async def test_board_and_resignation_answer_as_text_where_i_may_not_attach_files(
    table: Harness,
) -> None:
    """Without Attach Files in #games, bob's /board shows the game as text, and alice's
    confirmed resignation ends the set with its final board as text (both answers were
    refused with their picture: an error for bob, and alice's set ended unannounced)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    shown = await table.reply_text(table.bob, "board")
    assert not shown.ephemeral, shown.content
    assert shown.attachments == []
    assert f"<@{table.alice.id}>, your move as the attackers" in shown.content
    assert BOARD_AS_TEXT in shown.content
    asked = await table.reply_text(table.alice, "resign")
    pressed = await table.standin.click(
        asked, asked.button("Resign the game")["custom_id"], table.alice
    )
    over = await pressed.wait_followup()
    assert not over.ephemeral, over.content
    assert over.attachments == []
    assert f"<@{table.bob.id}> wins the game." in over.content
    assert BOARD_AS_TEXT in over.content
    assert "No move was played. The king is on d4." in over.content


async def test_moves_are_played_in_a_thread_where_i_may_not_send_messages(
    threaded: Harness,
) -> None:
    """Without Send Messages in Threads on #games, alice and bob play on in their game's
    thread: each /move is answered with the board, and the note names that permission."""
    table = threaded
    _, thread = await board_thread_game(table)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES_IN_THREADS)
    board, note = await moved_where_refused(table, table.alice, "d1-b1", channel=thread)
    assert "**alice** (attackers) played d1-b1." in board.content
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages in Threads")
    board, _ = await moved_where_refused(table, table.bob, "c4-c2", channel=thread)
    assert "**bob** (defenders) played c4-c2." in board.content
    table.advance(timedelta(hours=20))
    await table.checks_run()
    assert table.bot is not None
    assert await _set_and_ply(table.bot.services.games, thread.id) == (1, 1)


async def test_the_picker_plays_where_i_may_not_send_messages(table: Harness) -> None:
    """Without Send Messages, alice plays with the Move button's picker: the picker becomes
    "You played d1-b1." with the note, and the board follows as the press's public answer."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    played = await table.standin.select(step_two, where, table.alice, ["d1-b1"])
    [shown] = await played.wait_followups()
    assert not shown.ephemeral
    assert "**alice** (attackers) played d1-b1." in shown.content
    assert step_two.content == (
        "You played d1-b1.\n" + ANSWERS_ONLY.format(permission="Send Messages")
    )


async def test_the_computer_replies_where_i_may_not_send_messages(table: Harness) -> None:
    """Against the computer without Send Messages in #games: alice's /move is played, and
    the computer's reply edits her answer into its board (an edit of my own message needs no
    Send Messages), as it does normally; her note says /board shows the game if the reply
    does not show. Once the permission is back, the reply is not posted a second time."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})
    answer = await record.wait_original()
    assert not answer.ephemeral, answer.content
    [note] = await record.wait_followups()
    assert note.ephemeral
    assert note.content == (
        "I can only answer commands in this channel, not post on my own, until a server admin "
        f"gives me the Send Messages permission here: if my reply does not show, "
        f"{table.mention('board')} shows it."
    )
    await table.standin.wait_until(lambda: "(defenders) played" in answer.content, timeout=20)
    assert answer.attachments
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))
    await settled(table)
    await table.checks_run(2)  # the outbox would have posted it again by now
    replies = [m for m in table.public_messages() if "(defenders) played" in m.content]
    assert replies == [answer]


async def test_a_slow_move_where_i_may_not_send_messages_is_shown_and_posted_later(
    table: Harness,
) -> None:
    """alice's /move is slow to store (the database busy) where I may not send messages: it is
    deferred privately, so its public board would be a post of my own; she is shown the board
    privately with the note, and once the permission is back the outbox posts it publicly,
    once (the post was refused and the player told "I can't play in this channel", although
    her move was stored)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    slow_to_store_moves(table)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})
    shown, note = await record.wait_followups(2)
    assert shown.ephemeral
    assert "**alice** (attackers) played d1-b1." in shown.content
    assert shown.attachments
    assert shown.custom_ids() == []
    assert note.ephemeral
    assert note.content == ANSWERS_ONLY.format(permission="Send Messages")
    assert not [m for m in table.public_messages() if "played d1-b1" in m.content]
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    posted = await table.wait_board(lambda m: "played d1-b1" in m.content, timeout=20)
    assert f"<@{table.bob.id}>, your move as the defenders" in posted.content
    await table.checks_run(2)  # a second post would have come by now
    assert [m for m in table.public_messages() if "played d1-b1" in m.content] == [posted]


async def test_board_answers_where_i_may_not_send_messages(table: Harness) -> None:
    """Without Send Messages in #games, bob's /board shows the game: the board is the
    command's answer, which needs no Send Messages (it was refused, "I can't play in this
    channel", so the player to move could not see where the game stood)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    shown = await table.reply_text(table.bob, "board")
    assert not shown.ephemeral, shown.content
    assert shown.attachments
    assert f"<@{table.alice.id}>, your move as the attackers" in shown.content


async def test_a_resignation_is_announced_where_i_may_not_send_messages(table: Harness) -> None:
    """Without Send Messages in #games, alice's confirmed resignation ends the set, and its
    final board is the press's public answer (it was refused, "I can't play in this
    channel", and she lost on time instead)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    asked = await table.reply_text(table.alice, "resign")
    pressed = await table.standin.click(
        asked, asked.button("Resign the game")["custom_id"], table.alice
    )
    over = await pressed.wait_followup()
    assert not over.ephemeral, over.content
    assert f"<@{table.bob.id}> wins the game." in over.content
    assert asked.content == "You resigned the game."


async def test_a_computer_reply_i_cannot_show_is_on_board_and_posted_later(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Against the computer without Send Messages nor Attach Files, Discord refuses to edit
    alice's answer into the computer's board and its post of its own: alice's /board shows
    the computer's move meanwhile (as text), and once the permissions are back the outbox
    posts the reply, once. The refusal is a warning line, not an error's traceback."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES | ATTACH_FILES)
    edits = table.standin.fail_rest(
        403,
        seconds=120,
        code=50013,
        matching=lambda method, path: (
            method == "PATCH" and f"/channels/{table.channel.id}/messages/" in path
        ),
    )
    answer = await table.move(table.alice, "d1-b1")
    assert not answer.ephemeral, answer.content
    assert table.bot is not None
    games = table.bot.services.games

    async def plies() -> int | None:
        active = await games.in_channel(table.channel.id)
        return None if active is None else active.ply

    await eventually(plies, 2)
    active = await games.in_channel(table.channel.id)
    assert active is not None
    assert active.game.last_record is not None
    record = active.game.last_record
    reply = str(record.move)
    shown = await table.reply_text(table.alice, "board")
    assert not shown.ephemeral, shown.content
    assert f"Last move: {record}." in shown.content
    assert BOARD_AS_TEXT in shown.content
    # The flow has given the reply up (both refused), before Discord lets it again: its board
    # is the outbox's (a reply still being posted then would be edited into alice's answer).
    await table.standin.wait_until(lambda: edits.hits >= 1, waiting_for="the edit refused")
    outbox = table.bot.flow.outbox
    await until(lambda: not outbox._posting)
    edits.until = 0.0  # Discord takes edits again
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    posted = await table.wait_board(lambda m: f"(defenders) played {reply}" in m.content)
    await timers_checked(table)  # the outbox has looked again since
    played = [m for m in table.public_messages() if f"(defenders) played {reply}" in m.content]
    assert played == [posted]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_computer_replies_as_text_where_i_may_not_attach_files(table: Harness) -> None:
    """Against the computer without Attach Files in #games, the computer's reply edits
    alice's answer into its board as text (an edit adding the picture may be refused, and
    its reply then waited for the permission); her note says boards are shown as text."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})
    answer = await record.wait_original()
    assert not answer.ephemeral, answer.content
    [note] = await record.wait_followups()
    assert note.content == SHOWN_AS_TEXT
    await table.standin.wait_until(lambda: "(defenders) played" in answer.content, timeout=20)
    assert answer.attachments == []
    assert BOARD_AS_TEXT in answer.content
    assert f"<@{table.alice.id}>, your move as the attackers" in answer.content
    replies = [m for m in table.public_messages() if "(defenders) played" in m.content]
    assert replies == [answer]


async def test_a_slow_move_against_the_computer_where_i_may_not_post_says_where_my_reply_is(
    table: Harness,
) -> None:
    """alice's /move against the computer is slow to store where I may not send messages: it
    is shown to her privately, and that private line says /board shows my reply (it said "I
    am thinking…" for good: my reply is a board of its own, never edited into it)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    slow_to_store_moves(table)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})
    shown, _note = await record.wait_followups(2)
    assert shown.ephemeral
    assert shown.content == (
        "**alice** (attackers) played d1-b1.\n"
        f"My reply will not show here: {table.mention('board')} shows it once I have played."
    )


async def test_a_takeback_is_shown_as_text_where_i_may_not_attach_files(table: Harness) -> None:
    """Without Attach Files in #games, bob's accepting alice's takeback answers with the
    board as text (the press's answer with its picture was refused: the move undone, and
    no board showing it)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    request = await table.reply_text(table.alice, "takeback")
    [accept] = [
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    ]
    pressed = await table.standin.click(request, accept, table.bob)
    board = await pressed.wait_followup()
    assert not board.ephemeral, board.content
    assert board.attachments == []
    assert board.content.startswith("alice's move 1 was taken back.\n")
    assert BOARD_AS_TEXT in board.content
    assert "Attackers (8): d1, d2," in board.content


async def test_a_server_outage_during_a_thread_lock_is_given_back_once(
    threaded: Harness,
) -> None:
    """alice's thread is locked and archived with four hours left; an hour later the whole
    server is unavailable for an hour, and once it is back its hold gives that hour to every
    clock there, hers too. Opened two days after the lock, her thread's hold must not give
    her that hour again: she has her four hours."""
    table = threaded
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    table.advance(timedelta(hours=1))
    await table.checks_run()
    assert table.bot is not None
    outages = table.bot.timers.holds._outages
    await table.standin.guild_unavailable(table.guild)
    await until(lambda: table.guild.id in outages)  # the bot heard of it
    table.advance(timedelta(hours=1))
    await table.standin.guild_available(table.guild)  # the server is back
    await until(lambda: table.guild.id not in outages)  # its hour given back
    table.advance(timedelta(days=2))
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)  # its time given back
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.deadline - table.now == timedelta(hours=4)


async def test_a_long_restart_during_a_thread_lock_does_not_cost_its_game_the_restart(
    threaded: Harness,
) -> None:
    """alice's thread is locked and archived with four hours left; two days on, her deadline
    long past, the bot is stopped for three hours. The restart gives those hours to the
    clocks still running, not to hers (its deadline has passed); once the thread opens she
    must have her four hours, not four less the three hours of the restart."""
    table = threaded
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    table.advance(timedelta(days=2))
    await table.checks_run()
    await table.stop()
    table.advance(timedelta(hours=3))
    await table.start()
    await thread_held(table, thread)  # the hold taken up again
    await table.standin.edit_thread(thread, archived=False, locked=False)
    await thread_held(table, thread, is_held=False)  # its time given back
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.deadline - table.now == timedelta(hours=4)


async def test_a_thread_locked_again_while_its_time_is_given_back_stays_held(
    threaded: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's thread is locked with four hours left and opened an hour later; while that
    hour is being given back (slowly) a moderator locks it again: it is held (before, the
    give-back's end forgot the new lock, and she lost on time in a thread she could not play
    in), and opened two days later she has her four hours."""
    table = threaded
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))  # alice has four hours left
    await table.checks_run()
    assert table.bot is not None
    holds, games = table.bot.timers.holds, table.bot.services.games
    entered, go_on = waits_until_told(monkeypatch, table.bot.services.clocks, "give_back_closed")
    await holds.thread_closed(thread.id)
    table.advance(timedelta(hours=1))
    opened = asyncio.create_task(holds.thread_opened(thread.id))
    await entered.wait()
    await holds.thread_closed(thread.id)  # locked again meanwhile
    go_on.set()
    await opened
    assert holds.thread_held(thread.id)
    assert [hold.since for hold in await table.bot.services.holds.kept()] == [table.now]
    table.advance(timedelta(days=2))
    await timers_checked(table)  # alice's deadline has passed, held
    await holds.thread_opened(thread.id)
    active = await games.in_channel(thread.id)
    assert active is not None
    assert active.deadline - table.now == timedelta(hours=4)


async def test_a_locked_thread_whose_game_was_aborted_is_held_no_more_after_a_restart(
    threaded: Harness,
) -> None:
    """A moderator locks and archives a game's thread and leaves it so; an admin aborts its
    game from the channel. Nothing is left to hold there: after a restart the thread is
    neither held nor kept in the database (before, it was held, its row kept and Discord
    asked about it at every start and reconnection, for as long as it stayed locked)."""
    table = threaded
    _, thread = await board_thread_game(table)
    assert table.bot is not None
    holds = table.bot.timers.holds
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await eventually(lambda: _async(holds.thread_held(thread.id)), True)
    games = table.bot.services.games
    active = await games.in_channel(thread.id)
    assert active is not None
    asked = await table.reply_text(table.admin, "abort", {"game": active.set_id})
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    await table.standin.click(asked, confirm, table.admin)
    await eventually(lambda: _set_number(games, thread.id), None)
    await table.stop()
    bot = await table.start()
    await eventually(lambda: bot.services.holds.kept(), [])
    assert not bot.timers.holds.thread_held(thread.id)


async def _async(value: object) -> object:
    """``value``, awaitable (for :func:`eventually`)."""
    return value


async def test_boards_left_with_buttons_while_i_could_not_see_the_channel_lose_them(
    table: Harness,
) -> None:
    """alice and bob each move while the bot may not view #games (each /move answered with its
    board; Discord refuses the edits taking the buttons off the boards before): once it may
    again, the next board takes the buttons off all of them, where the two kept theirs."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=VIEW_CHANNEL)
    for who, text in ((table.alice, "d1-b1"), (table.bob, "c4-c2")):
        record = await table.slash(who, "move", {"move": text})
        assert f"played {text}" in (await record.wait_original()).content
    await settled(table)
    assert len([m for m in table.public_messages() if m.custom_ids()]) == 3
    await table.standin.set_overwrite(table.channel, table.me)
    await table.move(table.alice, "b4-b5")
    await settled(table)
    with_buttons = [m for m in table.public_messages() if m.custom_ids()]
    assert [m.content.splitlines()[0] for m in with_buttons] == [
        "**alice** (attackers) played b4-b5."
    ]
