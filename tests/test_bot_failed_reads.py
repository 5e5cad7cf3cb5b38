"""The database failing a read after something was stored: the player is told the truth, and
what follows (the next set, the match's line) still comes, now or at the timers' next check."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.errors import APOLOGY
from bot.player_holds import ASK_AGAIN
from bot.storage.errors import SAVE_FAILED, StorageError
from tests.bot_harness import (
    Harness,
    board_thread_game,
    challenge_id,
    running_bot,
    until,
)
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.discord_standin.model import VIEW_CHANNEL
from tests.test_bot_locked_database import start_game
from tests.test_bot_shut_out import HELD_ONCE, HIDDEN, alice_held_at_her_deadline, lines, told_back
from tests.test_bot_slow_refusals import slow_reads
from tests.test_bot_stored_answers import _channel_posts, _first_answers
from tests.test_bot_threads import ATTACKERS_WIN, challenge_computer

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


@pytest.fixture
async def threads(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


def called_from(name: str) -> bool:
    """Whether a function named ``name`` is on the stack (an awaiting coroutine's frame is),
    or made the coroutine the current task runs: a read handed to ``within_deadline`` runs in
    a task of its own, whose coroutine remembers where it was made (:func:`origins_kept`)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == name:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    task = asyncio.current_task()
    origin = getattr(task.get_coro(), "cr_origin", None) if task is not None else None
    return any(function == name for _, _, function in origin or ())


@pytest.fixture(autouse=True)
def origins_kept() -> Iterator[None]:
    """Coroutines remember the 32 frames that made them (``cr_origin``) during each test."""
    depth = sys.get_coroutine_origin_tracking_depth()
    sys.set_coroutine_origin_tracking_depth(32)
    yield
    sys.set_coroutine_origin_tracking_depth(depth)


def fails_once_in(
    monkeypatch: pytest.MonkeyPatch, owner: object, read: str, name: str
) -> list[str]:
    """``owner``'s method ``read`` fails (the database locked) the first time it is called
    from a function named ``name``, whatever was kept; the list gets ``name`` then."""
    reads = getattr(owner, read)
    failed: list[str] = []

    async def fails_once(*args: Any) -> Any:
        if not failed and called_from(name):
            failed.append(name)
            raise StorageError("database is locked")
        return await reads(*args)

    monkeypatch.setattr(owner, read, fails_once)
    return failed


def settings_fail_once_in(table: Harness, monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """The server's settings (its language) fail to read the first time they are asked for
    from a function named ``name``, whatever was kept; the list gets ``name`` then."""
    assert table.bot is not None
    return fails_once_in(monkeypatch, table.bot.services.settings, "get", name)


async def test_a_resignation_whose_board_cannot_read_the_language_goes_on_to_set_two(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice resigns set 1 against the computer and the database fails the server's language
    as its board is made: she is not told it could not be saved (it was), the board comes
    from the outbox, and the computer opens set 2 (it waited for a restart)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    ask = await table.reply_text(table.alice, "resign")
    failed = settings_fail_once_in(table, monkeypatch, "announce")
    pressed = await table.standin.click(ask, ask.custom_ids()[0], table.alice)
    assert failed
    assert ask.content == "You resigned this set."
    table.advance(timedelta(minutes=1))
    await table.checks_run()
    await table.wait_board(
        lambda m: "(attackers) played" in m.content and "Set 2 of 2" in m.content, timeout=15
    )
    assert [m.content for m in pressed.followups] == []
    assert not any(str(SAVE_FAILED) in m.content for m in table.public_messages())


async def test_a_match_line_whose_language_cannot_be_read_shows_the_result_later(
    threads: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last move ends a match played in a thread, and the database fails the server's
    language as the match's line is edited: the edit is owed, and the timers' check makes it
    (before, the line said the match was in progress for good)."""
    table = threads
    _, thread = await board_thread_game(table)
    line = table.thread_line(thread)
    failed = settings_fail_once_in(table, monkeypatch, "_write_result")
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    await until(lambda: bool(failed))
    table.advance(timedelta(seconds=30))
    await table.checks_run(2)
    assert "**alice** won." in line.content


async def test_a_held_line_the_database_fails_holds_up_no_other_games_loss_on_time(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice (hidden from #games) and carol (in #side) both pass their deadline, and the
    database fails the language of the line saying alice's clock is held: carol still loses
    set 1 on time at that check (the check's time-outs stopped there, till the next), and
    alice's line, owed, is posted a minute on."""
    side = table.guild.channel("side")
    await start_game(table, table.alice, table.bob, table.channel)
    await start_game(table, table.carol, table.admin, side)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    failed = settings_fail_once_in(table, monkeypatch, "_post_held_line")
    table.advance(timedelta(days=1, minutes=1))
    await table.checks_run(1)
    assert failed
    assert table.bot is not None
    carols = await table.bot.services.games.in_channel(side.id)
    assert carols is not None
    assert carols.set_number == 2, "carol's set 1 waited for the next check"
    table.advance(ASK_AGAIN)
    await table.checks_run(1)
    [held] = lines(table, HIDDEN)
    assert held.content == f"<@{table.alice.id}>{HIDDEN}"


async def test_a_not_held_again_line_the_database_fails_holds_up_no_other_games_loss_on_time(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice, held once and let back in, is hidden again, and at her next deadline (carol's in
    #side too) the database fails the language of the line saying her clock is not held
    again: both lose set 1 on time at that check (the error ended its time-outs), her line
    unsaid, as one Discord cannot take (the board ending the set says she ran out of time)."""
    side = table.guild.channel("side")
    await alice_held_at_her_deadline(table)
    await table.standin.set_overwrite(table.channel, table.alice)
    await told_back(table, table.now)
    await start_game(table, table.carol, table.admin, side)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    failed = settings_fail_once_in(table, monkeypatch, "hold_shut_out")
    table.advance(timedelta(days=1, minutes=5))
    await table.checks_run(1)
    assert failed
    assert table.bot is not None
    for channel in (side, table.channel):
        active = await table.bot.services.games.in_channel(channel.id)
        assert active is not None
        assert active.set_number == 2, f"set 1 in #{channel.name} waited for the next check"
    assert not lines(table, HELD_ONCE)


def reminders(table: Harness, channel: FakeChannel) -> list[StoredMessage]:
    """The half-time reminders posted in ``channel``."""
    return [m for m in table.public_messages(channel) if "reminder: it is your move" in m.content]


async def test_a_reminder_whose_language_cannot_be_read_is_posted_at_the_next_check(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice (in #games) and carol (in #side) pass half their time, and the database fails the
    server's language as the first reminder is written: each is reminded once, the one that
    failed at the next check (it was noted as posted: that one was lost, and the reminders
    after it in that check too)."""
    side = table.guild.channel("side")
    await start_game(table, table.alice, table.bob, table.channel)
    await start_game(table, table.carol, table.admin, side)
    failed = settings_fail_once_in(table, monkeypatch, "_remind_one")
    table.advance(timedelta(hours=13))
    await table.checks_run(1)
    assert failed
    await table.checks_run(1)
    assert len(reminders(table, table.channel)) == 1
    assert len(reminders(table, side)) == 1


async def test_a_refused_reminder_the_database_cannot_place_holds_up_no_other_reminder(
    threads: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's and carol's games, each in its thread, pass half their time; Discord refuses
    alice's reminder once, and the database fails the read of whether her thread is closed:
    carol is reminded at that check, and alice at the next (the error ended the reminders
    claimed as posted: carol's and alice's were lost)."""
    table = threads
    assert table.bot is not None
    _, alices = await board_thread_game(table)
    _, carols = await board_thread_game(table, challenger=table.carol, opponent=table.admin)
    posts = f"/channels/{alices.id}/messages"
    refused: list[str] = []

    def alices_first_post(method: str, path: str) -> bool:
        if method == "POST" and path == posts and not refused:
            refused.append(path)
            return True
        return False

    table.standin.fail_rest(403, seconds=600, matching=alices_first_post, code=50013)
    vanished = table.bot.flow.vanished
    closed_since = vanished.closed_since
    failed: list[int] = []

    async def unread_once(channel_id: int, set_id: int) -> datetime | None:
        if not failed:
            failed.append(channel_id)
            raise StorageError("database is locked")
        return await closed_since(channel_id, set_id)

    monkeypatch.setattr(vanished, "closed_since", unread_once)
    table.advance(timedelta(hours=13))
    await table.checks_run(1)
    assert failed == [alices.id]
    assert len(reminders(table, carols)) == 1
    await table.checks_run(1)
    assert len(reminders(table, alices)) == 1


async def test_challenges_expiring_hold_up_none_when_one_cannot_read_its_language(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's challenge in #games and carol's in #side expire at one check, and the database
    fails the language of the first one's message: carol's still says it expired (the error
    ended the check's edits, and hers kept its Accept)."""
    side = table.guild.channel("side")
    await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    carols = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=side
    )
    failed = settings_fail_once_in(table, monkeypatch, "show_expired")
    table.advance(timedelta(minutes=11))
    await table.checks_run(1)
    assert failed
    assert "expired" in carols.content
    assert carols.components == []


async def takeback_asked_in(
    table: Harness, asker: FakeMember, channel: FakeChannel
) -> StoredMessage:
    """``asker`` (the attackers in ``channel``'s game) plays d1-b1 and asks to take it back:
    the request."""
    await table.reply_text(asker, "move", {"move": "d1-b1"}, channel=channel)
    return await table.reply_text(asker, "takeback", channel=channel)


async def test_takebacks_lapsing_hold_up_none_when_one_cannot_read_its_language(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's takeback request in #games and carol's in #side lapse at one check, and the
    database fails the language of the first one's message: carol's says it lapsed at that
    check, and alice's at the next (the error ended the check's edits: both kept their
    buttons)."""
    side = table.guild.channel("side")
    await start_game(table, table.alice, table.bob, table.channel)
    await start_game(table, table.carol, table.admin, side)
    alices = await takeback_asked_in(table, table.alice, table.channel)
    carols = await takeback_asked_in(table, table.carol, side)
    failed = settings_fail_once_in(table, monkeypatch, "lapse")
    table.advance(timedelta(minutes=11))
    await table.checks_run(1)
    assert failed
    assert carols.components == []
    await table.checks_run(1)
    assert alices.components == []
    assert alices.content == carols.content.replace(f"<@{table.carol.id}>", f"<@{table.alice.id}>")


async def test_a_computer_match_whose_first_board_cannot_read_the_language_still_opens(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice challenges the computer as the defenders, and the database fails the server's
    language as the first board is made: she is told the match is on and its board follows
    (not that it could not be saved: it was), and the computer opens it (it waited for a
    restart, its clock running)."""
    failed = settings_fail_once_in(table, monkeypatch, "_post_first_board")
    started = await table.slash(
        table.alice, "challenge", {"opponent": table.me, "side": "defenders"}
    )
    told = await started.wait_original()
    assert failed
    assert told.content == (
        "The match is on, but its first board could not be posted just now: it follows shortly."
    )
    table.advance(timedelta(minutes=1))
    await table.checks_run()
    board = await table.wait_board(lambda m: "(attackers) played" in m.content, timeout=15)
    assert "your move as the defenders" in board.content


def names_fail_once_in(table: Harness, monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """No name is remembered, and the players' names fail to read the first time they are
    asked for from a function named ``name``; the list gets ``name`` then."""
    assert table.bot is not None
    table.bot._names.clear()
    players = table.bot.services.players
    read = players.names
    failed: list[str] = []

    async def fails_once(guild_id: int | None, user_ids: list[int]) -> dict[int, str]:
        if not failed and called_from(name):
            failed.append(name)
            raise StorageError("database is locked")
        return await read(guild_id, user_ids)

    monkeypatch.setattr(players, "names", fails_once)
    return failed


async def test_an_accept_whose_names_cannot_be_read_starts_the_match_and_says_so(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's challenge, and the database fails the players' names once the
    match is stored: the challenge says he accepted and the first board follows (he read that
    it could not be saved, and the challenge kept its Accept)."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    failed = names_fail_once_in(table, monkeypatch, "accept")
    pressed = await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
    board = await table.wait_board(lambda m: m.created_at >= reply.created_at)
    assert failed
    assert f"<@{table.alice.id}>, your move" in board.content
    assert "accepted" in reply.content
    assert reply.components == []
    assert str(SAVE_FAILED) not in [m.content for m in pressed.followups]


async def test_a_rematch_whose_first_board_cannot_read_the_language_says_the_game_is_on(
    threads: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice resigns her match against the computer in its thread and presses Rematch, and the
    database fails the server's language as the rematch's first board is made: she is told
    it is on and the board follows, and the match's line says the game is on again (it
    showed the last match's result for good)."""
    table = threads
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    failed = settings_fail_once_in(table, monkeypatch, "_post_first_board")
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    told = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    assert failed
    assert told.content == (
        "The match is on, but its first board could not be posted just now: it follows shortly."
    )
    await table.standin.wait_until(lambda: "the game is on" in line.content, timeout=5)


async def test_a_takeback_accepted_whose_language_cannot_be_read_is_told_as_accepted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback, and the database fails the server's language once the
    takeback is stored: the request says he accepted it and the board after it is posted (he
    read that it could not be saved, the request kept its buttons)."""
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    [accept] = [
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    ]
    failed = settings_fail_once_in(table, monkeypatch, "_answered")
    pressed = await table.standin.click(request, accept, table.bob)
    board = await table.wait_board(lambda m: "taken back" in m.content)
    assert failed
    assert f"<@{table.alice.id}>, your move" in board.content
    assert request.content == "bob accepted the takeback."
    assert str(SAVE_FAILED) not in [m.content for m in pressed.followups]


async def test_a_takeback_accepted_whose_board_cannot_read_the_language_is_posted_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback, the request says so, and the database fails the server's
    language as the board after it is made: he is not told it could not be saved (it was),
    and the board, owed, comes from the outbox."""
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    [accept] = [
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    ]
    failed = settings_fail_once_in(table, monkeypatch, "_post_taken_back")
    pressed = await table.standin.click(request, accept, table.bob)
    await until(lambda: bool(failed))
    assert request.content == "bob accepted the takeback."
    table.advance(timedelta(minutes=1))
    await table.checks_run()
    board = await table.wait_board(lambda m: "taken back" in m.content, timeout=15)
    assert f"<@{table.alice.id}>, your move" in board.content
    assert str(SAVE_FAILED) not in [m.content for m in pressed.followups]


async def test_a_takeback_accepted_after_it_lapsed_whose_language_cannot_be_read_says_so(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's move lands and he presses Accept on alice's request before the timers' sweep, and
    the database fails the server's language once the press stored the lapse: the request
    says it lapsed (he read that it could not be saved, and it kept its buttons)."""
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert table.bot is not None

    async def no_sweep(now: object = None, held: object = None) -> list[object]:
        return []

    monkeypatch.setattr(table.bot.services.takebacks, "lapse_stale", no_sweep)
    await table.reply_text(table.bob, "move", {"move": "c4-c2"})
    [accept] = [
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    ]
    failed = settings_fail_once_in(table, monkeypatch, "answer")
    pressed = await table.standin.click(request, accept, table.bob)
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert failed
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."
    assert str(SAVE_FAILED) not in [m.content for m in pressed.followups]


async def test_an_accept_whose_lapsed_neighbours_language_cannot_be_read_is_not_apologised(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's challenge in #games, where carol's waits too, and the database fails
    the server's language as carol's is edited to say it lapsed (the channel now busy): bob
    reads no apology (the match is stored and its board out), and carol's is stored lapsed."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    carols = await table.reply_text(table.carol, "challenge", {"opponent": table.admin})
    assert carols.custom_ids(), carols.content
    failed = settings_fail_once_in(table, monkeypatch, "_mark_lapsed")
    pressed = await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
    board = await table.wait_board(lambda m: m.created_at >= reply.created_at)
    await until(lambda: bool(failed))
    assert f"<@{table.alice.id}>, your move" in board.content
    assert str(SAVE_FAILED) not in [m.content for m in pressed.followups]


def games_fail_once_in(table: Harness, monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """A game in progress fails to read by its id the first time it is asked for from a
    function named ``name``; the list gets ``name`` then."""
    assert table.bot is not None
    return fails_once_in(monkeypatch, table.bot.services.games, "get", name)


def takeback_request_text(table: Harness, move: str = "d1-b1") -> str:
    """The start of alice's takeback request of ``move`` to bob, in English."""
    return (
        f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back their last move ({move}). "
        "Accept or decline"
    )


async def test_a_takeback_asked_whose_language_cannot_be_read_is_shown(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice asks bob to take her move back, and the database fails the server's language
    once her request is stored: the request is shown (in her language) with its buttons, not
    an apology saying it could not be saved while it waits unseen for ten minutes."""
    await start_game(table, table.alice, table.bob, table.channel)
    failed = settings_fail_once_in(table, monkeypatch, "ask")
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert failed
    assert request.content.startswith(takeback_request_text(table)), request.content
    assert not request.ephemeral
    assert any("accept" in c for c in request.custom_ids())


async def test_a_takeback_asked_whose_game_cannot_be_read_is_shown(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice asks bob to take her move back, and the database would fail a read of the game
    once her request is stored: the request names bob and her move, d1-b1, from the request
    stored, with its buttons (before, it re-read the game, and she read an apology)."""
    await start_game(table, table.alice, table.bob, table.channel)
    failed = games_fail_once_in(table, monkeypatch, "ask")
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert request.content.startswith(takeback_request_text(table)), (failed, request.content)
    assert any("accept" in c for c in request.custom_ids())


def open_takebacks(table: Harness) -> int:
    """How many takeback requests the database holds open."""
    with contextlib.closing(sqlite3.connect(table.db_path)) as raw:
        [(count,)] = raw.execute("SELECT COUNT(*) FROM takebacks WHERE status = 'open'")
    return int(count)


def takeback_rows(table: Harness) -> list[tuple[str, int | None]]:
    """Each takeback request's status and message id, oldest first."""
    with contextlib.closing(sqlite3.connect(table.db_path)) as raw:
        rows = raw.execute("SELECT status, message_id FROM takebacks ORDER BY takeback_id")
        return [(str(status), message_id) for status, message_id in rows]


async def test_a_takeback_request_discord_refused_to_post_does_not_block_the_next(
    table: Harness,
) -> None:
    """alice asks bob to take her move back and Discord refuses the request's post as too late
    (10062, the interaction unknown): nobody saw it, so it is not left open, and her next
    /takeback posts the request (before, she was refused "A takeback is already waiting" for
    ten minutes over a request nobody saw)."""
    await start_game(table, table.alice, table.bob, table.channel)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    fault = table.standin.fail_rest(404, seconds=60, code=10062, matching=_first_answers)
    await table.standin.slash(table.guild, table.channel, table.alice, "takeback", wait=False)
    await until(lambda: fault.hits == 1)
    await until(lambda: open_takebacks(table) == 0, timeout=5)
    table.standin.end_faults()
    request = await table.reply_text(table.alice, "takeback")
    assert request.content.startswith(takeback_request_text(table)), request.content
    assert any("accept" in c for c in request.custom_ids())


async def test_a_takeback_request_posted_though_its_answer_was_lost_can_be_accepted(
    table: Harness,
) -> None:
    """alice asks bob to take her move back; Discord posts the request (pinging bob) but its
    answer is lost (a 502; discord.py's second try is refused as answered already): it stands,
    and bob's Accept undoes the move (before, it was withdrawn while shown, and his Accept was
    told "That takeback request is unknown.", its buttons left for good)."""
    await start_game(table, table.alice, table.bob, table.channel)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    lost = table.standin.lose_answers(502, requests=1, matching=_first_answers)
    await table.standin.slash(table.guild, table.channel, table.alice, "takeback", wait=False)
    request = await table.standin.wait_for_message(
        table.channel, lambda m: m.content.startswith(takeback_request_text(table))
    )
    await until(lambda: takeback_rows(table) != [("open", None)])  # the post's failure met
    assert takeback_rows(table) == [("open", request.id)]
    accept = next(
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    )
    await table.standin.click(request, accept, table.bob)
    assert request.content == "bob accepted the takeback."
    assert lost.hits == 1


async def takeback_asked_apart(table: Harness) -> None:
    """alice asks bob to take her move d1-b1 back while the bot's reads wait 2 s: the command
    is deferred privately, so the request is posted apart, in the channel."""
    await start_game(table, table.alice, table.bob, table.channel)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    async with slow_reads(table):
        await table.standin.slash(table.guild, table.channel, table.alice, "takeback", wait=False)


def takeback_requests(table: Harness) -> list[StoredMessage]:
    """alice's takeback requests posted in the table's channel, oldest first."""
    text = takeback_request_text(table)
    return [m for m in table.public_messages() if m.content.startswith(text)]


async def test_a_takeback_request_posted_apart_though_its_answer_was_lost_stands(
    table: Harness,
) -> None:
    """alice's request, posted apart after a slow read, is made by Discord but its answer is
    lost (a 503, which discord.py does not try again): asked again under its nonce, Discord
    returns it, so it stands with that message and bob's Accept undoes the move (before, it
    was withdrawn while shown: his Accept read "That takeback request is unknown.")."""
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    await takeback_asked_apart(table)
    request = await table.standin.wait_for_message(
        table.channel, lambda m: m.content.startswith(takeback_request_text(table))
    )
    await until(lambda: takeback_rows(table) != [("open", None)], timeout=10)
    assert lost.hits == 1
    assert takeback_rows(table) == [("open", request.id)]
    assert takeback_requests(table) == [request]
    accept = next(
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    )
    await table.standin.click(request, accept, table.bob)
    assert request.content == "bob accepted the takeback."


async def test_a_takeback_request_posted_apart_that_discord_never_made_is_withdrawn(
    table: Harness,
) -> None:
    """alice's request, posted apart after a slow read, fails (a 503, not made) and so does
    its second try under its nonce: nobody saw it, so it is withdrawn, and her next /takeback
    asks bob; she alone read the apology (before, the request was not tried again; its
    withdrawal is kept as it was)."""
    table.expect_apology = True  # Discord down: she is asked to try again
    fault = table.standin.fail_rest(503, seconds=60, matching=_channel_posts)
    await takeback_asked_apart(table)
    await until(lambda: fault.hits == 2, timeout=10)
    apology = await table.standin.wait_for_message(
        table.channel, lambda m: str(APOLOGY) in m.content, timeout=10
    )  # told once the request is withdrawn
    assert apology.ephemeral
    assert open_takebacks(table) == 0
    table.standin.end_faults()
    assert takeback_requests(table) == []
    request = await table.reply_text(table.alice, "takeback")
    assert request.content.startswith(takeback_request_text(table)), request.content


def takeback_messages_fail_once_in(
    table: Harness, monkeypatch: pytest.MonkeyPatch, name: str
) -> list[str]:
    """Noting a takeback request's message fails the first time it is done from a function
    named ``name``; the list gets ``name`` then."""
    assert table.bot is not None
    return fails_once_in(monkeypatch, table.bot.services.takebacks, "set_message", name)


def takeback_messages_never_noted(table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database fails every note of a takeback request's message."""
    assert table.bot is not None

    async def unnoted(takeback_id: int, message_id: int) -> None:
        raise StorageError("database is locked")

    monkeypatch.setattr(table.bot.services.takebacks, "set_message", unnoted)


async def test_a_takeback_whose_message_is_never_noted_still_loses_its_buttons_as_it_lapses(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's request is shown, but the database fails every note of its message: ten
    minutes on, it still says it lapsed and its Accept and Decline go (before, they stayed,
    answering "already answered or lapsed")."""
    takeback_messages_never_noted(table, monkeypatch)
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert takeback_rows(table) == [("open", None)]
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."


async def test_a_takeback_lapsed_while_the_database_fails_its_edit_and_owing_it_is_shown_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's request lapses while the database fails both the server's language and the
    note that its edit is owed: at the timers' next check once the database is back, it says
    it lapsed and its buttons go (before, it kept Accept and Decline for good)."""
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert table.bot is not None
    flow, announcements = table.bot.flow, table.bot.services.announcements

    async def down(*args: object, **kwargs: object) -> Any:
        raise StorageError("database is locked")

    with monkeypatch.context() as failing:
        failing.setattr(flow, "server_language", down)
        failing.setattr(announcements, "answer_owed", down)
        table.advance(timedelta(minutes=10, seconds=1))
        await table.checks_run(2)
        assert takeback_rows(table) == [("lapsed", request.id)]
        assert request.custom_ids()  # neither shown nor owed
    await table.checks_run()
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."


async def test_a_takeback_message_noted_late_loses_its_buttons_as_it_lapses_after_a_restart(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's request is shown, but the database fails the note of its message once: the
    timers' next check notes it, so after a restart, ten minutes on, it says it lapsed and its
    buttons go (before, it was never noted: they stayed)."""
    await start_game(table, table.alice, table.bob, table.channel)
    failed = takeback_messages_fail_once_in(table, monkeypatch, "ask")
    request = await takeback_asked_in(table, table.alice, table.channel)
    assert failed
    assert takeback_rows(table) == [("open", None)]
    await table.checks_run()
    assert takeback_rows(table) == [("open", request.id)]
    await table.restart()
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."


TAKEN_BACK_BOARD_OWED = {
    "en-US": "Your move and my reply are taken back, but the board could not be posted just "
    "now: it follows shortly.",
    "de": "Dein Zug und meine Antwort sind zurückgenommen, aber das Brett konnte gerade nicht "
    "gepostet werden: Es folgt in Kürze.",
    "es-ES": "Tu jugada y mi respuesta están deshechas, pero el tablero no se pudo publicar "
    "ahora mismo: llegará en breve.",
    "fr": "Votre coup et ma réponse sont repris, mais le plateau n'a pas pu être publié pour "
    "l'instant : il arrivera sous peu.",
    "pt-BR": "Seu lance e a minha resposta foram desfeitos, mas o tabuleiro não pôde ser "
    "publicado agora: ele aparecerá em instantes.",
}
"""What a player reads, in their Discord language, when their takeback against the computer is
stored but its board could not be posted."""


@pytest.mark.parametrize("locale", TAKEN_BACK_BOARD_OWED)
async def test_a_takeback_against_the_computer_whose_names_cannot_be_read_is_told_as_taken_back(
    table: Harness, monkeypatch: pytest.MonkeyPatch, locale: str
) -> None:
    """alice takes back her move against the computer and the database fails the players'
    names as its board is made: she reads, in her language, that it is taken back and its
    board follows (before: that it could not be saved, though it was), and the board (in the
    server's English) comes from the outbox."""
    table.alice.user.locale = locale
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    reply = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: bool(reply.attachments), timeout=10)
    failed = names_fail_once_in(table, monkeypatch, "_answer_undone")
    told = await table.reply_text(table.alice, "takeback")
    assert failed
    assert told.ephemeral
    assert told.content == TAKEN_BACK_BOARD_OWED[locale]
    table.advance(timedelta(minutes=1))
    await table.checks_run()
    board = await table.wait_board(lambda m: "took back" in m.content, timeout=15)
    assert board.content.startswith("alice took back their move and my reply.")


async def test_a_takeback_request_deleted_before_its_message_is_noted_gives_way(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's request is shown, but the database fails every note of its message, and a
    moderator deletes it: her next /takeback asks bob again, unpinged (before, she was told a
    request was waiting, until the first one lapsed ten minutes on)."""
    takeback_messages_never_noted(table, monkeypatch)
    await start_game(table, table.alice, table.bob, table.channel)
    request = await takeback_asked_in(table, table.alice, table.channel)
    table.standin.delete_message(request)
    again = await table.reply_text(table.alice, "takeback")
    assert again.content.startswith(takeback_request_text(table)), again.content
    assert request.pinged_user_ids() == {table.bob.id}
    assert again.pinged_user_ids() == set()
    assert takeback_rows(table) == [("lapsed", None), ("open", None)]


async def test_a_takeback_request_taking_a_withdrawn_ones_id_is_posted_all_the_same(
    table: Harness,
) -> None:
    """alice's request, posted apart after a slow read, is made by Discord but the answers to
    both its tries are lost: it is withdrawn (she reads the apology), and SQLite gives its id
    to carol's request in #side a moment later, posted apart too: carol's is posted in #side,
    asking the admin (before, it went under the same nonce, and Discord returned alice's
    message in #games: nobody in #side was asked, and carol's request stood unseen)."""
    side = table.guild.channel("side")
    await start_game(table, table.carol, table.admin, side)
    table.expect_apology = True  # alice's: Discord's answers lost, she is asked to try again
    lost = table.standin.lose_answers(503, requests=2, matching=_channel_posts)
    await takeback_asked_apart(table)
    await until(lambda: lost.hits == 2 and open_takebacks(table) == 0, timeout=10)
    await table.reply_text(table.carol, "move", {"move": "d1-b1"}, channel=side)
    async with slow_reads(table):
        await table.standin.slash(table.guild, side, table.carol, "takeback", wait=False)
    asks = f"<@{table.admin.id}>, <@{table.carol.id}> asks to take back their last move (d1-b1)."
    request = await table.standin.wait_for_message(side, lambda m: m.content.startswith(asks))
    await until(lambda: takeback_rows(table) == [("open", request.id)], timeout=10)
