"""The outbox: moves stored while Discord's REST API was down are announced once it is back."""

from __future__ import annotations

import re
import types
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.flow import player_moves
from bot.flow.late_boards import late_line
from bot.flow.outbox import late_cause
from bot.i18n import ENGLISH
from bot.storage.errors import StorageError
from engine import Game
from tests.bot_harness import (
    Harness,
    challenge_id,
    eventually,
    next_drawing_waits,
    running_bot,
    settled,
    timers_checked,
)
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage, rest_messages
from tests.discord_standin.faults import Matcher
from tests.discord_standin.model import SEND_MESSAGES
from tests.test_bot_stored_answers import first_only, owed_sentence

pytest_plugins = ["tests.discord_standin.fixtures"]

OUTAGE_SECONDS = 60.0
"""Longer than any outage lasts: the test ends it (``end_faults``) once what it waits for
happened during it."""
MOVES = 20


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def quiet_moves(count: int) -> list[str]:
    """``count`` legal moves from the start that neither end the game nor repeat a position."""
    game = Game()
    played = []
    for _ in range(count):
        for move in game.legal_moves():
            probe = game.copy()
            if game.would_repeat(move):
                continue
            probe.play(move)
            if probe.outcome is None:
                game.play(move)
                played.append(str(move))
                break
    assert len(played) == count
    return played


def stored_ply(table: Harness) -> Callable[[], Awaitable[int | None]]:
    """Reads the ply of the game in the channel as stored (None once none is in progress)."""
    assert table.bot is not None
    games = table.bot.services.games

    async def ply() -> int | None:
        game = await games.in_channel(table.channel.id)
        return None if game is None else game.ply

    return ply


def boards_by_move(table: Harness) -> dict[int, int]:
    """How many boards the channel shows for each move number ("move N ·" in the turn line)."""
    counts: dict[int, int] = {}
    for message in table.public_messages():
        if not any(a.filename.endswith(".png") for a in message.attachments):
            continue
        found = re.search(r"\bmove (\d+) ·", message.content)
        if found:
            counts[int(found[1])] = counts.get(int(found[1]), 0) + 1
    return counts


async def test_moves_made_during_an_outage_are_all_announced_once(table: Harness) -> None:
    """20 moves while every REST call fails: all are stored, and once Discord is back each of
    the 20 boards is posted exactly once."""
    await table.challenge_accepted(table.alice, table.bob)
    table.standin.fail_rest(500, seconds=OUTAGE_SECONDS)
    for ply, text in enumerate(quiet_moves(MOVES)):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.standin.slash(
            table.guild, table.channel, who, "move", {"move": text}, wait=False
        )
        await eventually(stored_ply(table), ply + 1)  # the next player's turn now
    table.standin.end_faults()  # Discord is back
    table.advance(timedelta(seconds=30))  # past the normal path's grace and any backoff
    expected = {number: 1 for number in range(2, MOVES + 2)}

    def all_posted() -> bool:
        counts = boards_by_move(table)
        return all(counts.get(number, 0) >= 1 for number in expected)

    await table.standin.wait_until(all_posted, timeout=30)
    await timers_checked(table)  # the outbox has looked again since
    counts = boards_by_move(table)
    assert {number: counts.get(number, 0) for number in expected} == expected


async def test_a_timeout_during_an_outage_is_announced_after_it(table: Harness) -> None:
    """alice runs out of time while Discord takes no post: once it does, the loss is posted
    once. (Discord answers who its members are: one it cannot say of is not lost on time
    until it can, bot/player_holds.py.)"""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    table.standin.fail_rest(
        500, seconds=OUTAGE_SECONDS, matching=lambda method, path: "/members/" not in path
    )
    table.advance(timedelta(days=1, seconds=1))  # alice's move timer runs out
    await eventually(stored_ply(table), None)  # the set ended on time
    table.standin.end_faults()  # Discord is back
    table.advance(timedelta(seconds=30))

    def announced() -> list[str]:
        return [m.content for m in table.public_messages() if "ran out of time" in m.content]

    await table.standin.wait_until(lambda: bool(announced()), timeout=30)
    await timers_checked(table)  # the outbox has looked again since
    assert len(announced()) == 1


async def test_a_refused_reminder_is_tried_again_and_posted_once(table: Harness) -> None:
    """The half-time reminder falls due while Discord answers 503: it is posted once, after."""
    await table.challenge_accepted(table.alice, table.bob)
    refused = table.standin.fail_rest(503, seconds=OUTAGE_SECONDS)
    table.advance(timedelta(hours=12, seconds=1))
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=20)
    table.standin.end_faults()  # Discord is back

    def reminders() -> list[str]:
        return [m.content for m in table.public_messages() if "reminder" in m.content]

    await table.standin.wait_until(lambda: bool(reminders()), timeout=20)
    await timers_checked(table)
    [reminder] = reminders()
    assert reminder.startswith(f"<@{table.alice.id}>, reminder: it is your move as the attackers.")


def _channel_posts(method: str, path: str) -> bool:
    return method == "POST" and path.startswith("/channels/") and path.endswith("/messages")


async def test_a_board_whose_answer_was_lost_is_posted_once(table: Harness) -> None:
    """Two moves' boards are owed to the outbox (their interaction answers failed). Discord
    takes the outbox's first post but its answer is lost (a 503, which discord.py does not
    send again): the outbox tries again later with the announcement's own nonce, and Discord
    returns the message it made instead of a second one. (discord.py's own nonce is new at
    every call, so a crash between posting and marking the board delivered would meet the
    same: the next process's post carries the same nonce.)"""
    await table.challenge_accepted(table.alice, table.bob)
    # Answered as one too late is (Unknown interaction), which discord.py does not send again
    # (a 5xx it would, for half a minute): each move's answer fails at once.
    table.standin.fail_rest(
        404, seconds=OUTAGE_SECONDS, code=10062, matching=lambda m, p: "/interactions/" in p
    )
    for ply, text in enumerate(quiet_moves(2)):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.standin.slash(
            table.guild, table.channel, who, "move", {"move": text}, wait=False
        )
        await eventually(stored_ply(table), ply + 1)  # the next player's turn now
    await settled(table)  # both moves' answers failed: their boards are the outbox's
    table.standin.end_faults()
    lost = table.standin.lose_answers(503, requests=1, matching=_channel_posts)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=30)
    table.advance(timedelta(minutes=2))  # past the outbox's pause before trying again
    expected = {2: 1, 3: 1}

    def all_posted() -> bool:
        counts = boards_by_move(table)
        return all(counts.get(number, 0) >= 1 for number in expected)

    await table.standin.wait_until(all_posted, timeout=30)
    assert table.bot is not None
    for _ in range(100):  # the retried post is marked delivered
        if not await table.bot.services.announcements.due():
            break
        table.advance(timedelta(minutes=2))
        await table.checks_run()  # the outbox's round at that time
    else:
        raise AssertionError("an announcement stayed owed")
    counts = boards_by_move(table)
    assert {number: counts.get(number, 0) for number in expected} == expected


async def board_owed_to_the_outbox(table: Harness) -> None:
    """alice plays her first move, but its answer fails (Discord took it too late): the board
    after it is the outbox's to post."""
    await table.challenge_accepted(table.alice, table.bob)
    table.standin.fail_rest(
        404, seconds=OUTAGE_SECONDS, code=10062, matching=lambda m, p: "/interactions/" in p
    )
    [move] = quiet_moves(1)
    await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": move}, wait=False
    )
    await eventually(stored_ply(table), 1)
    await settled(table)  # the move's answer failed: its board is the outbox's
    table.standin.end_faults()


async def test_a_board_posted_but_not_recorded_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's board is owed to the outbox (her move's answer failed); it posts it, but the
    database fails to record it out, and keeps failing past the minutes Discord holds a
    nonce: the board is not posted again, and is recorded out once the database takes it
    (before, each check posted it again, a second copy once Discord forgot the nonce)."""
    await board_owed_to_the_outbox(table)
    assert table.bot is not None
    announcements = table.bot.services.announcements
    record = announcements.posted
    failing = [True]

    async def fails(*args: Any, **kwargs: Any) -> None:
        if failing:
            raise StorageError("database is locked")
        await record(*args, **kwargs)

    monkeypatch.setattr(announcements, "posted", fails)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await table.standin.wait_until(lambda: boards_by_move(table).get(2) == 1, timeout=30)
    monkeypatch.setattr(rest_messages, "NONCE_WINDOW", timedelta(0))  # Discord forgot it
    table.advance(timedelta(seconds=10))
    await table.checks_run(2)
    assert boards_by_move(table).get(2) == 1
    failing.clear()
    await table.checks_run(2)
    assert await announcements.due() == []
    assert boards_by_move(table).get(2) == 1


async def test_a_board_posted_whose_live_board_is_not_recorded_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outbox posts alice's owed board, but the database fails to record it as the game's
    board with buttons, past the minutes Discord holds a nonce: the board is not posted again,
    and becomes the live board once the database takes it (before, the write failing after the
    post left it owed, and a second copy came once Discord forgot the nonce)."""
    await board_owed_to_the_outbox(table)
    assert table.bot is not None
    boards = table.bot.services.boards
    record = boards.set_live_board_at
    failing = [True]

    async def fails(*args: Any, **kwargs: Any) -> tuple[bool, int | None]:
        if failing:
            raise StorageError("database is locked")
        return await record(*args, **kwargs)

    monkeypatch.setattr(boards, "set_live_board_at", fails)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await table.standin.wait_until(lambda: boards_by_move(table).get(2) == 1, timeout=30)
    monkeypatch.setattr(rest_messages, "NONCE_WINDOW", timedelta(0))  # Discord forgot it
    table.advance(timedelta(seconds=10))
    await table.checks_run(2)
    assert boards_by_move(table).get(2) == 1
    failing.clear()
    await table.checks_run(2)
    assert await table.bot.services.announcements.due() == []
    [board] = [m for m in table.public_messages() if "move 2 ·" in m.content]
    assert await boards.live_board(table.channel.id) == board.id
    assert boards_by_move(table).get(2) == 1


async def test_a_board_posted_but_not_recorded_is_not_posted_again_after_a_restart(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outbox posts alice's owed board but the database fails to record it out; bob moves
    on it (its buttons come off), and the bot restarts once Discord forgot the nonce: her
    board is found by its picture's name, not posted again late (before, the record kept in
    memory was lost with the process, and a second copy came)."""
    await board_owed_to_the_outbox(table)
    assert table.bot is not None
    monkeypatch.setattr(table.bot.services.announcements, "posted", _fails)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await table.standin.wait_until(lambda: boards_by_move(table).get(2) == 1, timeout=30)
    played = await table.move(table.bob, quiet_moves(2)[1])
    assert "played" in played.content, played.content
    await table.stop()
    monkeypatch.undo()
    monkeypatch.setattr(rest_messages, "NONCE_WINDOW", timedelta(0))  # Discord forgot it
    table.advance(timedelta(minutes=5))
    await table.start()
    await table.checks_run(2)
    assert table.bot is not None
    assert await table.bot.services.announcements.due() == []
    assert not any("posted late" in m.content for m in table.public_messages())
    assert boards_by_move(table).get(2) == 1


async def _fails(*args: Any, **kwargs: Any) -> None:
    raise StorageError("database is locked")


async def test_a_reminder_whose_answer_was_lost_is_posted_once(table: Harness) -> None:
    """Discord takes the half-time reminder but its answer is lost (502): discord.py sends it
    again with the same nonce (its own, on every message), and Discord keeps one reminder."""
    await table.challenge_accepted(table.alice, table.bob)
    log = table.standin.recorder.rest_log
    before = len(log)
    lost = table.standin.lose_answers(502, requests=1, matching=_channel_posts)
    table.advance(timedelta(hours=12, seconds=1))

    def posts() -> list[int]:
        return [
            call.status
            for call in log[before:]
            if _channel_posts(call.method, call.path.removeprefix("/api/v10"))
        ]

    await table.standin.wait_until(lambda: posts() == [502, 200], timeout=15)  # sent twice
    assert lost.hits == 1
    reminders = [m for m in table.public_messages() if "reminder" in m.content]
    assert len(reminders) == 1


async def aborted_from_elsewhere_while_refused(table: Harness) -> StoredMessage:
    """ada aborts game 1 from #second while I may not post in #games, so its live post is
    refused; once I may again, the outbox's late post of the abort."""
    second = table.standin.add_channel(table.guild, "second")
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    asked = await table.reply_text(table.admin, "abort", {"game": 1}, channel=second)
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    tried = len(table.standin.rest_log)
    await table.standin.click(asked, confirm, table.admin)
    post = f"/channels/{table.channel.id}/messages"

    def refused() -> bool:  # the live post, refused: the abort is owed to the outbox
        return any(
            call.method == "POST" and call.path.endswith(post) and call.status == 403
            for call in table.standin.rest_log[tried:]
        )

    await table.standin.wait_until(refused, timeout=10)
    earlier = {m.id for m in table.public_messages()}
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    return await table.wait_board(lambda m: m.id not in earlier)


async def test_an_abort_posted_late_names_the_admin_as_the_live_post_does(
    table: Harness,
) -> None:
    """ada aborts alice and bob's match from #second while I may not post in #games: once I
    may, the outbox posts the abort as the live post would have, naming ada, who aborted it,
    and the players (whom it pings)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    late = await aborted_from_elsewhere_while_refused(table)
    ada, alice, bob = (f"<@{who.id}>" for who in (table.admin, table.alice, table.bob))
    assert late.content.splitlines() == [
        f"{ada} aborted the match of {alice} and {bob}.",
        "**Set 1 of 2 is over** after 1 move. No winner: the game was aborted.",
        "**Match aborted:** it ends without a match result, and the aborted set is unrated.",
    ]
    assert late.allowed_user_ids() == {table.alice.id, table.bob.id}


async def test_an_abort_posted_late_does_not_ping_the_admin_who_aborted_it(
    table: Harness,
) -> None:
    """ada aborts her own match with alice from #second while I may not post in #games: the
    late post pings alice only, as the live post would (never whoever caused the post); it
    pinged ada too."""
    await table.challenge_accepted(table.admin, table.alice)
    late = await aborted_from_elsewhere_while_refused(table)
    assert late.content.startswith(f"<@{table.admin.id}> aborted the match of ")
    assert late.allowed_user_ids() == {table.alice.id}


async def test_a_final_board_posted_late_takes_the_buttons_and_gives_up_its_rematch(
    table: Harness,
) -> None:
    """alice runs out of time in a one-set match while I may not post in #games, so the
    outbox posts its final board (with Rematch) once I may. It is the channel's board with
    buttons: the opening board's move buttons come off (the game is over), and its Rematch
    comes off when alice and bob's next match starts in the same channel. Posted by the
    outbox, it was never recorded as live: both kept their buttons."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    [opening] = [m for m in table.public_messages() if m.custom_ids()]
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    tried = len(table.standin.rest_log)
    table.advance(timedelta(days=1, seconds=1))  # alice's move timer runs out
    post = f"/channels/{table.channel.id}/messages"

    def refused() -> bool:  # the live post of the set's end, refused: owed to the outbox
        return any(
            call.method == "POST" and call.path.endswith(post) and call.status == 403
            for call in table.standin.rest_log[tried:]
        )

    await table.standin.wait_until(refused, timeout=10)
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    late = await table.wait_board(lambda m: "ran out of time" in m.content)
    assert any(i.startswith("rematch") for i in late.custom_ids()), late.custom_ids()
    await table.standin.wait_until(lambda: not opening.custom_ids(), timeout=5)
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.wait_until(lambda: not late.custom_ids(), timeout=5)


def refused(code: int) -> discord.Forbidden:
    """Discord's 403 with ``code``."""
    return discord.Forbidden(types.SimpleNamespace(status=403, reason="Forbidden"), {"code": code})


def test_a_late_boards_line_says_why_its_post_failed() -> None:
    """A board posted late says a moderator had locked its thread when Discord refused it as
    locked (160005, or 50083 for a thread locked and archived), that I was not allowed to post
    for another refusal (50013 Missing Permissions), and blames Discord's reach otherwise."""
    failures: list[BaseException] = [refused(160005), refused(50083), refused(50013)]
    failures.append(TimeoutError())
    assert [late_line(2, late_cause(error), ENGLISH) for error in failures] == [
        "move 2 · posted late: a moderator had locked this thread.",
        "move 2 · posted late: a moderator had locked this thread.",
        "move 2 · posted late: I was not allowed to post here when it was played.",
        "move 2 · posted late: Discord could not be reached when it was played.",
    ]


def _posts_in(channel: FakeChannel) -> Matcher:
    """Matches the bot's posts in ``channel``."""
    path = f"/channels/{channel.id}/messages"
    return lambda method, wanted: method == "POST" and wanted == path


async def test_a_board_rate_limited_long_waits_as_told_and_holds_up_no_other_channel(
    table: Harness,
) -> None:
    """Discord answers every post in #games with 429, to wait two minutes: alice's picked
    move's board, owed, is tried again only once those two minutes are up (before, at every
    check, about every 10 s, into the same limit), while the board owed in #lobby is posted at
    the first check; alice's is posted once, after. The outbox keeps the wait Discord gave the
    press's own post: it sends nothing into it (before, its first try went in)."""
    lobby = table.guild.channel("lobby")
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    offered = await table.reply_text(
        table.alice, "challenge", {"opponent": table.carol, "sets": 1}, channel=lobby
    )
    await table.standin.click(offered, f"challenge:accept:{challenge_id(offered)}", table.carol)
    other = await table.wait_board(channel=lobby)
    limited = table.standin.rate_limit(
        retry_after=120, requests=1000, matching=_posts_in(table.channel)
    )

    async def played_and_owed(on: StoredMessage) -> None:
        where = await table.picked(on, table.alice)
        [select] = where.custom_ids()
        await table.standin.select(where, select, table.alice, ["d1-b1"])
        await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"))

    await played_and_owed(board)
    # Refused once in #lobby (a permission taken away, given back): owed there too.
    table.standin.fail_rest(403, seconds=60, code=50013, matching=first_only(_posts_in(lobby)))
    await played_and_owed(other)

    def boards_in(channel: FakeChannel) -> list[StoredMessage]:
        told = [m for m in table.public_messages(channel) if "played d1-b1." in m.content]
        return [m for m in told if any(a.filename.endswith(".png") for a in m.attachments)]

    for _ in range(8):  # 112 s: the press's post, at 0 s, waits until 120 s
        table.advance(timedelta(seconds=14))
        await table.checks_run(1)
    assert limited.hits == 1  # the press's post only
    assert len(boards_in(lobby)) == 1
    assert boards_in(table.channel) == []
    table.standin.end_faults()
    table.advance(timedelta(seconds=10))  # the wait is up
    await table.checks_run(2)
    assert len(boards_in(table.channel)) == 1


async def test_boards_owed_in_a_rate_limited_channel_wait_without_a_try_into_the_limit(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord answers every post in #games with 429, to wait two minutes: alice's picked
    move's board and bob's slow /move's board are owed there. Neither bob's press nor the
    outbox sends a board into that wait (before, bob's board posted apart went in, and so did
    the outbox's first try), and both are posted once after it, in order."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    limited = table.standin.rate_limit(
        retry_after=120, requests=1000, matching=_posts_in(table.channel)
    )
    where = await table.picked(board, table.alice)
    [select] = where.custom_ids()
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"))
    _drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    record = await table.slash(table.bob, "move", {"move": "c4-c2"})  # its deferral
    go_on.set()
    answer = await record.wait_original()
    assert answer.content == owed_sentence("c4-c2")
    assert limited.hits == 1  # alice's picked board; bob's is not sent into its wait
    for _ in range(8):  # 112 s: alice's post, at 0 s, waits until 120 s
        table.advance(timedelta(seconds=14))
        await table.checks_run(1)
    assert limited.hits == 1  # the outbox sent nothing into the wait either
    assert table.bot is not None
    assert await table.bot.services.announcements.due() == []  # bob's waits too
    table.standin.end_faults()
    table.advance(timedelta(seconds=10))  # the wait is up
    await table.checks_run(2)
    boards = [
        m
        for m in table.public_messages()
        if any(a.filename.endswith(".png") for a in m.attachments)
    ]
    assert ["played d1-b1." in m.content for m in boards[-2:]] == [True, False]
    assert ["played c4-c2." in m.content for m in boards[-2:]] == [False, True]


async def test_a_reminder_whose_answers_were_all_lost_is_posted_once(table: Harness) -> None:
    """Discord takes the half-time reminder but loses the answer to each of discord.py's five
    tries (502): the reminder is tried again at a later check, and Discord, given the same
    nonce, returns the one it made instead of a second."""
    await table.challenge_accepted(table.alice, table.bob)
    lost = table.standin.lose_answers(502, requests=5, matching=_channel_posts)
    table.advance(timedelta(hours=12, seconds=1))
    await table.standin.wait_until(lambda: lost.hits == 5, timeout=60)
    await timers_checked(table)
    await timers_checked(table)
    reminders = [m for m in table.public_messages() if "reminder" in m.content]
    assert len(reminders) == 1, [m.content for m in reminders]
