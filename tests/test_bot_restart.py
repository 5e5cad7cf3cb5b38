"""Nothing is lost when the bot restarts: games, buttons, timers."""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import bot.outage_holds as outage_holds_module
import bot.timers as timers_module
from bot.client import BrandubhBot
from bot.config import Settings
from bot.services import Services
from bot.services.held import Hold, HoldKind
from bot.storage.errors import StorageError
from bot.storage.times import from_us
from tests.bot_harness import (
    Harness,
    challenge_id,
    eventually,
    move_button,
    settled,
    timers_checked,
    timers_noted,
    until,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin, StoredMessage, payloads

pytest_plugins = ["tests.discord_standin.fixtures"]


async def test_game_continues_after_restart_with_the_old_move_button(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A board posted before a restart still opens the picker, and the move is played."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        old_board = await table.move(table.bob, "d3-a3")
        await table.restart()
        opened = await table.standin.click(old_board, move_button(old_board), table.alice)
        picker = await opened.wait_original()
        assert picker.ephemeral
        [first] = picker.custom_ids()
        chosen = await table.standin.select(picker, first, table.alice, ["d2"])
        step_two = await chosen.wait_original()
        [second] = step_two.custom_ids()
        await table.standin.select(step_two, second, table.alice, ["d2-a2"])
        board = await table.wait_board(lambda m: "played d2-a2" in m.content)
        assert f"<@{table.bob.id}>, your move" in board.content
    finally:
        await table.stop()


async def test_move_timer_survives_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The move clock stands still while the bot is down (nobody can move then): after two
    hours away bob still has his hour (his board says so), with its half-time reminder, and
    then loses on time."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob, time=60)
        board = await table.move(table.alice, "d1-b1")
        await table.stop()
        table.advance(timedelta(hours=2))
        await table.start()
        # The board with the buttons says bob's new deadline, an hour from now.
        hour_from_now = f"<t:{int((table.now + timedelta(hours=1)).timestamp())}:R>"
        await table.standin.wait_until(lambda: hour_from_now in board.content, timeout=10)
        table.advance(timedelta(minutes=31))
        reminder = await table.standin.wait_for_message(
            table.channel, lambda m: "reminder" in m.content
        )
        assert f"<@{table.bob.id}>" in reminder.content
        table.advance(timedelta(minutes=30))
        ended = await table.wait_board(lambda m: "ran out of time" in m.content)
        assert "Set 1 of 2 is over" in ended.content
        assert ended.id > reminder.id  # the loss on time came after the reminder, not at start
        await table.wait_board(lambda m: "Set 2 begins" in m.content)
        assert sum("ran out of time" in m.content for m in table.public_messages()) == 1
    finally:
        await table.stop()


async def test_a_challenge_survives_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A challenge stands still while the bot is down, as the move clocks do (nobody can accept
    it then): made two minutes before the bot stopped, after half an hour away it still has its
    eight minutes, its message says so, and bob can accept it."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        table.advance(timedelta(minutes=2))
        await table.stop()
        table.advance(timedelta(minutes=30))
        await table.start()
        eight_from_now = f"<t:{int((table.now + timedelta(minutes=8)).timestamp())}:R>"
        await table.standin.wait_until(lambda: eight_from_now in reply.content, timeout=10)
        assert reply.content.endswith(f"The challenge expires {eight_from_now}.")
        accepted = await table.standin.click(
            reply, f"challenge:accept:{challenge_id(reply)}", table.bob
        )
        assert accepted.answered
        board = await table.wait_board(lambda m: m.created_at >= reply.created_at)
        assert f"<@{table.alice.id}>, your move as the attackers" in board.content
        assert not any("expired" in m.content for m in table.public_messages())
    finally:
        await table.stop()


async def test_a_takeback_request_survives_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A takeback request stands still while the bot is down too: asked two minutes before the
    bot stopped, after half an hour away its message says the eight minutes it still has, and
    bob can accept it (alice's move is taken back)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        request = await table.reply_text(table.alice, "takeback")
        table.advance(timedelta(minutes=2))
        await table.stop()
        table.advance(timedelta(minutes=30))
        await table.start()
        eight_from_now = f"<t:{int((table.now + timedelta(minutes=8)).timestamp())}:R>"
        await table.standin.wait_until(lambda: eight_from_now in request.content, timeout=10)
        assert request.content.startswith(
            f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back their last move (d1-b1)."
        )
        [accept] = [c for c in request.custom_ids() if c.endswith(":accept")]
        await table.standin.click(request, accept, table.bob)
        assert request.content == "bob accepted the takeback."
        board = await table.wait_board(lambda m: "taken back" in m.content)
        assert f"<@{table.alice.id}>, your move as the attackers" in board.content
    finally:
        await table.stop()


async def test_computer_turn_resumes_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Stopped while the computer was thinking, the bot plays its move after starting again."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.5, ai_nodes=None)
    await table.start()
    try:
        start = await table.slash(
            table.alice, "challenge", {"opponent": table.me, "side": "defenders"}
        )
        await start.wait_original()
        await table.stop()
        assert not any("(attackers) played" in m.content for m in table.public_messages())
        await table.start()
        board = await table.wait_board(lambda m: "(attackers) played" in m.content, timeout=20)
        assert f"<@{table.alice.id}>, your move as the defenders" in board.content
    finally:
        await table.stop()


async def test_a_restart_while_the_computer_thinks_answers_in_the_players_line(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Stopped while the computer thought about its reply, the bot edits the player's
    "… I am thinking…" line into the computer's board after starting again, as it would have."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=8.0, ai_nodes=None)
    await table.start()
    try:
        await table.slash(table.alice, "challenge", {"opponent": table.me})
        await table.wait_board(lambda m: "your move as the attackers" in m.content)
        line = await table.move(table.alice, "d1-b1")
        assert line.content.endswith("I am thinking…")
        await table.stop()
        await table.start()
        await table.standin.wait_until(lambda: "(defenders) played" in line.content, timeout=30)
        assert line.content.startswith("**alice** (attackers) played d1-b1.")
        assert line.attachments
        replies = [m for m in table.public_messages() if "(defenders) played" in m.content]
        assert [m.id for m in replies] == [line.id]
    finally:
        await table.stop()


async def bob_has_half_an_hour_left(table: Harness) -> StoredMessage:
    """A one-set match of an hour a move where alice has moved and bob has half an hour
    left, the timers having run (and noted so) then: alice's board."""
    await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
    board = await table.move(table.alice, "d1-b1")
    table.advance(timedelta(minutes=30))  # bob has half an hour left
    await timers_noted(table)
    return board


async def outage_heard(table: Harness) -> None:
    """Wait until the bot has heard that the gateway dropped it (its clocks stand still from
    then): a deadline passing before would end the set."""
    assert table.bot is not None
    await until(table.bot.timers.holds.all_down)


async def unavailable_heard(table: Harness) -> None:
    """Wait until the bot has heard that ``table``'s server is unavailable (its clocks stand
    still from then): a deadline passing before would end the set."""
    assert table.bot is not None
    outages = table.bot.timers.holds._outages
    await until(lambda: table.guild.id in outages)


async def bob_is_held_till_his_server_is_back(table: Harness, board: StoredMessage) -> None:
    """bob's server is unavailable with half an hour on his clock (``board``, alice's): two
    hours on he has not lost on time, and once the server is back his board says he has the
    half hour he had left, and his move is played."""
    table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
    await timers_checked(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None, "bob lost on time while his server was unavailable"
    await table.standin.guild_available(table.guild)  # the server is back
    half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
    await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=10)
    played = await table.move(table.bob, "d3-a3")
    assert "played d3-a3" in played.content, played.content


async def test_the_move_clock_stands_still_while_discord_cannot_reach_the_bot(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Discord's gateway drops the bot for a while (an outage): nobody's /move can reach it
    then, so bob's clock stands still as for a restart. His deadline, which falls during the
    outage, does not end the set; once the bot is back his board says his new deadline, he
    still has the half hour he had left, and his move is played (before, he lost on time,
    rated, while nobody could play)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await outage_heard(table)
        table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
        await table.timer_rounds(10)  # ten rounds of the timers, none of them checking
        assert table.bot is not None
        active = await table.bot.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time during the outage"
        discord_standin.reopen_gateway()
        await discord_standin.wait_until(
            lambda: discord_standin.connected, timeout=60, waiting_for="the bot to reconnect"
        )
        half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
        await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=10)
        played = await table.move(table.bob, "d3-a3")
        assert "played d3-a3" in played.content, played.content
    finally:
        await table.stop()


async def test_a_gateway_outage_whose_give_back_failed_is_given_at_the_next_check(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway drops the bot (one shard) for two hours, past bob's deadline; as it comes
    back the database fails the give-back once: the next check gives the two hours, and bob
    has his half hour (before, the time was lost: the next note of the timers covered it,
    and bob lost on time)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        games, clocks = bot.services.games, bot.services.clocks
        real = clocks.give_back_outage
        failures: list[int] = []

        async def fails_once(*args: Any, **kwargs: Any) -> Any:
            if not failures:
                failures.append(1)
                raise StorageError("database is locked")
            return await real(*args, **kwargs)

        monkeypatch.setattr(clocks, "give_back_outage", fails_once)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await outage_heard(table)
        table.advance(timedelta(hours=2))
        discord_standin.reopen_gateway()
        await discord_standin.wait_until(
            lambda: discord_standin.connected, timeout=60, waiting_for="the bot to reconnect"
        )
        back = table.now
        await until(lambda: bool(failures))

        async def deadline() -> object:
            active = await games.in_channel(table.channel.id)
            return None if active is None else active.deadline

        await eventually(deadline, back + timedelta(minutes=30))
    finally:
        await table.stop()


async def test_an_owed_gateway_outage_is_not_lost_to_a_later_one_and_a_stop(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway drops the bot (one shard) for two hours, past bob's deadline, and the
    database fails that outage's give-back each time it is tried; the gateway drops the bot
    again for a minute, whose give-back the database would take, and the bot is stopped just
    after. Restarted, bob still has his half hour (before, the second outage was given
    alone and noted the timers as running at its end, so the restart gave nothing for the
    first, and bob lost on time)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        clocks, holds = bot.services.clocks, bot.timers.holds
        real = clocks.give_back_outage
        tried: list[object] = []  # the ``since`` of each give-back tried

        async def fails_the_first_outage(since: Any, *args: Any, **kwargs: Any) -> Any:
            tried.append(since)
            if since == tried[0]:
                raise StorageError("database is locked")
            return await real(since, *args, **kwargs)

        monkeypatch.setattr(clocks, "give_back_outage", fails_the_first_outage)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await until(holds.all_down)
        table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
        discord_standin.reopen_gateway()
        await until(lambda: holds.outage_owed, timeout=60)  # back: its give-back failed
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await until(holds.all_down)
        table.advance(timedelta(minutes=1))
        seen = len(tried)
        discord_standin.reopen_gateway()
        await until(lambda: not holds.all_down() and len(tried) > seen, timeout=60)
        await table.stop()  # before the next check, or while it still fails
        restarted = await table.start()
        active = await restarted.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time for the outage owed before the stop"
        assert active.deadline == table.now + timedelta(minutes=30)
    finally:
        await table.stop()


async def test_a_stop_gives_back_the_gateway_outage_owed(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway drops the bot (one shard) for two hours, past bob's deadline, and the
    database fails that outage's give-back while the timers run; ten minutes after the
    reconnect (bob could play) the bot is stopped, and the database takes it then. Restarted,
    bob has his half hour less those ten minutes (before, the stop left the note from before
    the outage, and the restart gave him the ten minutes too)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        clocks, holds = bot.services.clocks, bot.timers.holds
        real = clocks.give_back_outage

        async def fails_while_checking(*args: Any, **kwargs: Any) -> Any:
            if bot.timers.running:
                raise StorageError("database is locked")
            return await real(*args, **kwargs)

        monkeypatch.setattr(clocks, "give_back_outage", fails_while_checking)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await until(holds.all_down)
        table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
        discord_standin.reopen_gateway()
        await until(lambda: holds.outage_owed, timeout=60)  # back: its give-back failed
        table.advance(timedelta(minutes=10))  # bob can play, and does not
        await table.checks_run(2)  # the checks wait for the outage
        await table.stop()
        restarted = await table.start()
        active = await restarted.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time for the outage owed at the stop"
        assert active.deadline == table.now + timedelta(minutes=20)
    finally:
        await table.stop()


async def test_a_stop_waits_only_so_long_for_the_gateway_outage_owed(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway drops the bot (one shard) for two hours, past bob's deadline; the database
    fails that outage's give-back while the timers run, and hangs at the stop (a database
    gone silent). The stop waits for it a short while only, and the restart gives the two
    hours: bob has his half hour (before, the stop waited as long as the database did, past
    the service manager's patience)."""
    monkeypatch.setattr(timers_module, "OWED_AT_STOP", timedelta(seconds=0.5), raising=False)
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    silent = asyncio.Event()
    try:
        await bob_has_half_an_hour_left(table)
        clocks, holds = bot.services.clocks, bot.timers.holds

        async def fails_then_hangs(*args: Any, **kwargs: Any) -> Any:
            if not bot.timers.running:
                await silent.wait()
            raise StorageError("database is locked")

        monkeypatch.setattr(clocks, "give_back_outage", fails_then_hangs)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await until(holds.all_down)
        table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
        discord_standin.reopen_gateway()
        await until(lambda: holds.outage_owed and not holds.all_down(), timeout=60)
        try:
            await asyncio.wait_for(table.stop(), timeout=10)
        except TimeoutError:
            raise AssertionError("the stop waited for the silent database") from None
        restarted = await table.start()
        active = await restarted.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time for the outage owed at the stop"
        assert active.deadline == table.now + timedelta(minutes=30)
    finally:
        silent.set()
        await table.stop()


async def test_an_owed_gateway_outage_failing_five_tries_in_a_row_is_logged_once_as_an_error(
    discord_standin: DiscordStandin,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database fails a gateway outage's give-back at every try: the fifth failed try in a
    row is logged as an error saying the players' clocks are not given that outage back yet,
    with the database's error, and the tries after it log no second error (before, each try
    was a warning only)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        clocks, holds = bot.services.clocks, bot.timers.holds
        tried: list[object] = []

        async def always_fails(*args: Any, **kwargs: Any) -> Any:
            tried.append(args)
            raise StorageError("database is locked")

        monkeypatch.setattr(clocks, "give_back_outage", always_fails)
        caplog.set_level(logging.WARNING)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await until(holds.all_down)
        table.advance(timedelta(hours=2))
        discord_standin.reopen_gateway()
        await until(lambda: len(tried) >= 8, timeout=60)  # the reconnect's try, then checks'
        errors = [
            record.getMessage()
            for record in caplog.records
            if record.levelno >= logging.ERROR and record.name.startswith("bot")
        ]
        assert len(errors) == 1, errors
        assert "clocks are not given back the gateway outage" in errors[0]
        assert "5 tries in a row failed, the last with: database is locked" in errors[0]
        assert holds.outage_owed
    finally:
        await table.stop()


async def test_a_gateway_outage_gives_back_its_own_time_not_the_last_note(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The timers note that they run every 10 s; bob's clock runs 9 s past a note before the
    gateway drops the bot for two hours. Back, he has his half hour less those 9 s: the
    outage is given back from when the gateway dropped, not from the note before it (which
    gave every clock up to 10 s more at every reconnect, however short)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        table.advance(timedelta(seconds=9))  # before the next note
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await outage_heard(table)
        table.advance(timedelta(hours=2))
        discord_standin.reopen_gateway()
        await discord_standin.wait_until(
            lambda: discord_standin.connected, timeout=60, waiting_for="the bot to reconnect"
        )
        left = table.now + timedelta(minutes=30) - timedelta(seconds=9)
        await table.standin.wait_until(
            lambda: f"<t:{int(left.timestamp())}:R>" in board.content, timeout=10
        )
    finally:
        await table.stop()


async def test_the_move_clock_stands_still_while_the_server_is_unavailable(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Discord says the server is unavailable (an outage of that server: nobody in it can
    use the bot): bob's deadline passes meanwhile, and the set is not ended; once the server
    is back his board says his new deadline and he still has the half hour he had left
    (before, he lost on time, rated, while nobody there could play)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        await bob_is_held_till_his_server_is_back(table, board)
    finally:
        await table.stop()


async def test_a_restart_during_a_server_outage_holds_the_clock_until_it_is_back(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The bot restarts while bob's server is unavailable: Discord answers its IDENTIFY with
    the server's GUILD_DELETE (unavailable), not its GUILD_CREATE. Two hours on bob has not
    lost on time, and once the server is back he has the half hour he had left."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        await table.stop()
        await discord_standin.guild_unavailable(table.guild)
        await table.start()
        await bob_is_held_till_his_server_is_back(table, board)
    finally:
        await table.stop()


async def test_a_server_that_left_during_its_outage_holds_nothing_when_back(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The server is unavailable, then removes the bot (its game is aborted), then invites it
    back: a new game there is lost on time as usual, not held for the old outage."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        await discord_standin.remove_bot_from_guild(table.guild)
        assert table.bot is not None
        games = table.bot.services.games
        await eventually(lambda: games.in_channel(table.channel.id), None)
        await discord_standin.invite_bot_back(table.guild)
        await discord_standin.wait_until(
            lambda: table.bot is not None and table.bot.get_guild(table.guild.id) is not None,
            waiting_for="the server to be back",
        )
        await table.challenge_accepted(table.alice, table.bob, time=60, sets=1)
        table.advance(timedelta(hours=1, seconds=1))
        await table.wait_board(lambda m: "ran out of time" in m.content)
    finally:
        await table.stop()


async def test_a_restart_during_a_gateway_outage_gives_the_outage_back(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Discord's gateway drops the bot, bob's deadline passes meanwhile, and the bot is
    stopped before the gateway is back (restarted because of the outage, say): after the
    restart bob still has the half hour he had left (the outage before the stop is given
    back with the restart, not lost)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        await discord_standin.drop_gateway(refuse_for=math.inf)
        await outage_heard(table)
        table.advance(timedelta(hours=2))  # bob's deadline passes while nobody can play
        await table.timer_rounds(2)  # none of them checks
        await table.stop()
        discord_standin.reopen_gateway()  # the gateway takes connections again
        await table.start()
        await timers_checked(table)
        assert table.bot is not None
        active = await table.bot.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time for the outage before the restart"
        played = await table.move(table.bob, "d3-a3")
        assert "played d3-a3" in played.content, played.content
    finally:
        await table.stop()


async def other_shard(table: Harness, tmp_path: Path, shards: int) -> Harness:
    """A second server with its own players, in another of ``shards`` shards than
    ``table``'s, played through ``table``'s bot (not started on its own)."""
    for _ in range(200):
        other = Harness(table.standin, tmp_path / "bot.sqlite3")
        table.standin.world.clock = lambda: table.now  # the one clock
        if (other.guild.id >> 22) % shards != (table.guild.id >> 22) % shards:
            return other
        await asyncio.sleep(0.002)  # the next snowflake's timestamp moves on
    raise AssertionError("no server in another shard in 200 tries")


async def test_one_dropped_shard_holds_only_its_own_servers(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The bot runs two shards in one process; Discord's gateway drops one of them for a
    while. Bob's deadline in a server of the dropped shard passes meanwhile and ends nothing:
    back, he has the half hour he had left. Bob's deadline in a server of the other shard,
    whose players could play all along, ends his set on time during the outage (before, one
    dropped shard stood every clock still, and gave the outage back to everyone)."""
    discord_standin.gateway.recommended_shards = 2
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    other = await other_shard(table, tmp_path, 2)
    bot = await table.start()
    assert bot.shard_count == 2
    try:
        other.bot, other.now = bot, table.now
        await bot.services.settings.change(other.guild.id, threads=False)
        await other.challenge_accepted(other.alice, other.bob, time=60, sets=1)
        await other.move(other.alice, "d1-b1")  # bob there has an hour, too
        board = await bob_has_half_an_hour_left(table)
        dropped = (table.guild.id >> 22) % 2
        await discord_standin.drop_shard(dropped, refuse_for=math.inf)
        # the bot hears that the shard was dropped (slower when busy)
        await until(lambda: dropped in bot.timers.holds._down)
        table.advance(timedelta(hours=2))  # both bobs' deadlines pass
        ended = await other.wait_board(lambda m: "ran out of time" in m.content)
        assert "the defenders ran out of time" in ended.content, ended.content
        active = await bot.services.games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time while his shard was dropped"
        discord_standin.reopen_gateway()
        half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
        await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=60)
        played = await table.move(table.bob, "d3-a3")
        assert "played d3-a3" in played.content, played.content
    finally:
        other.bot = None
        await table.stop()


async def test_challenges_and_takeback_requests_stand_still_while_the_server_is_unavailable(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Carol's challenge and alice's takeback request are two minutes old when the server
    becomes unavailable for half an hour: nobody there can answer them meanwhile, so neither
    expires or lapses; back, each says the eight minutes it still has, and each can be
    accepted (before, both ran out during the outage)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        lobby = table.guild.channel("lobby")
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        request = await table.reply_text(table.alice, "takeback")
        challenge = await table.reply_text(
            table.carol, "challenge", {"opponent": table.alice}, channel=lobby
        )
        table.advance(timedelta(minutes=2))
        await table.checks_run()
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        table.advance(timedelta(minutes=30))
        await timers_checked(table)
        assert "expired" not in challenge.content, challenge.content
        assert "lapsed" not in request.content, request.content
        await discord_standin.guild_available(table.guild)  # the server is back
        eight_from_now = f"<t:{int((table.now + timedelta(minutes=8)).timestamp())}:R>"
        await table.standin.wait_until(lambda: eight_from_now in request.content, timeout=10)
        await table.standin.wait_until(lambda: eight_from_now in challenge.content, timeout=10)
        [accept] = [c for c in request.custom_ids() if c.endswith(":accept")]
        await table.standin.click(request, accept, table.bob)
        assert request.content == "bob accepted the takeback."
        accepted = await table.standin.click(
            challenge, f"challenge:accept:{challenge_id(challenge)}", table.alice
        )
        assert accepted.answered
        board = await table.wait_board(
            lambda m: m.created_at >= challenge.created_at, channel=lobby
        )
        assert f"<@{table.carol.id}>, your move as the attackers" in board.content
    finally:
        await table.stop()


async def test_a_hold_whose_time_could_not_be_given_back_stays_until_it_is(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server is unavailable for two hours; as it comes back the database fails the
    give-back once: the hold stays (bob does not lose on time at the next check) and the
    next check gives him the two hours, so he has his half hour (before, the hold ended
    all the same: bob lost on time, and a restart would have given every hour since the
    outage began from the hold's stored row)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        table.advance(timedelta(hours=2))
        assert table.bot is not None
        games, clocks = table.bot.services.games, table.bot.services.clocks
        real = clocks.give_back_servers
        failures: list[int] = []

        async def fails_once(*args: Any, **kwargs: Any) -> Any:
            if not failures:
                failures.append(1)
                raise StorageError("database is locked")
            return await real(*args, **kwargs)

        monkeypatch.setattr(clocks, "give_back_servers", fails_once)
        await discord_standin.guild_available(table.guild)  # the server is back
        half_hour_on = f"<t:{int((table.now + timedelta(minutes=30)).timestamp())}:R>"
        await table.standin.wait_until(lambda: half_hour_on in board.content, timeout=10)
        assert failures == [1]
        active = await games.in_channel(table.channel.id)
        assert active is not None, "bob lost on time after the give-back failed"
        played = await table.move(table.bob, "d3-a3")
        assert "played d3-a3" in played.content, played.content
    finally:
        await table.stop()


async def test_a_hold_whose_give_back_failed_is_given_its_time_up_to_its_end(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server is unavailable for two hours; as it comes back the database fails the
    give-back, and goes on failing for ten minutes, while its players can play again. Once
    it works, bob is given the two hours of the outage, not the ten minutes after: he has
    half an hour from the server's return (before, forty minutes)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        table.advance(timedelta(hours=2))
        assert table.bot is not None
        games, clocks = table.bot.services.games, table.bot.services.clocks
        real = clocks.give_back_servers
        failures: list[int] = []
        failing = True

        async def fails_until_told(*args: Any, **kwargs: Any) -> Any:
            if failing:
                failures.append(1)
                raise StorageError("database is locked")
            return await real(*args, **kwargs)

        monkeypatch.setattr(clocks, "give_back_servers", fails_until_told)
        back = table.now
        await discord_standin.guild_available(table.guild)  # the server is back
        await until(lambda: bool(failures))
        table.advance(timedelta(minutes=10))
        await until(lambda: len(failures) >= 3)  # the checks try again, and fail
        failing = False

        async def deadline() -> object:
            active = await games.in_channel(table.channel.id)
            return None if active is None else active.deadline

        await eventually(deadline, back + timedelta(minutes=30))
    finally:
        await table.stop()


async def test_the_time_given_to_what_no_longer_runs_is_forgotten_at_the_first_check(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A note of time given back to a challenge answered before the restart is forgotten
    by the timers' first check, and another hourly after that, with no give-back meanwhile
    (before, only a give-back forgot them, reading the whole table each time)."""
    note = "INSERT INTO given_back VALUES ('challenge', 9999, 0, 1, 2)"
    before = await Services.open(tmp_path / "bot.sqlite3")
    try:
        async with before.database.transaction() as db:
            await db.execute(note)
    finally:
        await before.close()
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:

        async def notes() -> object:
            async with bot.services.database.snapshot() as db:
                row = await db.fetch_one("SELECT count(*) FROM given_back")
            return None if row is None else int(str(row[0]))

        await eventually(notes, 0)
        async with bot.services.database.transaction() as db:
            await db.execute(note)
        await timers_checked(table)
        assert await notes() == 1, "forgotten before the hour was up"
        table.advance(timedelta(hours=1))
        await eventually(notes, 0)
    finally:
        await table.stop()


class ShardProcess(Harness):
    """The bot as a process running ``shard_ids`` of two shards (another runs the rest)."""

    def __init__(self, standin: DiscordStandin, db_path: Path, shard_ids: tuple[int, ...]):
        super().__init__(standin, db_path)
        self.shard_ids = shard_ids

    def settings(self) -> Settings:
        return replace(super().settings(), shard_count=2, shard_ids=self.shard_ids)


async def test_only_the_process_of_shard_0_forgets_the_time_given_to_what_has_no_server(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Two processes share the database: the one running shard 1 leaves a note of time given
    back to a challenge not found (so of no server), at its first check and an hour on; the
    one running shard 0 forgets it at its first (each process forgets the notes of its own
    servers: tests/test_storage_clocks.py)."""
    syncing = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await syncing.start()  # the commands synced (the process of shard 1 does not)
    await syncing.stop()
    note = "INSERT INTO given_back VALUES ('challenge', 9999, 0, 1, 2)"
    before = await Services.open(tmp_path / "bot.sqlite3")
    try:
        async with before.database.transaction() as db:
            await db.execute(note)
    finally:
        await before.close()

    async def notes(bot: BrandubhBot) -> object:
        async with bot.services.database.snapshot() as db:
            row = await db.fetch_one("SELECT count(*) FROM given_back")
        return None if row is None else int(str(row[0]))

    shard_1 = ShardProcess(discord_standin, tmp_path / "bot.sqlite3", (1,))
    bot = await shard_1.start()
    try:
        await timers_checked(shard_1)
        shard_1.advance(timedelta(hours=1))
        await timers_checked(shard_1)
        assert await notes(bot) == 1, "the process of shard 1 swept the table"
    finally:
        await shard_1.stop()
    shard_0 = ShardProcess(discord_standin, tmp_path / "bot.sqlite3", (0,))
    bot = await shard_0.start()
    try:
        await eventually(lambda: notes(bot), 0)
    finally:
        await shard_0.stop()


async def test_a_shard_dropped_again_while_its_time_is_given_back_is_held_again(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two shards in one process. Bob's server's shard is dropped for an hour; as it comes
    back, while that hour is being given back (slowly), the gateway drops it again: the new
    drop is held (before, the give-back's end forgot it, and bob could lose on time while
    nobody could play), and once the shard is back an hour later bob has his half hour."""
    discord_standin.gateway.recommended_shards = 2
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        holds, games = bot.timers.holds, bot.services.games
        shard = (table.guild.id >> 22) % 2
        entered, go_on = waits_until_told(monkeypatch, bot.services.clocks, "give_back_closed")
        await holds.shard_down(shard)
        table.advance(timedelta(hours=1))
        back = asyncio.create_task(holds.shard_up(shard))
        await entered.wait()
        await holds.shard_down(shard)  # dropped again meanwhile
        go_on.set()
        await back
        assert shard in holds._down
        assert [hold.since for hold in await bot.services.holds.kept()] == [table.now]
        table.advance(timedelta(hours=1))
        await table.checks_run()  # bob's deadline has passed, held
        await holds.shard_up(shard)
        active = await games.in_channel(table.channel.id)
        assert active is not None
        assert active.deadline == table.now + timedelta(minutes=30)
    finally:
        await table.stop()


@pytest.mark.parametrize(("per_transaction", "transactions"), [(100, 1), (2, 2)])
async def test_servers_back_in_a_burst_are_given_their_time_together(
    discord_standin: DiscordStandin,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    per_transaction: int,
    transactions: int,
) -> None:
    """Three servers are unavailable for two hours and come back in a burst (as every server
    of a shard that connects anew does): their time is given back in one transaction, not
    one each — or, with at most two per transaction (a hundred in the bot), in two: one for
    a burst of thousands held every give-back and its servers' moves for seconds — and bob,
    in one of them, has his half hour. The quiet that ends a burst is widened from 250 ms to
    a second and a half: a loaded machine can take more than 250 ms between two of the
    test's announcements, which split the batch."""
    monkeypatch.setattr(outage_holds_module, "RETURN_QUIET", timedelta(seconds=1.5))
    monkeypatch.setattr(outage_holds_module, "RETURN_WAIT", timedelta(seconds=30))
    monkeypatch.setattr(outage_holds_module, "RETURNS_PER_TRANSACTION", per_transaction)
    others = [discord_standin.add_guild(f"Club {n}", channels=["play"]) for n in (2, 3)]
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        servers = [table.guild, *others]
        for guild in servers:
            await discord_standin.guild_unavailable(guild)
        holds, games, clocks = bot.timers.holds, bot.services.games, bot.services.clocks
        await until(lambda: len(holds._outages) == len(servers))
        table.advance(timedelta(hours=2))
        calls: list[str] = []
        for name in ("give_back_closed", "give_back_servers"):
            monkeypatch.setattr(clocks, name, _counted(calls, name, getattr(clocks, name)))
        for guild in servers:
            await discord_standin.guild_available(guild)
        await until(lambda: not holds._outages, timeout=40)
        assert calls == ["give_back_servers"] * transactions
        active = await games.in_channel(table.channel.id)
        assert active is not None
        assert active.deadline == table.now + timedelta(minutes=30)
    finally:
        await table.stop()


def _counted(calls: list[str], name: str, real: Any) -> Any:
    """``real``, noting each call by ``name`` in ``calls``."""

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return await real(*args, **kwargs)

    return counted


async def test_a_shard_hold_kept_under_another_shard_count_is_dropped_at_start(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A dropped shard's hold stored while the bot ran two shards is not taken up by a bot
    started with one: that shard's servers are others now, and the row is released rather
    than kept for ever (before, it stayed in the table)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        since = table.now - timedelta(hours=1)
        await bot.services.holds.hold(Hold(HoldKind.SHARD, 1, since, shard_count=2))
        bot = await table.restart()
        assert await bot.services.holds.kept() == []
    finally:
        await table.stop()


async def test_a_server_back_as_a_join_ends_its_hold_once(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The server is unavailable for two hours, then comes back in a GUILD_CREATE without
    ``unavailable`` (discord.py reports a join, not a server available): its hold ends all
    the same, and bob has the half hour he had left; a later GUILD_CREATE that discord.py
    reports as the server available gives nothing again (before, the hold never ended and
    bob's clock stood still for good)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        board = await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        table.advance(timedelta(hours=2))
        back = payloads.guild_create(table.guild, me=table.standin.bot_user, joined=True)
        await discord_standin.dispatch("GUILD_CREATE", back)
        half_hour_on = table.now + timedelta(minutes=30)
        stamp = f"<t:{int(half_hour_on.timestamp())}:R>"
        await table.standin.wait_until(lambda: stamp in board.content, timeout=10)
        await discord_standin.guild_available(table.guild)  # discord.py: available
        await settled(table)  # heard of it
        await table.checks_run()
        assert table.bot is not None
        active = await table.bot.services.games.in_channel(table.channel.id)
        assert active is not None
        assert active.deadline == half_hour_on
    finally:
        await table.stop()


async def test_the_checks_go_on_while_a_server_back_is_given_its_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server comes back from two hours' outage as a join (the checks, not an event,
    find it back) and its give-back is slow: the checks go on meanwhile, the server still
    held (before, the timer loop waited for the burst's pause and its transaction, and
    noted nothing, ended nothing elsewhere); once given, bob has his half hour."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    try:
        await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await unavailable_heard(table)
        table.advance(timedelta(hours=2))
        entered, go_on = waits_until_told(monkeypatch, bot.services.clocks, "give_back_servers")
        back = payloads.guild_create(table.guild, me=table.standin.bot_user, joined=True)
        await discord_standin.dispatch("GUILD_CREATE", back)
        await entered.wait()
        returned = table.now
        table.advance(timedelta(minutes=1))

        async def noted() -> object:
            async with bot.services.database.snapshot() as db:
                row = await db.fetch_one("SELECT max(checked_us) FROM timer_checks")
            return None if row is None else from_us(int(str(row[0])))

        await eventually(noted, table.now)
        assert table.guild.id in bot.timers.holds._outages
        go_on.set()

        async def deadline() -> object:
            active = await bot.services.games.in_channel(table.channel.id)
            return None if active is None else active.deadline

        await eventually(deadline, returned + timedelta(minutes=30))
    finally:
        await table.stop()


async def test_a_dropped_shard_during_its_servers_outage_gives_the_time_back_once(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The bot runs two shards in one process. Bob has half an hour left when his server
    becomes unavailable; ten minutes on, Discord's gateway drops the server's shard for
    twenty minutes; then the server is available again. Both holds cover those twenty
    minutes: bob is given them once, and has his half hour (before, the shard's return gave
    them to him and the server's return gave them again: fifty minutes)."""
    discord_standin.gateway.recommended_shards = 2
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    bot = await table.start()
    assert bot.shard_count == 2
    try:
        await bob_has_half_an_hour_left(table)
        await discord_standin.guild_unavailable(table.guild)
        await until(lambda: table.guild.id in bot.timers.holds._outages)
        table.advance(timedelta(minutes=10))
        await table.checks_run()
        dropped = (table.guild.id >> 22) % 2
        await discord_standin.drop_shard(dropped, refuse_for=math.inf)
        # the bot hears that the shard was dropped (slower when busy)
        await until(lambda: dropped in bot.timers.holds._down)
        table.advance(timedelta(minutes=20))
        discord_standin.reopen_gateway()
        await until(lambda: dropped not in bot.timers.holds._down, timeout=60)  # it is back
        await discord_standin.guild_available(table.guild)  # the server is back, if not yet
        await until(lambda: table.guild.id not in bot.timers.holds._outages)
        active = await bot.services.games.in_channel(table.channel.id)
        assert active is not None
        assert active.deadline == table.now + timedelta(minutes=30)
    finally:
        await table.stop()
