"""A player a moderator shuts out of their game's channel — hidden from them, or timed out —
cannot play, so they do not lose on time while it lasts: at their deadline the bot finds it,
holds their clock with a public line saying why, and once they can play again gives them their
time for the move (bot/player_holds.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.player_holds import ASK_AGAIN, Told
from bot.services.absence import Resumed
from bot.services.clocks import OutOfTime
from bot.services.held import ShutOut
from bot.storage.errors import StorageError
from tests.bot_harness import (
    Harness,
    PostgresHarness,
    board_thread_game,
    running_bot,
    timers_checked,
    until,
)
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.discord_standin.model import VIEW_CHANNEL
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

HIDDEN = (
    "'s clock is held: they can no longer see this channel, so they cannot play. It runs "
    "again, with their whole time for this move, once they can (a clock is held at most a day)."
)
TIMED_OUT = (
    "'s clock is held: a moderator timed them out, so they cannot play. It runs again, with "
    "their whole time for this move, once the timeout ends (a clock is held at most a day)."
)


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@pytest.fixture
async def threads_table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Each game in a thread of #games."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def alice_to_move(table: Harness) -> None:
    """alice (attackers, a day per move) is to move against bob, and has used 20 hours."""
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=20))


async def hours_pass_and_alice_is_still_playing(table: Harness) -> None:
    """Half a day passes, well past alice's deadline (a hold lasts at most a day from it): her
    game is still being played."""
    table.advance(timedelta(hours=12))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 1, "alice lost set 1 on time"


def lines(table: Harness, text: str, channel: FakeChannel | None = None) -> list[StoredMessage]:
    """The bot's public messages in the game's channel (or ``channel``) that contain ``text``."""
    return [
        m
        for m in table.standin.recorder.messages_in(channel or table.channel, include_deleted=False)
        if text in m.content and not m.ephemeral
    ]


async def told_held(table: Harness, text: str, channel: FakeChannel | None = None) -> None:
    """One line says alice's clock is held (and why), pinging nobody."""
    await table.standin.wait_until(
        lambda: bool(lines(table, text, channel)), waiting_for="the line"
    )
    [line] = lines(table, text, channel)
    assert line.content == f"<@{table.alice.id}>{text}"
    assert line.pinged_user_ids() == set()


async def told_back(table: Harness, since: datetime, channel: FakeChannel | None = None) -> None:
    """A line pinging alice says she can play again, her whole day for the move from when she
    could (the bot asks about her every minute)."""
    for _ in range(3):  # each check moves the clock on 33 s
        await timers_checked(table)
    back = f"<@{table.alice.id}> can play again"
    await table.standin.wait_until(
        lambda: bool(lines(table, back, channel)), waiting_for="the line"
    )
    [line] = lines(table, back, channel)
    assert line.pinged_user_ids() == {table.alice.id}
    found = re.search(r"<t:(\d+):R>", line.content)
    assert found is not None, line.content
    deadline = int(found.group(1))
    day_from_since = int((since + timedelta(days=1)).timestamp())
    assert day_from_since <= deadline <= day_from_since + 2 * ASK_AGAIN.total_seconds()


async def alice_moves(table: Harness) -> None:
    """alice's move is played."""
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert "played d1-b1" in played.content, played.content


async def test_a_player_hidden_from_the_channel_does_not_lose_on_time(table: Harness) -> None:
    """A moderator hides the channel from alice with four hours on her clock; half a day passes:
    she has not lost on time, and a line says why. Shown it again, she is told she can play,
    with her day for the move, and her move is played."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    await hours_pass_and_alice_is_still_playing(table)
    await told_held(table, HIDDEN)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await alice_moves(table)


async def test_a_timed_out_player_does_not_lose_on_time(table: Harness) -> None:
    """A moderator times alice out for three days with four hours on her clock; half a day passes:
    she has not lost on time, and a line says why. The timeout lifted, she is told she can
    play, with her day for the move, and her move is played."""
    await alice_to_move(table)
    await table.standin.time_out(table.alice, table.now + timedelta(days=3))
    await hours_pass_and_alice_is_still_playing(table)
    await told_held(table, TIMED_OUT)
    await table.standin.time_out(table.alice, None)
    await told_back(table, table.now)
    await alice_moves(table)


async def test_a_held_line_rate_limited_past_the_clients_tries_is_posted_later(
    table: Harness,
) -> None:
    """alice is timed out past her deadline; Discord answers the line saying her clock is held
    with 429 five times in a row (discord.py gives up): it is posted at a later check."""
    await alice_to_move(table)
    await timers_checked(table)  # her half-time reminder is out
    await table.standin.time_out(table.alice, table.now + timedelta(days=3))
    posts = f"/channels/{table.channel.id}/messages"
    limited = table.standin.rate_limit(
        retry_after=0.05,
        requests=5,
        matching=lambda method, path: (method, path) == ("POST", posts),
    )
    await hours_pass_and_alice_is_still_playing(table)
    assert limited.hits == 5
    await timers_checked(table)
    await told_held(table, TIMED_OUT)


async def test_a_timeout_that_runs_out_gives_the_clock_back(table: Harness) -> None:
    """alice's one-day timeout holds her clock past her deadline; once it runs out she is told
    she can play, with her day for the move from then."""
    await alice_to_move(table)
    ends = table.now + timedelta(days=1)
    await table.standin.time_out(table.alice, ends)
    table.advance(timedelta(hours=6))  # her deadline passes
    await timers_checked(table)
    await told_held(table, TIMED_OUT)
    table.advance(timedelta(days=1))
    await told_back(table, table.now)
    await alice_moves(table)


def reminders(table: Harness) -> list[StoredMessage]:
    """The reminders to alice posted in the game's channel (half-time and last ones)."""
    return [
        m for m in lines(table, "reminder: it is your move") if str(table.alice.id) in m.content
    ]


async def test_a_player_timed_out_past_her_deadline_is_not_reminded(table: Harness) -> None:
    """A moderator times alice out for three days two hours into her move (a day): she gets no
    half-time or last reminder pinging her that her time runs out (she cannot move before it,
    and her clock is held then), where both came; at her deadline the held line says why."""
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=2))
    await table.standin.time_out(table.alice, table.now + timedelta(days=3))
    table.advance(timedelta(hours=11))  # half time
    await timers_checked(table)
    table.advance(timedelta(hours=10, minutes=30))  # the last reminder's hour
    await timers_checked(table)
    assert reminders(table) == []
    table.advance(timedelta(hours=1))  # her deadline
    await timers_checked(table)
    await told_held(table, TIMED_OUT)
    assert reminders(table) == []


async def test_a_timeout_ending_before_her_deadline_leaves_her_reminder(table: Harness) -> None:
    """alice, timed out until two hours before her deadline, is reminded at half time as ever,
    pinged: she can move once the timeout ends."""
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=2))
    await table.standin.time_out(table.alice, table.now + timedelta(hours=20))
    table.advance(timedelta(hours=11))
    await timers_checked(table)
    await table.standin.wait_until(lambda: bool(reminders(table)), waiting_for="the reminder")
    [reminder] = reminders(table)
    assert "Half your time is gone; it runs out <t:" in reminder.content, reminder.content
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_timeout_ending_at_her_deadline_holds_her_clock(table: Harness) -> None:
    """alice, timed out until her deadline to the second, is not reminded (she cannot move
    before it) and, the timeout over when the check comes, her clock is held all the same,
    a line saying why: before, she got neither and lost on time."""
    await table.challenge_accepted(table.alice, table.bob)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    await table.standin.time_out(table.alice, active.deadline)
    table.advance(timedelta(hours=13))  # half time
    await timers_checked(table)
    table.now = active.deadline
    await timers_checked(table)
    await told_held(table, TIMED_OUT)
    assert reminders(table) == []
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 1, "alice lost set 1 on time"


async def test_a_player_hidden_from_the_channel_is_reminded_once_shown_it(table: Harness) -> None:
    """alice, hidden from the game's channel two hours into her move, is not pinged there at
    half time (Discord would not show her the ping); shown the channel again, she gets her
    reminder at the next check after a minute, pinged."""
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=2))
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    table.advance(timedelta(hours=11))  # half time
    await timers_checked(table)
    await timers_checked(table)
    assert reminders(table) == []
    await table.standin.set_overwrite(table.channel, table.alice)
    table.advance(ASK_AGAIN)
    await timers_checked(table)
    await table.standin.wait_until(lambda: bool(reminders(table)), waiting_for="the reminder")
    [reminder] = reminders(table)
    assert "Half your time is gone; it runs out <t:" in reminder.content, reminder.content
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_player_hidden_while_lookups_pause_is_not_pinged(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice is hidden from the game's channel at half time while the server's member lookups
    pause (a lookup there got no answer in time): the member her last lookup answered with
    still says she cannot see it, so she is not pinged there (before: not asked, pinged)."""
    assert table.bot is not None
    members = table.bot.flow.members
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=2))
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    assert await members.member_now(table.guild.id, table.alice.id)  # answered, earlier
    monkeypatch.setattr(members, "unanswered", lambda guild_id: guild_id == table.guild.id)
    table.advance(timedelta(hours=11))  # half time
    await timers_checked(table)
    await timers_checked(table)
    assert reminders(table) == []


async def test_a_player_hidden_past_her_deadline_is_held_unreminded(table: Harness) -> None:
    """alice, hidden from the game's channel through her deadline, gets no reminder there,
    half-time or last: at her deadline her clock is held, the line saying why."""
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=2))
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    table.advance(timedelta(hours=11))  # half time
    await timers_checked(table)
    table.advance(timedelta(hours=10, minutes=30))  # the last reminder's hour
    await timers_checked(table)
    table.advance(timedelta(hours=1))  # her deadline
    await timers_checked(table)
    await told_held(table, HIDDEN)
    assert reminders(table) == []


async def test_a_player_shown_the_channel_again_plays_at_once(table: Harness) -> None:
    """Shown the channel again, alice moves before the bot asks about her again: her move is
    played (not refused as too late), and her clock was given back first."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    await hours_pass_and_alice_is_still_playing(table)
    await told_held(table, HIDDEN)
    await table.standin.set_overwrite(table.channel, table.alice)
    await alice_moves(table)
    assert table.bot is not None
    assert table.bot.timers.holds.held_player(table.channel.id) is None


async def test_a_player_who_can_play_still_loses_on_time(table: Harness) -> None:
    """alice, who can see the channel and is not timed out, loses set 1 on time as ever: no
    line says her clock is held."""
    await alice_to_move(table)
    table.advance(timedelta(days=2))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 2, "set 1 was not lost on time"
    assert lines(table, "clock is held") == []


async def archived(table: Harness, thread: FakeChannel) -> None:
    """Nobody wrote in ``thread`` for its archive duration (an hour to a week): Discord archives
    it, and discord.py drops it from its cache."""
    await table.standin.edit_thread(thread, archived=True)
    assert table.bot is not None
    bot = table.bot
    await table.standin.wait_until(
        lambda: bot.get_channel(thread.id) is None, waiting_for="the thread dropped"
    )


async def test_a_player_shut_out_of_an_archived_game_thread_does_not_lose_on_time(
    threads_table: Harness,
) -> None:
    """alice's game thread is archived, quiet since her last reminder, when her time runs out
    with #games hidden from her: her clock is held (the thread's permissions are its
    channel's), not flagged."""
    table = threads_table
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=23, minutes=30))
    await timers_checked(table)  # her last reminder opens the thread
    assert thread.parent is not None
    await table.standin.set_overwrite(thread.parent, table.alice, deny=VIEW_CHANNEL)
    await archived(table, thread)
    table.advance(timedelta(hours=6))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None, "alice lost on time"
    await told_held(table, HIDDEN, thread)


async def test_a_held_player_whose_thread_was_archived_is_told_they_can_play(
    threads_table: Harness,
) -> None:
    """alice, timed out, is held past her deadline in her game's thread; half a day passes and
    Discord archives the thread; once her timeout is lifted she is told there that she can
    play, with her day for the move."""
    table = threads_table
    _, thread = await board_thread_game(table)
    table.advance(timedelta(hours=20))
    await table.standin.time_out(table.alice, table.now + timedelta(days=20))
    table.advance(timedelta(hours=6))
    await timers_checked(table)
    await told_held(table, TIMED_OUT, thread)
    table.advance(timedelta(hours=12))
    await archived(table, thread)
    await table.standin.time_out(table.alice, None)
    await told_back(table, table.now, thread)


async def test_a_takeback_asked_of_a_held_player_says_they_cannot_answer(table: Harness) -> None:
    """bob, hidden from the channel, is held past his deadline; alice asks to take her move
    back: she is told bob cannot answer while his clock is held (not that she won on time),
    nobody is asked, and the set goes on."""
    await table.challenge_accepted(table.alice, table.bob)
    await alice_moves(table)
    await table.standin.set_overwrite(table.channel, table.bob, deny=VIEW_CHANNEL)
    table.advance(timedelta(days=1, hours=6))
    await timers_checked(table)
    held = f"<@{table.bob.id}>'s clock is held"
    await table.standin.wait_until(lambda: bool(lines(table, held)), waiting_for="the line")
    posts = len(table.public_messages())
    refused = await table.reply_text(table.alice, "takeback")
    assert refused.ephemeral
    assert refused.content == (
        f"<@{table.bob.id}> cannot play here now (their clock is held), so they could not "
        "answer a takeback request: ask once they can."
    )
    assert len(table.public_messages()) == posts, "bob was asked"
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None, "the match ended"
    assert active.set_number == 1, "the set ended"


HELD_A_DAY = (
    "'s clock runs again, as a clock is held at most a day: their time for this move runs out"
)
HELD_ONCE = (
    "'s time for this move has run out: they cannot play here, but a clock is held only once "
    "a move."
)


async def alice_held_at_her_deadline(table: Harness) -> datetime:
    """alice, hidden from the channel with four hours on her clock, is held once they pass.
    Returns her deadline."""
    await alice_to_move(table)
    deadline = table.now + timedelta(hours=4)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    table.advance(timedelta(hours=5))
    await timers_checked(table)
    await told_held(table, HIDDEN)
    return deadline


async def told_held_a_day(table: Harness) -> None:
    """A line pinging alice says her clock runs again, a clock being held at most a day, with
    her whole day for the move from now."""
    since = table.now
    await timers_checked(table)
    await table.standin.wait_until(lambda: bool(lines(table, HELD_A_DAY)), waiting_for="the line")
    [line] = lines(table, HELD_A_DAY)
    assert line.content.startswith(f"<@{table.alice.id}>{HELD_A_DAY} <t:"), line.content
    # It lets Discord ping her (Discord notifies nobody who cannot see the channel).
    assert line.allowed_user_ids() == {table.alice.id}
    found = re.search(r"<t:(\d+):R>", line.content)
    assert found is not None, line.content
    day_from_since = int((since + timedelta(days=1)).timestamp())
    assert day_from_since <= int(found.group(1)) <= day_from_since + 2 * ASK_AGAIN.total_seconds()


async def alice_lost_set_1_on_time_held_once(table: Harness) -> None:
    """alice, shut out again at her next deadline of the same move, has lost set 1 on time,
    and a line says why, pinging nobody."""
    table.advance(timedelta(days=1))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 2, "alice was held again"
    [line] = lines(table, HELD_ONCE)
    assert line.content == f"<@{table.alice.id}>{HELD_ONCE}"
    assert line.pinged_user_ids() == set()


async def test_a_hold_lasts_at_most_a_day(table: Harness) -> None:
    """alice, still hidden from the channel a day after her deadline, is told her clock runs
    again (a clock is held at most a day), with her day for the move from then."""
    deadline = await alice_held_at_her_deadline(table)
    table.advance(deadline + timedelta(days=1) - table.now)
    await told_held_a_day(table)
    assert table.bot is not None
    assert table.bot.timers.holds.held_player(table.channel.id) is None


async def test_a_player_held_a_day_is_not_held_again_that_move(table: Harness) -> None:
    """alice, her clock run again after a day's hold, is still hidden at her next deadline:
    she loses set 1 on time, told why."""
    deadline = await alice_held_at_her_deadline(table)
    table.advance(deadline + timedelta(days=1) - table.now)
    await told_held_a_day(table)
    await alice_lost_set_1_on_time_held_once(table)


async def test_a_timed_out_player_held_a_day_is_reminded_her_time_runs_out(
    table: Harness,
) -> None:
    """alice, timed out for five days, is held at her deadline (no reminder before it) and for a
    day; her clock runs again and, still timed out, she is reminded at half time that it runs
    out, pinged: a clock is held once a move, so it does."""
    await table.challenge_accepted(table.alice, table.bob)
    deadline = table.now + timedelta(days=1)
    table.advance(timedelta(hours=2))
    await table.standin.time_out(table.alice, table.now + timedelta(days=5))
    table.advance(timedelta(hours=23))
    await timers_checked(table)
    await told_held(table, TIMED_OUT)
    table.advance(deadline + timedelta(days=1) - table.now)
    await told_held_a_day(table)
    assert reminders(table) == []
    table.advance(timedelta(hours=12, minutes=30))
    await timers_checked(table)
    await table.standin.wait_until(lambda: bool(reminders(table)), waiting_for="the reminder")
    [reminder] = reminders(table)
    assert "Half your time is gone; it runs out <t:" in reminder.content, reminder.content
    assert reminder.pinged_user_ids() == {table.alice.id}


async def test_a_player_let_back_in_and_shut_out_again_loses_on_time(table: Harness) -> None:
    """alice, shown the channel again after a hold, is hidden from it again before she moves:
    at her next deadline she loses set 1 on time, told why (a clock is held once a move)."""
    await alice_held_at_her_deadline(table)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    await alice_lost_set_1_on_time_held_once(table)


async def test_a_player_held_again_after_a_takeback_is_told_again(table: Harness) -> None:
    """alice, held and let back in, moves; her move taken back, she is hidden again and held at
    her next deadline, minutes on: a second line says so, and a second that she can play."""
    await alice_held_at_her_deadline(table)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await alice_moves(table)
    request = await table.reply_text(table.alice, "takeback")
    [accept] = [c for c in request.custom_ids() if c.endswith(":accept")]
    await table.standin.click(request, accept, table.bob)
    await table.wait_board(lambda m: "taken back" in m.content)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    table.advance(timedelta(days=1, hours=1))
    await timers_checked(table)
    await table.standin.wait_until(
        lambda: len(lines(table, HIDDEN)) == 2, waiting_for="the second held line"
    )
    await table.standin.set_overwrite(table.channel, table.alice)
    back = f"<@{table.alice.id}> can play again"
    for _ in range(3):  # each check moves the clock on 33 s
        await timers_checked(table)
    await table.standin.wait_until(
        lambda: len(lines(table, back)) == 2, waiting_for="the second can-play line"
    )
    assert lines(table, back)[1].pinged_user_ids() == {table.alice.id}
    await alice_moves(table)


async def test_a_restart_does_not_lengthen_a_hold(table: Harness) -> None:
    """alice is held at her deadline; the bot restarts twelve hours on, finds her hidden and
    holds her again: a day after her deadline (not after the restart) her clock runs again."""
    deadline = await alice_held_at_her_deadline(table)
    table.advance(timedelta(hours=12))
    await timers_checked(table)
    await table.restart()
    await timers_checked(table)
    assert table.bot is not None
    assert table.bot.timers.holds.held_player(table.channel.id) == table.alice.id
    table.advance(deadline + timedelta(days=1) - table.now)
    await told_held_a_day(table)


async def test_a_restart_after_a_hold_does_not_hold_the_move_again(table: Harness) -> None:
    """alice, let back in after a hold, is hidden again; the bot restarts: at her next
    deadline she loses set 1 on time all the same, told why."""
    await alice_held_at_her_deadline(table)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    await timers_checked(table)
    await table.restart()
    await alice_lost_set_1_on_time_held_once(table)


async def test_a_restart_takes_a_hold_up_without_its_line_again(table: Harness) -> None:
    """alice is held at her deadline; the bot restarts: her clock is still held, the line
    saying so is not posted again, and once shown the channel she is told her day for the
    move."""
    await alice_held_at_her_deadline(table)
    await table.restart()
    await hours_pass_and_alice_is_still_playing(table)
    assert len(lines(table, HIDDEN)) == 1, "the line was posted again"
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await alice_moves(table)


def members_asked(method: str, path: str) -> bool:
    """A request for a server's member (its roles and timeout)."""
    return method == "GET" and "/members/" in path


async def held_across_a_restart_while_discord_fails(table: Harness) -> None:
    """alice is held at her deadline; the bot restarts while Discord fails to say who its
    members are: her clock stays held (she has not lost on time), and once Discord answers
    and she is shown the channel, she is told her day for the move."""
    await alice_held_at_her_deadline(table)
    failing = table.standin.fail_rest(500, seconds=600, matching=members_asked)
    await table.restart()
    await timers_checked(table)
    assert failing.hits >= 1, "Discord was not asked about alice"
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 1, "alice lost set 1 on time"
    assert table.bot.timers.holds.held_player(table.channel.id) == table.alice.id
    table.standin.end_faults()
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await alice_moves(table)


async def test_a_discord_error_after_a_restart_keeps_the_clock_held(table: Harness) -> None:
    """alice, held, does not lose on time when Discord fails at the first check after a
    restart (:func:`held_across_a_restart_while_discord_fails`)."""
    await held_across_a_restart_while_discord_fails(table)


async def test_a_hold_is_kept_across_a_restart_on_postgresql(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """The same on PostgreSQL: alice's hold is stored there, and taken up after the restart."""
    table = PostgresHarness(discord_standin, tmp_path, await postgres_database(postgres))
    await table.start()
    try:
        await held_across_a_restart_while_discord_fails(table)
    finally:
        await table.stop()


async def test_a_move_while_the_minutes_check_gives_her_time_back_is_played(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice, shown the channel again, moves just as the minute's check gives her time back:
    her move waits for that and is played, not refused as too late."""
    await alice_held_at_her_deadline(table)
    await table.standin.set_overwrite(table.channel, table.alice)
    assert table.bot is not None
    clocks, holds = table.bot.services.clocks, table.bot.timers.holds
    giving, go, came = asyncio.Event(), asyncio.Event(), asyncio.Event()
    give_back_closed, her_press = clocks.give_back_closed, holds.came

    async def paused(since: datetime, now: datetime | None = None, **where: Any) -> Resumed:
        giving.set()
        await go.wait()
        return await give_back_closed(since, now, **where)

    async def noted(channel_id: int | None, user_id: int) -> None:
        came.set()
        await her_press(channel_id, user_id)

    monkeypatch.setattr(clocks, "give_back_closed", paused)
    monkeypatch.setattr(holds, "came", noted)
    table.advance(ASK_AGAIN)
    await until(giving.is_set)
    move = asyncio.create_task(table.reply_text(table.alice, "move", {"move": "d1-b1"}))
    await until(came.is_set)
    await asyncio.sleep(0.5)  # without the wait, her move is refused meanwhile
    go.set()
    played = await move
    assert "played d1-b1" in played.content, played.content


async def test_a_thread_lock_held_from_the_turns_start_does_not_count_as_a_players_hold(
    threads_table: Harness,
) -> None:
    """A moderator locks alice's thread and the bot misses it until her reminder, so her
    clock is held from her turn's start; unlocked past her deadline, she has her day back.
    Timed out later in the same move, she is held at her next deadline (the lock was no hold
    of hers), not flagged as held once already."""
    table = threads_table
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    table.advance(timedelta(hours=13))  # past her reminder, due at half time
    await timers_checked(table)
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id), timeout=10)
    table.advance(timedelta(days=1))  # well past her first deadline
    await timers_checked(table)
    await table.standin.edit_thread(thread, locked=False)
    await until(lambda: not holds.thread_held(thread.id), timeout=10)
    await table.standin.time_out(table.alice, table.now + timedelta(days=20))
    table.advance(timedelta(days=1, hours=1))
    await timers_checked(table)
    active = await table.bot.services.games.in_channel(thread.id)
    assert not lines(table, HELD_ONCE, thread)
    assert active is not None, "alice lost on time"
    await told_held(table, TIMED_OUT, thread)


async def test_a_hold_whose_line_a_crash_cut_off_is_posted_after_the_restart(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice is held at her deadline, and the bot dies once the hold is stored but before its
    line is posted: after the restart the line is posted, once, and her clock is still held."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    assert table.bot is not None
    holds = table.bot.timers.holds
    say, stored = holds._say, asyncio.Event()

    async def dies_before_the_line(
        guild_id: int,
        channel_id: int,
        player_id: int,
        line: ShutOut | Told,
        deadline: datetime | None = None,
        *,
        turn: tuple[int, int, int],
    ) -> bool:
        if isinstance(line, ShutOut):
            stored.set()
            await asyncio.Event().wait()  # the process dies here
        return await say(guild_id, channel_id, player_id, line, deadline, turn=turn)

    monkeypatch.setattr(holds, "_say", dies_before_the_line)
    table.advance(timedelta(hours=5))
    await until(stored.is_set)
    await table.restart()
    await hours_pass_and_alice_is_still_playing(table)
    await told_held(table, HIDDEN)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)


async def test_a_can_play_again_line_a_crash_cut_off_is_posted_after_the_restart(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice, held at her deadline, can see the channel again, and the bot dies once her time
    is given back but before the line saying she can play again is posted: after the restart
    that line is posted, once (before, nothing recorded it: it was never posted)."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    assert table.bot is not None
    table.advance(timedelta(hours=5))
    await timers_checked(table)
    await told_held(table, HIDDEN)
    holds = table.bot.timers.holds
    say, given = holds._say, asyncio.Event()

    async def dies_before_the_line(
        guild_id: int,
        channel_id: int,
        player_id: int,
        line: ShutOut | Told,
        deadline: datetime | None = None,
        *,
        turn: tuple[int, int, int],
    ) -> bool:
        if line is Told.BACK:
            given.set()
            await asyncio.Event().wait()  # the process dies here
        return await say(guild_id, channel_id, player_id, line, deadline, turn=turn)

    monkeypatch.setattr(holds, "_say", dies_before_the_line)
    await table.standin.set_overwrite(table.channel, table.alice)
    since = table.now
    table.advance(ASK_AGAIN)
    await until(given.is_set)
    await table.restart()
    await told_back(table, since)
    assert table.bot.timers.holds.held_player(table.channel.id) is None


async def test_a_hold_whose_line_failed_on_the_database_is_posted_a_minute_on(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice is held at her deadline, and the database fails the line's language read: the
    line stays owed, and the next ask a minute on posts it."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    assert table.bot is not None
    holds = table.bot.timers.holds
    say, failed = holds._say, asyncio.Event()

    async def language_unread(
        guild_id: int,
        channel_id: int,
        player_id: int,
        line: ShutOut | Told,
        deadline: datetime | None = None,
        *,
        turn: tuple[int, int, int],
    ) -> bool:
        if isinstance(line, ShutOut) and not failed.is_set():
            failed.set()
            raise StorageError("database is locked")
        return await say(guild_id, channel_id, player_id, line, deadline, turn=turn)

    monkeypatch.setattr(holds, "_say", language_unread)
    table.advance(timedelta(hours=5))
    await until(failed.is_set)
    await timers_checked(table)
    table.advance(ASK_AGAIN)
    await timers_checked(table)
    await told_held(table, HIDDEN)
    assert table.bot.timers.holds.held_player(table.channel.id) == table.alice.id


async def test_a_held_line_whose_answer_was_lost_is_posted_once(table: Harness) -> None:
    """alice is held at her deadline, and Discord makes the line saying so but answers 503,
    twice (its post and the post tried again at once): the line, owed, is posted again a
    minute on, and Discord returns the one it made (its nonce) instead of a second line."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    path = f"/channels/{table.channel.id}/messages"
    lost = table.standin.lose_answers(
        503, requests=2, matching=lambda method, p: method == "POST" and p == path
    )
    table.advance(timedelta(hours=5))
    await table.standin.wait_until(lambda: lost.hits >= 1, waiting_for="the line's answer lost")
    for _ in range(2):  # each minute's ask posts the line if it is still owed
        await timers_checked(table)
        table.advance(ASK_AGAIN)
    await timers_checked(table)
    await told_held(table, HIDDEN)
    assert table.bot is not None
    assert table.bot.timers.holds.held_player(table.channel.id) == table.alice.id


async def test_a_hold_found_a_day_past_the_deadline_is_told_like_any_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database fails the time-outs' read from before alice's deadline to a day past it,
    while she is hidden: once it answers, her clock is held (told why) and runs again at once
    (a clock is held at most a day), and the move is not held again."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    assert table.bot is not None
    clocks = table.bot.services.clocks
    out_of_time = clocks.out_of_time

    async def failing(now: datetime | None = None) -> OutOfTime:
        raise StorageError("database is locked")

    monkeypatch.setattr(clocks, "out_of_time", failing)
    table.advance(timedelta(days=1, hours=5))
    await timers_checked(table)
    monkeypatch.setattr(clocks, "out_of_time", out_of_time)
    await told_held_a_day(table)
    [held] = lines(table, HIDDEN)
    [runs] = lines(table, HELD_A_DAY)
    assert held.id < runs.id, "the clock ran again before it was held"
    assert table.bot.timers.holds.held_player(table.channel.id) is None
    await alice_lost_set_1_on_time_held_once(table)


async def test_a_discord_error_at_the_deadline_does_not_lose_the_game(table: Harness) -> None:
    """alice, hidden, reaches her deadline while Discord fails to say who its members are: she
    has not lost on time, and nothing is said yet; once Discord answers she is held, told
    why."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    failing = table.standin.fail_rest(500, seconds=600, matching=members_asked)
    table.advance(timedelta(hours=5))
    await timers_checked(table)
    assert failing.hits >= 1, "Discord was not asked about alice"
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 1, "alice lost set 1 on time"
    assert lines(table, "clock is held") == []
    table.standin.end_faults()
    table.advance(ASK_AGAIN)
    await timers_checked(table)
    await told_held(table, HIDDEN)


async def test_a_player_who_can_play_loses_on_time_once_discord_answers(table: Harness) -> None:
    """alice, who can play, reaches her deadline while Discord fails to say who its members
    are: she loses set 1 on time once Discord answers, no line saying her clock is held."""
    await alice_to_move(table)
    table.standin.fail_rest(500, seconds=600, matching=members_asked)
    table.advance(timedelta(hours=5))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 1, "lost on time while Discord did not answer"
    table.standin.end_faults()
    table.advance(ASK_AGAIN)
    await timers_checked(table)
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 2, "set 1 was not lost on time"
    assert lines(table, "clock is held") == []


async def test_a_player_discord_says_nothing_of_for_a_day_loses_on_time(table: Harness) -> None:
    """alice, hidden, reaches her deadline while Discord fails to say who its members are, and
    it still fails a day later: she loses set 1 on time then (nobody can say for ever)."""
    await alice_to_move(table)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    table.standin.fail_rest(500, seconds=600, matching=members_asked)
    table.advance(timedelta(hours=5))
    await timers_checked(table)
    table.advance(timedelta(days=1))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.set_number == 2, "alice's set 1 waited past a day"
    assert lines(table, "clock is held") == []
