"""Discord's rate limits on the bot's own posts: one channel's long wait holds up no other."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import discord
import pytest

from bot.errors import APOLOGY
from bot.flow.challenges import ChallengeFlow
from bot.i18n import Language
from bot.services.domain import Challenge
from tests.bot_harness import (
    Harness,
    board_thread_game,
    challenge_id,
    running_bot,
    timers_checked,
)
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.test_bot_threads import challenge_computer, thread_of

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""Five moves after which the attackers capture the king against the throne's neighbour."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a fresh server with #games and #lobby, alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@pytest.fixture
async def threaded(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The same, each game played in a thread of its own."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def test_a_long_rate_limit_in_one_channel_holds_up_no_other_game(table: Harness) -> None:
    """Discord answers alice's half-time reminder in #games with 429, to wait ten minutes:
    carol's game in #lobby still ends on time at that check (before, the timers waited out
    the ten minutes, and every game's clock with them), and alice's reminder is posted once,
    at a check after the ten minutes (before, it was sent into them at the next check)."""
    lobby = table.guild.channel("lobby")
    await table.challenge_accepted(table.alice, table.bob, time=60)
    offered = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "time": 5}, channel=lobby
    )
    await table.standin.click(offered, f"challenge:accept:{challenge_id(offered)}", table.admin)
    started = await table.wait_board(channel=lobby)
    games_posts = f"/channels/{table.channel.id}/messages"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "POST" and path == games_posts
    )
    table.advance(timedelta(minutes=31))
    ended = await table.wait_board(
        lambda m: m.created_at > started.created_at, channel=lobby, timeout=15
    )
    assert "time" in ended.content, ended.content
    assert limited.hits == 1
    await timers_checked(table)
    assert not [m for m in table.public_messages() if "reminder" in m.content]
    table.advance(timedelta(minutes=11))  # the wait is up: nothing was sent into it
    await table.standin.wait_for_message(table.channel, lambda m: "reminder" in m.content)
    assert limited.hits == 1
    await timers_checked(table)
    reminders = [m for m in table.public_messages() if "reminder" in m.content]
    assert len(reminders) == 1, [m.content for m in reminders]


async def test_a_short_rate_limit_is_waited_out_and_the_reminder_posted_once(
    table: Harness,
) -> None:
    """Discord answers alice's half-time reminder with 429, to wait a second: the bot waits
    and posts it, once (a wait of up to half a minute is waited out, not dropped)."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    games_posts = f"/channels/{table.channel.id}/messages"
    limited = table.standin.rate_limit(
        retry_after=1, matching=lambda method, path: method == "POST" and path == games_posts
    )
    table.advance(timedelta(minutes=31))
    await table.standin.wait_for_message(table.channel, lambda m: "reminder" in m.content)
    assert limited.hits == 1
    await timers_checked(table)
    reminders = [m for m in table.public_messages() if "reminder" in m.content]
    assert len(reminders) == 1, [m.content for m in reminders]


async def test_a_thread_whose_archiving_is_rate_limited_is_archived_at_a_later_check(
    threaded: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """alice wins in her thread; ten minutes on, Discord answers its archiving with 429, to
    wait ten minutes: the check goes on, logs no failure, and a later check archives it."""
    table = threaded
    _, thread = await board_thread_game(table, opening=ATTACKERS_WIN)
    await table.standin.wait_until(lambda: " won. " in table.thread_line(thread).content)
    thread_path = f"/channels/{thread.id}"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "PATCH" and path == thread_path
    )
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=10)
    assert limited.hits == 1
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


async def test_a_thread_archiving_rate_limited_past_the_clients_tries_is_archived_later(
    threaded: Harness,
) -> None:
    """Discord answers a finished match's thread archiving with 429 five times in a row
    (discord.py gives up with a plain 429): a later check archives it."""
    table = threaded
    _, thread = await board_thread_game(table, opening=ATTACKERS_WIN)
    await table.standin.wait_until(lambda: " won. " in table.thread_line(thread).content)
    thread_path = f"/channels/{thread.id}"
    limited = table.standin.rate_limit(
        retry_after=0.05,
        requests=5,
        matching=lambda method, path: method == "PATCH" and path == thread_path,
    )
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: limited.hits == 5, timeout=10)
    await timers_checked(table)
    assert thread.archived


async def test_a_long_rate_limit_on_one_expired_challenge_leaves_the_next_one_shown_expired(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """alice's challenge in #games and carol's in #lobby expire at one check; Discord answers
    the edit of alice's with a ten-minute 429: carol's still says it expired, buttons gone, at
    that check, and no failure is logged (RateLimited, not a 5xx, stopped the sweep at alice's:
    carol's, closed already, kept its buttons for good)."""
    lobby = table.guild.channel("lobby")
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    second = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=lobby
    )
    first_edits = f"/channels/{table.channel.id}/messages/{first.id}"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "PATCH" and path == first_edits
    )
    table.advance(timedelta(minutes=10, seconds=1))
    await timers_checked(table)
    assert limited.hits == 1
    assert "expired" in second.content, second.content
    assert second.components == []
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


async def takeback_asked(
    table: Harness, asker: FakeMember, opponent: FakeMember, channel: FakeChannel
) -> StoredMessage:
    """``asker`` challenges ``opponent`` in ``channel``, plays d1-b1 and asks to take it back;
    returns the request."""
    offered = await table.reply_text(asker, "challenge", {"opponent": opponent}, channel=channel)
    await table.standin.click(offered, f"challenge:accept:{challenge_id(offered)}", opponent)
    await table.wait_board(lambda m: m.created_at >= offered.created_at, channel=channel)
    await table.reply_text(asker, "move", {"move": "d1-b1"}, channel=channel)
    request = await table.reply_text(asker, "takeback", channel=channel)
    assert not request.ephemeral, request.content
    return request


async def test_a_long_rate_limit_on_one_lapsed_takeback_leaves_the_next_one_shown_lapsed(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """alice's takeback request in #games and carol's in #lobby lapse at one check; Discord
    answers the edit of alice's with a ten-minute 429: carol's still says it lapsed, buttons
    gone, and no failure is logged (RateLimited stopped the sweep at alice's)."""
    first = await takeback_asked(table, table.alice, table.bob, table.channel)
    second = await takeback_asked(table, table.carol, table.admin, table.guild.channel("lobby"))
    first_edits = f"/channels/{table.channel.id}/messages/{first.id}"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "PATCH" and path == first_edits
    )
    table.advance(timedelta(minutes=11))
    await timers_checked(table)
    assert limited.hits == 1
    assert "lapsed" in second.content, second.content
    assert second.components == []
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


def apologies(table: Harness) -> list[str]:
    """The bot's apologies for an error, public or private."""
    messages = table.standin.recorder.messages.values()
    return [m.content for m in messages if str(APOLOGY) in m.content]


async def test_a_long_rate_limit_on_the_matchs_line_leaves_a_resignation_answered(
    threaded: Harness,
) -> None:
    """alice resigns her one-set match against the computer while Discord answers the edit
    of the match's line in #games with a ten-minute 429: the set's end is posted in her thread
    and she reads no apology (the line's edit, which stays as it is, raised RateLimited past
    the stored resignation, answered as an error)."""
    table = threaded
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    line_edits = f"/channels/{table.channel.id}/messages/{line.id}"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "PATCH" and path == line_edits
    )
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: limited.hits == 1, timeout=5)
    await timers_checked(table)  # an apology would follow the failed edit at once
    assert apologies(table) == []


def thread_started(method: str, path: str) -> bool:
    """A thread started from a message."""
    return method == "POST" and path.endswith("/threads")


async def test_a_long_rate_limit_on_a_challenges_thread_plays_it_in_the_channel(
    threaded: Harness,
) -> None:
    """Discord answers the thread of bob's accepted challenge with a ten-minute 429: the game
    is played in the channel, saying why, as when Discord refuses the thread (RateLimited
    escaped: bob read an apology and the challenge waited)."""
    table = threaded
    offered = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    limited = table.standin.rate_limit(retry_after=600, matching=thread_started)
    await table.standin.click(offered, f"challenge:accept:{challenge_id(offered)}", table.bob)
    await table.wait_board(channel=table.channel)
    assert limited.hits == 1
    assert offered.thread is None
    assert "Discord would not let me open a thread, so the game is played here." in (
        offered.content
    )
    assert apologies(table) == []


async def test_a_long_rate_limit_on_a_computer_matchs_thread_plays_it_in_the_channel(
    threaded: Harness,
) -> None:
    """Discord answers the thread of alice's match against the computer with a ten-minute
    429: the game is played in the channel, its line the first board (RateLimited escaped:
    alice read an apology under a line announcing a match that never started)."""
    table = threaded
    limited = table.standin.rate_limit(retry_after=600, matching=thread_started)
    line = await challenge_computer(table, table.alice, level=1)
    assert limited.hits == 1
    assert line.thread is None
    board = await table.wait_board(channel=table.channel)
    assert board.id == line.id
    assert apologies(table) == []


def channel_edited(method: str, path: str) -> bool:
    """An edit of a channel or thread itself (its archiving), not of a message in it."""
    return method == "PATCH" and re.fullmatch(r"/channels/\d+", path) is not None


async def test_a_long_rate_limit_on_closing_an_unused_thread_leaves_the_refusal_told(
    threaded: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts as alice's challenge expires, while Discord makes the thread; archiving the
    unused thread is answered with a ten-minute 429: bob is still told the challenge expired
    (RateLimited, raised in closing the thread, replaced that with an apology)."""
    table = threaded
    opened = ChallengeFlow._open_thread

    async def slow_open(
        flow: ChallengeFlow, message: discord.Message, challenge: Challenge, lang: Language
    ) -> tuple[discord.Thread | None, str | None]:
        made = await opened(flow, message, challenge, lang)
        table.advance(timedelta(minutes=11))  # the challenge expired meanwhile
        return made

    monkeypatch.setattr(ChallengeFlow, "_open_thread", slow_open)
    offered = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    limited = table.standin.rate_limit(retry_after=600, matching=channel_edited)
    pressed = await table.standin.click(
        offered, f"challenge:accept:{challenge_id(offered)}", table.bob
    )
    answer = await pressed.wait_original()
    assert limited.hits == 1
    assert answer.ephemeral
    assert answer.content == "That challenge has expired: challenge again."


async def test_a_long_rate_limit_on_the_daily_puzzle_waits_as_a_refusal_does(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers the daily puzzle's post in #lobby with a ten-minute 429: it is not sent
    into that wait (before, it was, after a refusal's pause of a minute), and is posted once
    the wait is up, no failure logged (RateLimited failed the check's step, and the post was
    tried again at each check)."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    lobby_posts = f"/channels/{lobby.id}/messages"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "POST" and path == lobby_posts
    )
    table.advance(timedelta(hours=1))
    await table.standin.wait_until(lambda: limited.hits == 1, timeout=10)
    table.advance(timedelta(minutes=1))
    await timers_checked(table)
    assert not [m for m in table.public_messages(lobby) if "Daily puzzle" in m.content]
    # The wait is up (counted from when the 429 came, which may be after the minute above).
    table.advance(timedelta(minutes=10))
    await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


async def test_a_long_rate_limit_on_the_old_boards_buttons_leaves_a_move_answered(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers the edit taking the buttons off the board before alice's move with 429,
    to wait ten minutes: her move is answered with its board, as when the edit is refused (the
    old board's buttons are refused as stale when pressed), not with an apology."""
    first = await table.challenge_accepted(table.alice, table.bob)
    old_board = f"/channels/{table.channel.id}/messages/{first.id}"
    limited = table.standin.rate_limit(
        retry_after=600, matching=lambda method, path: method == "PATCH" and path == old_board
    )
    answer = await table.move(table.alice, "d1-b1")
    assert "d1-b1" in answer.content, answer.content
    await table.standin.wait_until(lambda: limited.hits == 1, waiting_for="the edit")
    await timers_checked(table)
    assert apologies(table) == []
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


async def test_a_reminder_rate_limited_past_the_clients_tries_is_posted_at_a_later_check(
    table: Harness,
) -> None:
    """Discord answers alice's half-time reminder with 429 five times in a row (discord.py
    gives up with a plain 429 HTTPException): it is posted at a later check, once."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    games_posts = f"/channels/{table.channel.id}/messages"
    limited = table.standin.rate_limit(
        retry_after=0.05,
        requests=5,
        matching=lambda method, path: method == "POST" and path == games_posts,
    )
    table.advance(timedelta(minutes=31))
    await table.standin.wait_until(lambda: limited.hits == 5, timeout=20)
    await timers_checked(table)
    reminders = [m for m in table.public_messages() if "reminder" in m.content]
    assert len(reminders) == 1, [m.content for m in reminders]
