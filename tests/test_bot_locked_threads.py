"""A game's thread a moderator locked where I lack Manage Threads, archived or not, holds its
clocks: Discord takes nothing of mine there, so nobody can play, and nobody loses on time until
it is unlocked (or I am given Manage Threads), when the time is given back once. Where I have
Manage Threads a locked thread is still played in, and its clocks run."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot import thread_locks
from bot.locked_refusals import refused_as_locked
from tests.bot_harness import (
    LISTENER_TASKS,
    Harness,
    board_thread_game,
    gateway_connections,
    reconnected,
    running_bot,
    settled,
    timers_checked,
    until,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.discord_standin.model import MANAGE_THREADS, FakeMember

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads; the bot without Manage Threads (its default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def four_hours_left(table: Harness) -> None:
    """alice, with a day per move, has used twenty hours of it (the timers ran meanwhile)."""
    table.advance(timedelta(hours=20))
    await table.checks_run()


async def held(table: Harness, thread: FakeChannel, *, is_held: bool = True) -> None:
    """The bot has heard of the change: ``thread`` is held (or not)."""
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id) is is_held, timeout=10)


async def two_days_pass_and_alice_is_still_playing(table: Harness, thread: FakeChannel) -> None:
    """Two days pass, well past alice's deadline: her game is still being played."""
    table.advance(timedelta(days=2))
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None, "alice lost on time in a thread nobody could play in"


async def her_four_hours_are_back(table: Harness, board: StoredMessage) -> None:
    """alice's board says she has her four hours, from now (the time held given once)."""
    four_hours_on = f"<t:{int((table.now + timedelta(hours=4)).timestamp())}:R>"
    await table.standin.wait_until(lambda: four_hours_on in board.content, timeout=10)


async def alice_moves(table: Harness, thread: FakeChannel) -> None:
    """alice's move in the thread is played."""
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert "played d1-b1" in played.content, played.content


async def test_a_thread_locked_but_active_holds_the_clock_until_it_is_unlocked(
    table: Harness,
) -> None:
    """A moderator locks alice's thread (Discord's client leaves it active) with four hours on
    her clock; two days pass: she has not lost on time. Unlocked, she has her four hours, and
    her move is played."""
    board, thread = await board_thread_game(table)
    await four_hours_left(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    await her_four_hours_are_back(table, board)
    await alice_moves(table, thread)


async def test_a_locked_thread_refuses_a_move_saying_the_clocks_stand_still(
    table: Harness,
) -> None:
    """alice's /move in her thread, locked but active, is refused saying the game's clocks
    stand still until a moderator unlocks it; from #games, it names the thread as locked."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    here = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert here.ephemeral
    assert here.content == (
        "A moderator locked this thread: Discord takes nothing from me here until one unlocks "
        "it, and the game's clocks here stand still until then."
    )
    there = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert there.ephemeral
    assert there.content == (
        f"Your game's thread <#{thread.id}> is locked by a moderator: ask one to open it; its "
        "clocks stand still until then."
    )


async def test_a_thread_locked_where_i_manage_threads_is_played_in(table: Harness) -> None:
    """With Manage Threads I may post in a locked thread: locking it holds nothing, and
    alice's move there is played."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await settled(table)  # the bot has weighed the lock
    assert table.bot is not None
    assert not table.bot.timers.holds.thread_held(thread.id)
    await alice_moves(table, thread)


async def test_losing_manage_threads_in_a_locked_thread_holds_its_clock(table: Harness) -> None:
    """alice's thread is locked while I have Manage Threads (her clock runs); an admin takes
    the permission away: now nobody can play there, and two days pass without her losing on
    time. The permission given back, she has her four hours and her move is played."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await four_hours_left(table)
    await table.standin.set_overwrite(table.channel, table.me)
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    await held(table, thread, is_held=False)
    await her_four_hours_are_back(table, board)
    await alice_moves(table, thread)


async def test_a_thread_locked_while_the_bot_was_stopped_holds_its_clock(
    table: Harness,
) -> None:
    """A moderator locks alice's thread (left active) while the bot is stopped: started
    again, it finds the lock in the server's threads, and two days pass without her losing
    on time; unlocked, she has her four hours (the time away and the time locked each given
    once) and her move is played."""
    board, thread = await board_thread_game(table)
    await four_hours_left(table)
    await table.stop()
    await table.standin.edit_thread(thread, locked=True)  # no session: no THREAD_UPDATE
    table.advance(timedelta(hours=3))
    await table.start()
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    await her_four_hours_are_back(table, board)
    await alice_moves(table, thread)


async def test_a_lock_held_before_a_restart_stays_held_after_it(table: Harness) -> None:
    """alice's thread is locked (left active) and held when the bot restarts: it asks
    Discord and the thread is still locked, so it stays held; unlocked, she has her four
    hours and her move is played."""
    board, thread = await board_thread_game(table)
    await four_hours_left(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    table.advance(timedelta(hours=5))
    await table.checks_run()
    await table.restart()
    await table.checks_run()  # Discord was asked about the held thread before it
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    await her_four_hours_are_back(table, board)
    await alice_moves(table, thread)


async def test_a_locked_thread_without_a_game_refuses_without_speaking_of_clocks(
    table: Harness,
) -> None:
    """carol's own thread, with no game in it, is locked: her /board there is refused saying
    the thread is locked, and nothing about clocks (none stand still there)."""
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    await table.standin.edit_thread(corner, locked=True)
    assert table.bot is not None
    bot = table.bot
    await until(lambda: getattr(bot.get_channel(corner.id), "locked", False))  # heard of it
    reply = await table.reply_text(table.carol, "board", channel=corner)
    assert reply.ephemeral
    assert reply.content == (
        "A moderator locked this thread: Discord takes nothing from me here until one unlocks it."
    )


async def test_a_thread_locked_while_the_session_was_lost_is_held_once_connected(
    table: Harness,
) -> None:
    """The gateway drops the bot for too long to resume; meanwhile a moderator locks alice's
    thread (the event is lost with the session). Connected anew, the bot finds the lock in
    the server's GUILD_CREATE: two days pass without her losing on time, and unlocked she
    has her four hours."""
    board, thread = await board_thread_game(table)
    await four_hours_left(table)
    connections = gateway_connections(table.standin)
    await table.standin.drop_gateway(refuse_for=math.inf, resumable=False)
    await table.standin.edit_thread(thread, locked=True)
    table.standin.reopen_gateway()
    await reconnected(table.standin, connections)
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    await her_four_hours_are_back(table, board)
    await alice_moves(table, thread)


async def test_a_lock_missed_is_held_when_a_reminder_finds_it(table: Harness) -> None:
    """Four hours into alice's turn the bot is stopped for six (given back when it starts);
    then a moderator locks her thread and the bot misses the event. Her reminder is refused
    there, so the bot asks Discord and finds the lock: she does not lose on time, and unlocked
    she has her day per move again — the hold counted from when her turn began (Discord does
    not say since when it was locked), the six hours given back during it counted once."""
    board, thread = await board_thread_game(table)
    table.advance(timedelta(hours=4))
    await table.checks_run()
    await table.stop()
    table.advance(timedelta(hours=6))
    await table.start()
    await table.checks_run()
    await table.standin.edit_thread(thread, locked=True, announce=False)
    table.advance(timedelta(hours=10))  # past her reminder, due at half time
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    a_day_on = f"<t:{int((table.now + timedelta(days=1)).timestamp())}:R>"
    await table.standin.wait_until(lambda: a_day_on in board.content, timeout=10)
    await alice_moves(table, thread)


async def test_a_lock_undone_at_once_does_not_hold_the_clock(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moderator locks alice's thread and unlocks it at once, while the bot is still asking
    the database whether the thread has a game (slow, here): the unlock comes last, so the
    thread is not held, and alice's clock runs (two days on, she has lost on time)."""
    _, thread = await board_thread_game(table)
    assert table.bot is not None
    games = table.bot.services.games
    in_channel = games.in_channel

    answered: list[int] = []

    async def slow_in_channel(channel_id: int) -> object:
        await asyncio.sleep(0.5)
        try:
            return await in_channel(channel_id)
        finally:
            answered.append(channel_id)

    monkeypatch.setattr(games, "in_channel", slow_in_channel)
    await table.standin.edit_thread(thread, locked=True)
    await table.standin.edit_thread(thread, locked=False)
    await until(lambda: thread.id in answered)  # the lock weighed, the unlock after it
    holds = table.bot.timers.holds
    await until(lambda: not holds.thread_held(thread.id))  # a wrong hold would stay
    assert not table.bot.timers.holds.thread_held(thread.id), "held in a thread open to all"
    monkeypatch.setattr(games, "in_channel", in_channel)
    table.advance(timedelta(days=2))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread)


async def test_a_refusal_the_cache_did_not_foresee_holds_the_clock(table: Harness) -> None:
    """alice's thread is locked while I have Manage Threads (her clock runs); an admin takes
    the permission away and the bot misses the change. Her /move there is refused on Discord's
    word (the interaction's permissions), saying the clocks stand still, and they do: two days
    on she is still playing. Given the permission back, she has her day per move again (held
    from when her turn began: Discord does not say when the permission went)."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await four_hours_left(table)
    await table.standin.set_overwrite(table.channel, table.me, announce=False)
    refused = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert refused.ephemeral
    assert refused.content == (
        "A moderator locked this thread: Discord takes nothing from me here until one unlocks "
        "it, and the game's clocks here stand still until then."
    )
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    await held(table, thread, is_held=False)
    a_day_on = f"<t:{int((table.now + timedelta(days=1)).timestamp())}:R>"
    await table.standin.wait_until(lambda: a_day_on in board.content, timeout=10)
    await alice_moves(table, thread)


async def test_a_move_played_in_a_held_thread_ends_its_hold(table: Harness) -> None:
    """alice's thread is locked while I lack Manage Threads (held); an admin gives me the
    permission and the bot misses the change. Her move there is played (Discord takes my
    answer), so the thread is held no more: two days on, bob, to move, has lost on time."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS, announce=False)
    await alice_moves(table, thread)
    await held(table, thread, is_held=False)
    table.advance(timedelta(days=2))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread)


async def test_a_refusal_weighed_after_the_permission_came_back_holds_nothing(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /move is refused in her locked thread (the bot missed losing Manage Threads);
    while the bot asks the database whether the thread has a game (slow, here), an admin
    gives the permission back: heard of before the refusal is weighed, it leaves the thread
    open — not held, and two days on alice has lost on time."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await table.standin.set_overwrite(table.channel, table.me, announce=False)
    assert table.bot is not None
    games = table.bot.services.games
    in_channel = games.in_channel

    weighing = asyncio.Event()
    answered: list[int] = []

    async def slow_in_channel(channel_id: int) -> object:
        weighing.set()
        await asyncio.sleep(0.5)
        try:
            return await in_channel(channel_id)
        finally:
            answered.append(channel_id)

    monkeypatch.setattr(games, "in_channel", slow_in_channel)
    refused = asyncio.create_task(
        table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    )
    await asyncio.wait_for(weighing.wait(), timeout=20)  # the refusal is being weighed
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    assert (await refused).ephemeral
    await until(lambda: thread.id in answered)  # the refusal weighed
    assert not table.bot.timers.holds.thread_held(thread.id), "held in a thread open to all"
    monkeypatch.setattr(games, "in_channel", in_channel)
    table.advance(timedelta(days=2))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread)


async def test_a_private_answer_in_a_thread_held_on_discords_word_keeps_it_held(
    table: Harness,
) -> None:
    """A moderator locks alice's thread and the bot misses it; her refused reminder has Discord
    show the lock, and her clock stands still. Her Resign press there is answered privately
    (Discord takes that in a locked thread, and the cache still shows it open): the thread is
    still held, and two days on she is still playing."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    table.advance(timedelta(hours=13))  # past her reminder, due at half time
    await held(table, thread)
    [resign] = [c for c in board.custom_ids() if c.startswith("resign-ask:")]
    asked = await (await table.standin.click(board, resign, table.alice)).wait_original()
    assert asked.ephemeral, asked.content
    await settled(table)  # the press is answered and weighed
    assert table.bot is not None
    assert table.bot.timers.holds.thread_held(thread.id), "its hold ended on a private answer"
    await two_days_pass_and_alice_is_still_playing(table, thread)


async def test_a_word_older_than_a_permission_change_heard_is_not_kept(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Manage Threads, alice's move in her thread is slow to answer; meanwhile an admin
    takes the permission away, and the bot hears of it. Then a moderator locks the thread: its
    clocks stand still — the move's word that I had the permission, older than the change
    heard of, is not taken over it."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    _, thread = await board_thread_game(table)
    assert table.bot is not None
    games = table.bot.services.games
    playing, go_on = waits_until_told(monkeypatch, games, "play")
    moving = asyncio.create_task(alice_moves(table, thread))
    await asyncio.wait_for(playing.wait(), timeout=20)  # her move is being played
    await table.standin.set_overwrite(table.channel, table.me)
    await settled(table, tasks_named=LISTENER_TASKS)  # the bot heard of it (her move waits)
    go_on.set()
    await moving
    await settled(table)  # its answer is weighed
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)


async def test_changes_elsewhere_leave_a_thread_held_on_discords_word(table: Harness) -> None:
    """The bot misses losing Manage Threads in the channel of alice's locked thread; her refused
    /move holds it. An admin then edits another channel's permissions and a role that is not
    mine, and the bot hears of both: they say nothing of my permissions in her channel, so her
    thread stays held — two days on she is still playing."""
    await table.standin.set_overwrite(table.channel, table.me, allow=MANAGE_THREADS)
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await table.standin.set_overwrite(table.channel, table.me, announce=False)
    refused = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert refused.ephemeral
    await held(table, thread)
    await table.standin.set_overwrite(table.guild.channel("lobby"), table.alice)
    regulars = await table.standin.add_role(table.guild, "regulars")
    await table.standin.edit_role(regulars, mentionable=False)
    await settled(table)  # the changes are weighed
    assert table.bot is not None
    assert table.bot.timers.holds.thread_held(thread.id), "a change elsewhere ended its hold"
    await two_days_pass_and_alice_is_still_playing(table, thread)


async def test_a_move_in_a_thread_whose_lock_was_missed_is_told_as_played_and_held(
    table: Harness,
) -> None:
    """A moderator locks alice's thread and the bot misses it (the cache shows it open): her
    /move there is played, but Discord refuses its board there as locked. She reads that her
    move was played and why its board is not shown — not that I lack permissions — and the
    thread is held on Discord's word: two days on, bob has not lost on time. Unlocked, the
    board of her move is posted there, once."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    answer = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert answer.ephemeral
    assert answer.content == (
        "You played d1-b1, but a moderator locked this thread: Discord takes nothing from me "
        "here, so I post the board once a moderator unlocks it, and the game's clocks here "
        "stand still until then."
    )
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    await table.wait_board(lambda m: "d1-b1" in m.content, channel=thread)
    table.advance(timedelta(minutes=1))  # the outbox's next round finds nothing owed
    await timers_checked(table)
    boards = [
        m
        for m in table.standin.messages(thread)
        if not m.ephemeral and m.attachments and "d1-b1" in m.content
    ]
    assert len(boards) == 1, "the owed board was posted more than once"


async def test_a_move_in_a_thread_whose_unlock_was_missed_is_played_and_ends_its_hold(
    table: Harness,
) -> None:
    """A moderator locks alice's thread (held), then unlocks it and the bot misses that (the
    cache still shows it locked). Her /move there is not refused on the cache's word: Discord
    shows the thread open, so her move is played, and the hold ends — two days on, bob, to
    move, has lost on time."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False, announce=False)
    await alice_moves(table, thread)
    await held(table, thread, is_held=False)
    table.advance(timedelta(days=2))
    await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread)


async def test_a_board_refused_in_a_thread_whose_lock_was_missed_holds_its_clock(
    table: Harness,
) -> None:
    """A moderator locks alice's thread and the bot misses it; her /board there is refused by
    Discord as locked: she reads that the thread is locked and its clocks stand still (not
    that I lack permissions), and they do — two days on she is still playing."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    refused = await table.reply_text(table.alice, "board", {}, channel=thread)
    assert refused.ephemeral
    assert refused.content == (
        "A moderator locked this thread: Discord takes nothing from me here until one unlocks "
        "it, and the game's clocks here stand still until then."
    )
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)


async def test_a_press_in_a_thread_whose_unlock_was_missed_goes_on_and_ends_its_hold(
    table: Harness,
) -> None:
    """A moderator locks alice's thread (held), then unlocks it and the bot misses that. Her
    Move press on the board is not refused on the cache's word: Discord shows the thread open,
    so her picker opens, and the hold ends."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False, announce=False)
    [move] = [c for c in board.custom_ids() if c.startswith("move:")]
    picker = await (await table.standin.click(board, move, table.alice)).wait_original()
    assert "locked" not in picker.content, picker.content
    await held(table, thread, is_held=False)


async def test_a_move_against_the_computer_in_a_thread_whose_lock_was_missed_is_told_as_played(
    table: Harness,
) -> None:
    """alice plays the computer in a thread a moderator locked, and the bot missed it: her
    /move is played, and Discord refuses its line there; she reads that it was played and why
    its board is not shown, not that I lack permissions. The thread is held on Discord's word,
    and unlocked, the board the outbox owes is posted there."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    answer = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert answer.ephemeral
    assert answer.content.startswith("You played d1-b1, but a moderator locked this thread"), (
        answer.content
    )
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    await table.wait_board(lambda m: "d1-b1" in m.content, channel=thread)


async def test_a_move_refused_late_as_locked_is_still_told_within_discords_three_seconds(
    table: Harness,
) -> None:
    """alice's /move in a thread whose lock the bot missed is played, but its answer reaches
    Discord late (rate limited: refused as locked over 2 s after she sent it), and the thread's
    hold is slow to begin (its changes weighed one at a time). She still reads that her move
    was played: the refusal does not wait for the hold past Discord's 3 seconds, after which
    her answer would be lost ("Unknown interaction") and she would not know her move stood."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    assert table.bot is not None
    holds = table.bot.timers.holds
    weighing = asyncio.Event()

    async def slow_to_weigh() -> None:
        async with holds.in_turn(thread.id):
            weighing.set()
            await asyncio.sleep(4)

    busy = asyncio.ensure_future(slow_to_weigh())
    await weighing.wait()
    table.standin.rate_limit(
        retry_after=2.2, matching=lambda method, path: path.endswith("/callback")
    )
    answer = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await busy
    assert answer.ephemeral
    assert answer.content.startswith("You played d1-b1, but a moderator locked this thread"), (
        answer.content
    )
    await held(table, thread)


async def test_a_refusal_in_a_thread_whose_unlock_was_missed_still_ends_its_hold(
    table: Harness,
) -> None:
    """A moderator locks alice's thread (held), then unlocks it and the bot misses that. bob's
    /move there, out of turn, is refused privately — but Discord, asked, showed the thread
    open: its hold ends all the same, so alice, to move, cannot sit out her clock in a thread
    open to her until someone happens to be answered there for all to see."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False, announce=False)
    refused = await table.reply_text(table.bob, "move", {"move": "d7-b7"}, channel=thread)
    assert refused.ephemeral
    assert "locked" not in refused.content, refused.content
    await held(table, thread, is_held=False)


def thread_fetches(table: Harness, thread: FakeChannel) -> int:
    """How many times the bot asked Discord for ``thread`` (GET /channels/{id})."""
    path = f"/api/v10/channels/{thread.id}"
    return sum(c.method == "GET" and c.path == path for c in table.standin.recorder.rest_log)


async def test_a_burst_of_commands_in_a_locked_thread_asks_discord_once(table: Harness) -> None:
    """alice's thread is locked (held); she sends /board three times in a row there: each is
    refused as locked, and Discord is asked whether the thread is still locked only once (its
    word stands a few seconds)."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    before = thread_fetches(table, thread)
    for _ in range(3):
        refused = await table.reply_text(table.alice, "board", {}, channel=thread)
        assert refused.ephemeral
        assert refused.content.startswith("A moderator locked this thread"), refused.content
    assert thread_fetches(table, thread) == before + 1


async def test_a_lock_seen_is_asked_again_once_its_word_is_old(table: Harness) -> None:
    """Discord's word that alice's thread is locked stands only a while (``LOCK_SEEN_FOR``,
    on the bot's monotonic clock): her /board after it asks again, and, the unlock having
    been missed, is answered."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True)
    await held(table, thread)
    refused = await table.reply_text(table.alice, "board", {}, channel=thread)
    assert refused.content.startswith("A moderator locked this thread"), refused.content
    await table.standin.edit_thread(thread, locked=False, announce=False)
    table.age_kept(thread_locks.LOCK_SEEN_FOR)
    shown = await table.reply_text(table.alice, "board", {}, channel=thread)
    assert "locked" not in shown.content, shown.content


async def test_a_lock_refused_in_another_thread_is_not_this_threads_lock(table: Harness) -> None:
    """During alice's command in her open game thread, a post of mine in carol's locked thread
    is refused as locked: that refusal is not read as alice's thread locked; one of a post in
    alice's thread, or of her command's answer, would be."""
    _, thread = await board_thread_game(table)
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    await table.standin.edit_thread(corner, locked=True)
    await table.standin.wait_until(lambda: corner.locked, timeout=5)
    assert table.bot is not None
    seen: list[discord.Interaction[Any]] = []

    async def keep(interaction: discord.Interaction[Any]) -> None:
        seen.append(interaction)

    table.bot.add_listener(keep, "on_interaction")
    await table.reply_text(table.alice, "board", {}, channel=thread)
    [interaction] = seen
    elsewhere = table.bot.get_partial_messageable(corner.id)
    with pytest.raises(discord.Forbidden) as refused:
        await elsewhere.send("a post in a locked thread")
    assert refused.value.code == 160005
    assert not refused_as_locked(interaction, refused.value)
    await table.standin.edit_thread(thread, locked=True)
    here = table.bot.get_partial_messageable(thread.id)
    with pytest.raises(discord.Forbidden) as refused_here:
        await here.send("a post in alice's thread, locked")
    assert refused_as_locked(interaction, refused_here.value)
    with pytest.raises(discord.Forbidden) as answer_refused:
        await interaction.followup.send("her command's answer, in her locked thread")
    assert refused_as_locked(interaction, answer_refused.value)


async def test_a_resignation_in_a_thread_whose_lock_was_missed_is_told_as_done(
    table: Harness,
) -> None:
    """A moderator locks alice's thread and the bot misses it: her resignation there is stored,
    and Discord refuses its final board as locked. She reads that she resigned and why the
    board is not shown — not only that the thread is locked — and, unlocked, the final board is
    posted there."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [resign] = [c for c in board.custom_ids() if c.startswith("resign-ask:")]
    asked = await (await table.standin.click(board, resign, table.alice)).wait_original()
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    pressed = await table.standin.click(asked, confirm, table.alice)
    told = await pressed.wait_followup()
    assert told.ephemeral
    assert told.content == (
        "You resigned, but a moderator locked this thread: Discord takes nothing from me here, "
        "so I post the board once a moderator unlocks it."
    )
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(thread.id) is None, "her game goes on"
    await table.standin.edit_thread(thread, locked=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    await table.wait_board(lambda m: "resigned" in m.content, channel=thread)


async def test_a_resigned_set_in_a_thread_whose_lock_was_missed_holds_set_two(
    table: Harness,
) -> None:
    """The same in set 1 of two: alice reads that she resigned, and that the clocks of the
    game going on in the thread (set 2) stand still; they do — two days on it is played."""
    board, thread = await board_thread_game(table, sets=2)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [resign] = [c for c in board.custom_ids() if c.startswith("resign-ask:")]
    asked = await (await table.standin.click(board, resign, table.alice)).wait_original()
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    told = await (await table.standin.click(asked, confirm, table.alice)).wait_followup()
    assert told.content == (
        "You resigned, but a moderator locked this thread: Discord takes nothing from me here, "
        "so I post the board once a moderator unlocks it, and the game's clocks here stand "
        "still until then."
    )
    await held(table, thread)
    await two_days_pass_and_alice_is_still_playing(table, thread)


async def test_an_abort_in_a_thread_whose_lock_was_missed_is_told_as_done(
    table: Harness,
) -> None:
    """A moderator locks alice and bob's thread and the bot misses it: an admin's abort there
    is stored, and Discord refuses its final board as locked; the admin reads that the game was
    aborted and why its board is not shown."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    asked = await table.reply_text(table.admin, "abort", channel=thread)
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    told = await (await table.standin.click(asked, confirm, table.admin)).wait_followup()
    assert told.ephemeral
    assert told.content == (
        "You aborted the game, but a moderator locked this thread: Discord takes nothing from "
        "me here, so I post the board once a moderator unlocks it."
    )
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(thread.id) is None, "the game goes on"


async def test_a_resignation_ending_a_held_match_whose_lock_was_missed_speaks_of_no_clocks(
    table: Harness,
) -> None:
    """alice's thread is held (her reminder found the lock the bot missed; the cache still
    shows it open): her resignation ends the match, and Discord refuses its final board as
    locked. She reads that she resigned, not that the game's clocks stand still: none is left."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    table.advance(timedelta(hours=13))  # past her reminder, due at half time
    await held(table, thread)
    [resign] = [c for c in board.custom_ids() if c.startswith("resign-ask:")]
    asked = await (await table.standin.click(board, resign, table.alice)).wait_original()
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    told = await (await table.standin.click(asked, confirm, table.alice)).wait_followup()
    assert told.content == (
        "You resigned, but a moderator locked this thread: Discord takes nothing from me here, "
        "so I post the board once a moderator unlocks it."
    )


async def test_a_winning_move_in_a_held_thread_whose_lock_was_missed_speaks_of_no_clocks(
    table: Harness,
) -> None:
    """The same for alice's /move that wins the match: she reads that she played it, not that
    the game's clocks stand still."""
    opening = ["d1-b1", "c4-c2", "b4-b5", "d4-b4"]
    _, thread = await board_thread_game(table, opening=opening)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    table.advance(timedelta(hours=13))  # past her reminder, due at half time
    await held(table, thread)
    told = await table.reply_text(table.alice, "move", {"move": "b1-b3"}, channel=thread)
    assert told.content == (
        "You played b1-b3xb4, but a moderator locked this thread: Discord takes nothing from me "
        "here, so I post the board once a moderator unlocks it."
    )
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(thread.id) is None, "her game goes on"


async def test_a_takeback_accepted_in_a_thread_whose_lock_was_missed_is_told_as_done(
    table: Harness,
) -> None:
    """alice asks to take back d1-b1; a moderator locks the thread and the bot misses it. bob's
    Accept is stored, and Discord refuses its answer there as locked: he reads that the
    takeback is done, not only that the thread is locked. Unlocked, the board after the
    takeback is posted there, once: spectators do not keep seeing d1-b1 on the board."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [accept] = [c for c in request.custom_ids() if "accept" in c]
    told = await (await table.standin.click(request, accept, table.bob)).wait_original()
    assert told.ephemeral
    assert told.content == (
        "The takeback is done, but a moderator locked this thread: Discord takes nothing from "
        "me here, so I post the board once a moderator unlocks it, and the game's clocks here "
        "stand still until then."
    )
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.ply == 0, "the takeback was not stored"
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    taken_back = "alice's move 1 was taken back."
    board = await table.wait_board(lambda m: taken_back in m.content, channel=thread)
    assert any(c.startswith("move:") for c in board.custom_ids()), "the board has no buttons"
    table.advance(timedelta(minutes=1))  # the outbox's next round finds nothing owed
    await timers_checked(table)
    boards = [m for m in table.standin.messages(thread) if taken_back in m.content]
    assert len(boards) == 1, "the owed board was posted more than once"
    await alice_moves(table, thread)


async def test_a_takeback_declined_in_a_thread_whose_lock_was_missed_is_told_as_done(
    table: Harness,
) -> None:
    """alice asks to take back d1-b1; a moderator locks the thread and the bot misses it. bob's
    Decline is stored, and Discord refuses its answer there as locked: he reads that he
    declined it, not only that the thread is locked (as if nothing had happened)."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [decline] = [c for c in request.custom_ids() if "decline" in c]
    told = await (await table.standin.click(request, decline, table.bob)).wait_original()
    assert told.ephemeral
    assert told.content == (
        "You declined the takeback, but a moderator locked this thread: Discord takes nothing "
        "from me here until one unlocks it, and the game's clocks here stand still until then."
    )
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.ply == 1, "the decline took no move back"


async def answered_while_locked(
    table: Harness,
    button: str,
    asker: FakeMember | None = None,
    answerer: FakeMember | None = None,
) -> tuple[StoredMessage, FakeChannel]:
    """alice (or ``asker``) asks to take back d1-b1; a moderator locks the thread and the bot
    misses it; bob (or ``answerer``) presses ``button`` (accept or decline), stored, and
    Discord refuses its edit of the request there as locked; the thread is then unlocked and
    the outbox's next round comes. The request's message, and the thread."""
    asker, answerer = asker or table.alice, answerer or table.bob
    _, thread = await board_thread_game(
        table, challenger=asker, opponent=answerer, opening=["d1-b1"]
    )
    request = await table.reply_text(asker, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [pressed] = [c for c in request.custom_ids() if button in c]
    told = await (await table.standin.click(request, pressed, answerer)).wait_original()
    assert told.ephemeral
    assert "a moderator locked this thread" in told.content, told.content
    assert request.custom_ids(), "Discord took the edit of the request in a locked thread"
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    return request, thread


async def test_a_takeback_declined_in_a_locked_thread_shows_on_its_request_once_unlocked(
    table: Harness,
) -> None:
    """bob declines alice's takeback in a thread whose lock was missed: once the thread is
    unlocked, the request's message says he declined it, naming alice unpinged, without its
    Accept and Decline (before, it kept them, and alice was never told)."""
    request, _ = await answered_while_locked(table, "decline")
    declined = f"<@{table.bob.id}> declined <@{table.alice.id}>'s takeback request."
    await table.standin.wait_until(lambda: request.content == declined, timeout=10)
    assert request.custom_ids() == [], "the answered request keeps its buttons"


async def test_a_takeback_accepted_in_a_locked_thread_shows_on_its_request_once_unlocked(
    table: Harness,
) -> None:
    """bob accepts alice's takeback in a thread whose lock was missed: once the thread is
    unlocked, the board after it is posted and the request's message says he accepted it,
    without its Accept and Decline."""
    request, thread = await answered_while_locked(table, "accept")
    await table.wait_board(lambda m: "alice's move 1 was taken back." in m.content, channel=thread)
    accepted = f"<@{table.bob.id}> accepted <@{table.alice.id}>'s takeback request."
    await table.standin.wait_until(lambda: request.content == accepted, timeout=10)
    assert request.custom_ids() == [], "the answered request keeps its buttons"


async def test_a_takeback_lapsed_in_a_locked_thread_shows_on_its_request_once_unlocked(
    table: Harness,
) -> None:
    """alice asks to take back d1-b1; a moderator locks the thread and the bot misses it; bob's
    /move is played, lapsing the request, whose edit Discord refuses as locked. Once the thread
    is unlocked, the request says it lapsed, without its Accept and Decline."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    told = await table.reply_text(table.bob, "move", {"move": "c4-c2"}, channel=thread)
    assert told.content.startswith("You played c4-c2, but a moderator locked"), told.content
    await held(table, thread)
    assert request.custom_ids(), "Discord took the edit of the request in a locked thread"
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    lapsed = f"<@{table.alice.id}>'s takeback request lapsed."
    await table.standin.wait_until(lambda: request.content == lapsed, timeout=10)
    assert request.custom_ids() == [], "the lapsed request keeps its buttons"


async def test_a_takeback_lapsed_by_a_press_in_a_locked_thread_shows_on_its_request_once_unlocked(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice asks to take back d1-b1; a moderator locks the thread and the bot misses it; ten
    minutes pass and bob presses Accept before the timers lapse the request: his press lapses
    it, and Discord refuses its edit as locked. He reads that it lapsed; once the thread is
    unlocked, the request says so, without its Accept and Decline (before, it kept them: only
    the timers' lapse was owed)."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    await table.standin.edit_thread(thread, locked=True, announce=False)
    assert table.bot is not None
    lapsing, go_on = waits_until_told(monkeypatch, table.bot.flow.takebacks, "lapse")
    table.advance(timedelta(minutes=11))  # past the request's ten minutes
    await asyncio.wait_for(lapsing.wait(), 20)  # the timers wait to lapse it
    [accept] = [c for c in request.custom_ids() if "accept" in c]
    told = await (await table.standin.click(request, accept, table.bob)).wait_original()
    go_on.set()
    assert told.ephemeral
    assert told.content == (
        "That takeback request lapsed, but a moderator locked this thread: Discord takes "
        "nothing from me here until one unlocks it, and the game's clocks here stand still "
        "until then."
    )
    assert request.custom_ids(), "Discord took the edit of the request in a locked thread"
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.ply == 1, "the lapsed request took the move back"
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    lapsed = f"<@{table.alice.id}>'s takeback request lapsed."
    await table.standin.wait_until(lambda: request.content == lapsed, timeout=10)
    assert request.custom_ids() == [], "the lapsed request keeps its buttons"


async def test_a_board_refused_as_locked_posted_after_a_newer_move_says_the_thread_was_locked(
    table: Harness,
) -> None:
    """alice plays d1-b1 in a thread whose lock was missed; unlocked, bob plays before the
    outbox posts her board. That board, posted after his, says it is late because a moderator
    had locked the thread (before: that Discord could not be reached)."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    told = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert told.content.startswith("You played d1-b1, but a moderator locked"), told.content
    await held(table, thread)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    with table.bot.flow.outbox.posting() as claim:
        claim(active.set_id, 1)  # the outbox's next check has not come yet
        await table.standin.edit_thread(thread, locked=False)
        await held(table, thread, is_held=False)
        played = await table.reply_text(table.bob, "move", {"move": "c4-c2"}, channel=thread)
        assert not played.ephemeral, played.content
    table.advance(timedelta(minutes=1))
    board = await table.wait_board(lambda m: "posted late" in m.content, channel=thread)
    assert board.content.endswith("move 2 · posted late: a moderator had locked this thread."), (
        board.content
    )


async def test_a_takeback_asked_in_a_thread_whose_lock_was_missed_leaves_nothing_asked(
    table: Harness,
) -> None:
    """alice asks to take back d1-b1 in her thread, locked by a moderator while the bot missed
    it: Discord refuses the request there, so she reads that the thread is locked, and nothing
    is left asked — unlocked, her request is asked (bob pinged), not refused as one already
    waiting that nobody could see."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    await table.standin.edit_thread(thread, locked=True, announce=False)
    refused = await table.reply_text(table.alice, "takeback", channel=thread)
    assert refused.ephemeral
    assert refused.content.startswith("A moderator locked this thread"), refused.content
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    assert request.pinged_user_ids() == {table.bob.id}


async def test_a_takeback_against_the_computer_in_a_thread_whose_lock_was_missed_is_told_as_done(
    table: Harness,
) -> None:
    """alice takes back her move and the computer's reply in a thread a moderator locked, the
    bot having missed it: both are undone, and Discord refuses the board there; she reads that
    the takeback is done, and, unlocked, the board after it is posted there, pinging nobody
    (before, it pinged her as if to move: she had asked for it)."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.standin.wait_until(lambda: bool(played.attachments), timeout=10)  # my reply
    await table.standin.edit_thread(thread, locked=True, announce=False)
    told = await table.reply_text(table.alice, "takeback", channel=thread)
    assert told.ephemeral
    assert told.content.startswith(
        "The takeback is done, but a moderator locked this thread: Discord takes nothing from "
        "me here, so I post the board once a moderator unlocks it"
    ), told.content
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.ply == 0, "the takeback was not stored"
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    board = await table.wait_board(
        lambda m: "alice took back their move and my reply." in m.content, channel=thread
    )
    # She took it back herself, and was told it was done: as the live answer, no ping.
    assert board.pinged_user_ids() == set()


async def test_a_takeback_board_posted_after_a_newer_move_says_it_is_late(
    table: Harness,
) -> None:
    """bob accepts alice's takeback of d1-b1 in a thread whose lock was missed; unlocked,
    alice plays again before the board after the takeback is posted. That board, posted
    after hers, says it is late, without buttons: it is not read as the game's newest."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [accept] = [c for c in request.custom_ids() if "accept" in c]
    told = await (await table.standin.click(request, accept, table.bob)).wait_original()
    assert told.content.startswith("The takeback is done"), told.content
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    await held(table, thread)
    with table.bot.flow.outbox.posting() as claim:
        claim(active.set_id, 0)  # the outbox's next check has not come yet
        await table.standin.edit_thread(thread, locked=False)
        await held(table, thread, is_held=False)
        await alice_moves(table, thread)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    taken_back = "alice's move 1 was taken back."
    board = await table.wait_board(lambda m: taken_back in m.content, channel=thread)
    assert board.content.endswith("posted late: the game has moved on since."), board.content
    assert board.custom_ids() == [], "the old position carries the game's buttons"


async def test_a_picked_move_in_a_thread_whose_lock_was_missed_is_told_as_played(
    table: Harness,
) -> None:
    """alice plays with the picker in her thread, which a moderator locked, and the bot missed
    it: her move is played, and Discord refuses its board (now a message of mine in the
    thread, no longer a followup); the picker says it was played, and she alone reads why its
    board is not shown. The thread is held on Discord's word, and unlocked, the outbox posts
    the board there once."""
    board, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, locked=True, announce=False)
    where = await table.picked(board, table.alice)
    [select] = where.custom_ids()
    pressed = await table.standin.select(where, select, table.alice, ["d1-b1"])
    locked = "You played d1-b1, but a moderator locked this thread"
    await table.standin.wait_until(
        lambda: any(m.content.startswith(locked) for m in pressed.followups), timeout=20
    )
    [told] = pressed.followups
    assert told.ephemeral
    assert where.content == "You played d1-b1."
    await held(table, thread)
    await table.standin.edit_thread(thread, locked=False)
    await held(table, thread, is_held=False)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    await table.wait_board(lambda m: "played d1-b1." in m.content, channel=thread)
    assert len([m for m in table.public_messages(thread) if "played d1-b1." in m.content]) == 1
