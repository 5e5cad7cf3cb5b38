"""A move stored whose answer then fails (Discord's 5xx, a refusal, a fault of ours): the player
is told their move is played, its board is owed to the outbox (posted once: an answer Discord
made although its request failed is found, not posted again), and the game goes on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import discord.webhook.async_
import pytest

from bot.channel_waits import Route
from bot.flow import game_flow, player_moves, set_ends
from bot.flow.posts import board_post
from bot.services.announcements import AnnouncementService
from bot.services.boards import BoardService
from bot.services.games import GameService
from bot.storage.errors import DatabaseUnavailable
from tests.bot_harness import (
    Harness,
    board_thread_game,
    eventually,
    next_drawing_waits,
    running_bot,
    settled,
)
from tests.discord_standin import DiscordStandin, StoredMessage
from tests.discord_standin.faults import Matcher
from tests.discord_standin.model import VIEW_CHANNEL
from tests.test_bot_computer import HeldPool
from tests.test_bot_failed_set_end_posts import (
    KING_CAPTURED,
    KING_ESCAPES,
    ScriptedPool,
    alice_plays,
    fails_once,
)

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running (games in the channel, a short thinking time)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


def owed_sentence(move: str) -> str:
    """What a player reads whose move is played but whose board is owed."""
    return (
        f"Your move {move} is played, but its board could not be posted just now: it follows "
        "shortly."
    )


def first_only(matching: Matcher) -> Matcher:
    """``matching``, for its first request only (the bot's own error answer gets through)."""
    seen: list[bool] = []

    def first(method: str, path: str) -> bool:
        if seen or not matching(method, path):
            return False
        seen.append(True)
        return True

    return first


def _first_answers(method: str, path: str) -> bool:
    return method == "POST" and path.startswith("/interactions/") and path.endswith("/callback")


def _channel_posts(method: str, path: str) -> bool:
    return method == "POST" and path.startswith("/channels/") and path.endswith("/messages")


def _followups(method: str, path: str) -> bool:
    return method == "POST" and path.startswith("/webhooks/") and path.count("/") == 3


def _press_answers(method: str, path: str) -> bool:
    """A press's public answer (its board, or its line against the computer), however it goes:
    a message in the channel, or a followup where the bot may not post there."""
    return _channel_posts(method, path) or _followups(method, path)


def boards_of(table: Harness, move: str) -> list[StoredMessage]:
    """The public boards telling of ``move``."""
    return [m for m in table.public_messages() if f"played {move}." in m.content]


async def outbox_done(table: Harness) -> None:
    """Let the outbox's time for what is owed come, and its checks post it: nothing is owed."""
    assert table.bot is not None
    table.advance(timedelta(seconds=30))
    await table.checks_run(2)
    assert await table.bot.services.announcements.due() == []


async def step_two(table: Harness, board: StoredMessage) -> tuple[StoredMessage, str]:
    """alice presses Move on ``board`` and picks d1: the picker's second step and its select."""
    where = await table.picked(board, table.alice)
    [select] = where.custom_ids()
    return where, select


async def test_a_move_whose_board_discord_failed_is_played_and_its_board_owed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /move is slow (deferred privately), and Discord answers its board, posted in
    the channel, with a 503 it did not act on: she reads that her move is played and its board
    follows (she was asked to try again), and the outbox posts it once Discord is back."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    _drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})  # its deferral
    table.standin.fail_rest(503, seconds=60, matching=_channel_posts)
    go_on.set()
    answer = await record.wait_original()
    assert answer.content == owed_sentence("d1-b1")
    assert answer.ephemeral
    table.standin.end_faults()
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_a_move_whose_answer_was_made_but_lost_is_not_posted_again(table: Harness) -> None:
    """Discord makes alice's /move's board but its answer is lost (a 503; an interaction's
    answer carries no nonce): the bot finds the answer made, so the outbox owes nothing and
    no second board is posted (before, it was owed and posted twice)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    lost = table.standin.lose_answers(503, requests=1, matching=_first_answers)
    answer = await table.move(table.alice, "d1-b1")  # discord.py's try again: "answered already"
    assert lost.hits == 1
    assert not answer.ephemeral
    assert table.bot is not None
    announcements = table.bot.services.announcements
    await eventually(lambda: announcements.message_of(1, 1), answer.id)  # found, out
    await outbox_done(table)
    assert [m.id for m in boards_of(table, "d1-b1")] == [answer.id]


async def test_a_pickers_board_refused_says_the_move_is_played_in_its_place(
    table: Harness,
) -> None:
    """Discord refuses alice's picked move's board (403: a permission taken away as she
    pressed): the picker says her move is played and its board follows, not that I cannot
    play here; the outbox posts it once it may."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    table.standin.fail_rest(403, seconds=60, matching=first_only(_press_answers), code=50013)
    pressed = await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert where.custom_ids() == []
    assert pressed.followups == []
    table.standin.end_faults()
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_a_picked_move_whose_board_fails_leaves_no_choices_offered(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawing the board of alice's picked move fails: the picker itself says her move is
    played and its board follows, its choices gone (they offered a move no longer hers)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    monkeypatch.setattr(player_moves, "board_post", fails_once(board_post))
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert where.custom_ids() == []
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_what_follows_a_move_failing_keeps_the_players_answer(
    table: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """alice's move ends the match in its thread; its board fails to draw, and so does the
    match's result on the line in the parent channel (a fault of ours): she still reads that
    her move is played, and the fault is logged with its traceback."""
    assert table.bot is not None
    await table.bot.services.settings.change(table.guild.id, threads=True)
    _board, thread = await board_thread_game(table, opening=KING_CAPTURED[:4])

    async def fails(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("cannot show the result")

    monkeypatch.setattr(set_ends.SetEnds, "_show_result_on_line", fails)
    monkeypatch.setattr(player_moves, "board_post", fails_once(board_post))
    answer = await table.reply_text(table.alice, "move", {"move": KING_CAPTURED[4]}, channel=thread)
    assert answer.content == owed_sentence(KING_CAPTURED[4])
    [failed] = [r for r in caplog.records if "what follows the move" in r.getMessage()]
    assert failed.levelno == logging.ERROR
    assert failed.exc_info is not None
    assert "cannot show the result" in str(failed.exc_info[1])


OPENS = "**Brandubh (level 3)** (attackers) played"
"""How the computer's opening move of set 2 is told."""


def stored_then_failing(
    play: Callable[..., Awaitable[Any]],
) -> Callable[..., Awaitable[Any]]:
    """``GameService.play_computer_move``, storing the move and then answering with an error
    (the answer to its commit lost)."""

    async def played(*args: Any, **kwargs: Any) -> Any:
        await play(*args, **kwargs)
        raise DatabaseUnavailable("the answer to the commit was lost")

    return played


async def test_a_set_the_computers_move_ends_goes_on_though_its_write_answered_an_error(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's move wins set 1 and is stored, but the database answers its write with
    an error: the turn finds it stored, posts its board and set 2 begins, the computer opening
    it (before, it waited for a restart)."""
    assert table.bot is not None
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    table.bot.ai = ScriptedPool(KING_ESCAPES)
    await alice_plays(table, KING_ESCAPES[:6])
    monkeypatch.setattr(
        GameService, "play_computer_move", stored_then_failing(GameService.play_computer_move)
    )
    await table.move(table.alice, KING_ESCAPES[6])
    opening = await table.wait_board(lambda m: "Set 2 of 2" in m.content and OPENS in m.content)
    assert "your move as the defenders" in opening.content


@pytest.mark.parametrize("status", [500, 503])
async def test_a_pickers_board_made_but_its_answer_lost_is_posted_once(
    table: Harness, status: int
) -> None:
    """Discord makes the board of alice's picked move but its answer is lost (a 500, which
    discord.py tries again itself, or a 503, which it does not): one board shows it, the one
    the game goes by (before, a followup without a nonce, which discord.py tried again after
    either and Discord made twice)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    lost = table.standin.lose_answers(status, requests=1, matching=_press_answers)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    assert table.bot is not None
    announcements = table.bot.services.announcements
    await eventually(lambda: announcements.message_of(1, 1), boards_of(table, "d1-b1")[0].id)
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_a_pickers_board_rate_limited_long_is_owed_without_a_second_try(
    table: Harness,
) -> None:
    """Discord answers the post of alice's picked move's board with 429, to wait ten minutes:
    nothing was made, so the post is not tried again a second later as after a 5xx (before,
    a second request into the same rate limit); she reads that her move is played and its
    board follows, and the outbox posts it once, after the ten minutes (nothing is sent into
    them: bot/channel_waits.py)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    limited = table.standin.rate_limit(retry_after=600, requests=2, matching=_channel_posts)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert limited.hits == 1
    table.standin.end_faults()
    await table.checks_run(2)
    assert boards_of(table, "d1-b1") == []  # the wait is not up
    table.advance(timedelta(minutes=11))
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_a_long_wait_of_discords_global_limit_is_kept_as_no_channels_wait(
    table: Harness,
) -> None:
    """Discord answers the post of alice's picked move's board with a 429 of its *global*
    limit, to wait ten minutes: the board is owed all the same, but no wait is kept for that
    channel, whose own limit was not what Discord spoke of (before, its posts and edits were
    refused there for ten minutes)."""
    assert table.bot is not None
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    limited = table.standin.rate_limit(
        retry_after=600, requests=2, matching=_channel_posts, is_global=True
    )
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert limited.hits == 1
    assert table.bot.channel_waits.waiting(Route.POST, table.channel.id) is None
    assert len(table.bot.channel_waits) == 0


async def test_a_pickers_board_held_back_by_a_rate_limit_is_logged_in_one_line(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers the post of alice's picked move's board with 429, to wait ten minutes:
    the board owed is logged in one warning line naming the wait, not as an error with a
    traceback (before: an ERROR with the RateLimited's traceback, as a fault of ours)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    table.standin.rate_limit(retry_after=600, requests=2, matching=_channel_posts)
    with caplog.at_level(logging.INFO, logger="bot.flow.move_answers"):
        await table.standin.select(where, select, table.alice, ["d1-b1"])
        await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    [owed] = [r for r in caplog.records if r.name == "bot.flow.move_answers"]
    assert owed.levelno == logging.WARNING, owed.getMessage()
    assert owed.exc_info is None
    assert "is owed: Discord asks to wait" in owed.getMessage(), owed.getMessage()


async def test_a_picked_move_against_the_computer_whose_line_was_lost_shows_once(
    table: Harness,
) -> None:
    """Discord makes the line of alice's picked move against the computer ("I am thinking…")
    but its answer is lost (a 503): one line tells of her move, and the computer's reply
    replaces it (before, a followup tried again by discord.py: a second line kept saying "I am
    thinking…")."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    board = await table.wait_board(lambda m: "your move as the attackers" in m.content)
    where, select = await step_two(table, board)
    lost = table.standin.lose_answers(503, requests=1, matching=_press_answers)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=20)
    await table.wait_board(lambda m: "(level 3)** (defenders) played" in m.content)
    await outbox_done(table)
    [told] = boards_of(table, "d1-b1")
    assert "(level 3)** (defenders) played" in told.content
    assert not any("I am thinking…" in m.content for m in table.public_messages())


async def test_a_picked_line_against_the_computer_lost_both_tries_stops_thinking(
    table: Harness,
) -> None:
    """Discord makes the line of alice's picked move against the computer but loses the
    answer to both tries (503s): she is told her move is played, the computer's reply is
    posted apart, and the outbox's post of her line, returned by its nonce, takes "I am
    thinking…" off it (before, the line said so for good)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    board = await table.wait_board(lambda m: "your move as the attackers" in m.content)
    where, select = await step_two(table, board)
    lost = table.standin.lose_answers(503, requests=2, matching=_channel_posts)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert lost.hits == 2
    await table.wait_board(lambda m: "(level 3)** (defenders) played" in m.content)
    await outbox_done(table)
    [line] = boards_of(table, "d1-b1")
    assert line.content.startswith("**alice** (attackers) played d1-b1."), line.content
    assert not any("I am thinking…" in m.content for m in table.public_messages())


async def test_a_move_against_the_computer_whose_line_fails_to_draw_is_played(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's move against the computer is stored, then its line's headline fails (a fault
    of ours, after the move's own read): she reads that her move is played, not an apology,
    and the computer answers it."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    headline_for = game_flow.GameFlow.headline_for
    calls: list[bool] = []

    async def fails_second(self: game_flow.GameFlow, *args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        if len(calls) == 2:
            raise OSError("cannot name the players")
        return await headline_for(self, *args, **kwargs)

    monkeypatch.setattr(game_flow.GameFlow, "headline_for", fails_second)
    answer = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert answer.content == owed_sentence("d1-b1")
    await table.wait_board(lambda m: "(level 3)** (defenders) played" in m.content)


async def test_a_line_returned_while_the_computer_searches_loses_thinking_when_it_replies(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord makes the line of alice's picked move against the computer but loses both
    answers; the outbox gets the line back by its nonce past its grace, while the computer
    still searches: the reply is edited into that line, which says no longer "I am thinking…"
    (before, the reply was posted apart and the line kept saying so)."""
    _line, released = await line_returned_while_searching(table, monkeypatch)
    released.set()
    await table.wait_board(lambda m: "(level 3)** (defenders) played" in m.content)
    await outbox_done(table)
    [told] = boards_of(table, "d1-b1")  # the reply was edited into the line: one message
    assert "(level 3)** (defenders) played" in told.content
    assert not any("I am thinking…" in m.content for m in table.public_messages())


async def test_a_line_returned_while_the_computer_searches_tells_its_move_if_its_post_fails(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord makes the line of alice's picked move against the computer but loses both
    answers; the outbox gets the line back by its nonce while the computer searches, and
    Discord fails my reply's edit into it (503) and refuses its post apart (403): the line
    tells my move in place of "I am thinking…" (before, it kept saying I was thinking until
    my board came, late)."""
    line, released = await line_returned_while_searching(table, monkeypatch)
    table.standin.fail_rest(503, seconds=30, matching=first_only(_edits))
    table.standin.fail_rest(403, seconds=30, code=50013, matching=_channel_posts)
    released.set()
    await settled(table, tasks_named=("computer-move-",))
    played, mine = line.content.split("\n")
    assert played == "**alice** (attackers) played d1-b1."
    assert mine.startswith("**Brandubh (level 3)** (defenders) played "), mine
    assert not line.attachments
    table.standin.end_faults()


async def line_returned_while_searching(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[StoredMessage, asyncio.Event]:
    """Discord makes the line of alice's picked move against the computer but loses both
    answers (503s); the outbox gets the line back by its nonce past its grace while the
    computer searches, held until the event returned is set. Returns the line."""
    assert table.bot is not None
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    board = await table.wait_board(lambda m: "your move as the attackers" in m.content)
    searching, released = asyncio.Event(), asyncio.Event()
    choose_move = table.bot.ai.choose_move

    async def held(*args: Any, **kwargs: Any) -> str:
        searching.set()
        await released.wait()
        return await choose_move(*args, **kwargs)

    monkeypatch.setattr(table.bot.ai, "choose_move", held)
    where, select = await step_two(table, board)
    lost = table.standin.lose_answers(503, requests=2, matching=_channel_posts)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    assert lost.hits == 2
    await asyncio.wait_for(searching.wait(), timeout=10)
    table.advance(timedelta(seconds=30))  # past the outbox's grace: it posts the line's board
    await table.checks_run(2)
    announcements = table.bot.services.announcements
    [line] = boards_of(table, "d1-b1")
    await eventually(lambda: announcements.message_of(1, 1), line.id)
    assert line.content.endswith("I am thinking…")  # the computer still searches
    return line, released


def _edits(method: str, path: str) -> bool:
    return method == "PATCH" and path.startswith("/channels/") and "/messages/" in path


async def test_a_set_the_computers_move_ends_goes_on_though_neither_write_nor_read_answered(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's move wins set 1 and is stored, but the database answers its write with
    an error and fails the read after it too: the turn is left to a retry, whose check finds
    the set ended by that move and lets set 2 begin, the computer opening it (before, the set
    2 waited for a restart)."""
    assert table.bot is not None
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    table.bot.ai = ScriptedPool(KING_ESCAPES)
    await alice_plays(table, KING_ESCAPES[:6])
    get = GameService.get
    unreachable: list[bool] = []
    failed_reads: list[bool] = []

    async def read(self: GameService, *args: Any, **kwargs: Any) -> Any:
        if unreachable:
            unreachable.clear()
            failed_reads.append(True)
            raise DatabaseUnavailable("the database is briefly unreachable")
        return await get(self, *args, **kwargs)

    play, failing = (
        GameService.play_computer_move,
        stored_then_failing(GameService.play_computer_move),
    )

    async def played(*args: Any, **kwargs: Any) -> Any:
        if failed_reads:  # the database is back (set 2)
            return await play(*args, **kwargs)
        unreachable.append(True)  # the read after the write fails too
        return await failing(*args, **kwargs)

    monkeypatch.setattr(GameService, "get", read)
    monkeypatch.setattr(GameService, "play_computer_move", played)
    await table.move(table.alice, KING_ESCAPES[6])

    async def read_failed() -> bool:
        return bool(failed_reads)

    await eventually(read_failed, True)
    table.advance(timedelta(seconds=30))  # the outbox posts set 1's final board
    await table.checks_run(2)
    opening = await table.wait_board(lambda m: "Set 2 of 2" in m.content and OPENS in m.content)
    assert "your move as the defenders" in opening.content


async def test_a_slow_move_where_i_may_not_view_the_channel_shows_its_board_privately(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """View Channel is denied me in #games (Send Messages left): alice's slow /move, deferred
    privately, shows her its board privately, nothing posted into a refusal, and the outbox
    posts it once I may (before, posted apart, refused, and told as owed: only the picker's
    judge knew View Channel)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=VIEW_CHANNEL)
    _drawing, go_on = next_drawing_waits(monkeypatch, player_moves)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})  # its deferral
    posts_before = sum(_channel_posts(c.method, c.path) for c in table.standin.recorder.rest_log)
    go_on.set()
    answer = await record.wait_original()
    assert answer.ephemeral
    assert "played d1-b1." in answer.content, answer.content
    posts = sum(_channel_posts(c.method, c.path) for c in table.standin.recorder.rest_log)
    assert posts == posts_before
    await table.standin.set_overwrite(table.channel, table.me)
    await outbox_done(table)
    assert len(boards_of(table, "d1-b1")) == 1


async def test_a_pickers_board_refused_and_posted_late_says_i_was_not_allowed(
    table: Harness,
) -> None:
    """Discord refuses alice's picked move's board (403: a permission taken away as she
    pressed), and bob moves before the outbox posts it: posted late, it says I was not
    allowed to post when it was played (before, that Discord could not be reached: only a
    refusal of the outbox's own try was noted)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    where, select = await step_two(table, board)
    table.standin.fail_rest(403, seconds=60, matching=first_only(_press_answers), code=50013)
    await table.standin.select(where, select, table.alice, ["d1-b1"])
    await table.standin.wait_until(lambda: where.content == owed_sentence("d1-b1"), timeout=20)
    table.standin.end_faults()
    await table.move(table.bob, "c4-c2")
    await outbox_done(table)
    [late] = boards_of(table, "d1-b1")
    assert late.content.endswith(
        "move 2 · posted late: I was not allowed to post here when it was played."
    ), late.content


class QuickRetries:
    """The ``asyncio`` discord.py's webhook requests (an interaction's edits) see, whose
    pauses between their five tries after a 5xx (1 + 3 + 5 + 7 + 9 s) last no time."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float, result: Any = None) -> Any:
        return await asyncio.sleep(0, result)


async def test_a_line_made_the_first_board_with_its_answer_lost_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord refuses alice's computer game a thread, then makes the edit that turns her
    /challenge line into its first board but loses the answer to all five of discord.py's
    tries (503s): the line is read back, found made, and no second first board is posted
    apart (before, one was)."""
    assert table.bot is not None
    await table.bot.services.settings.change(table.guild.id, threads=True)
    table.standin.world.thread_creation_error = (403, 50013, "Missing Permissions")
    monkeypatch.setattr(discord.webhook.async_, "asyncio", QuickRetries())
    lost = table.standin.lose_answers(
        503,
        requests=5,
        matching=lambda method, path: method == "PATCH" and path.endswith("/@original"),
    )
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: lost.hits == 5, timeout=10)
    await settled(table)
    firsts = [m for m in table.public_messages() if "would not let me open a thread" in m.content]
    assert [m.id for m in firsts] == [line.id], [m.content for m in firsts]
    boards = table.bot.services.boards
    await eventually(lambda: boards.live_board(table.channel.id), line.id)


async def test_a_board_out_whose_record_failed_is_not_told_as_lost_nor_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /move is answered with its board, then the database fails to record it out:
    she reads no storage sentence (her move and its board are out), and once the database
    answers the outbox records the board, not posting it again (before, she read that the
    database failed, and a second board came; a /move's answer carries no nonce)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    board_posted = BoardService.board_posted
    failed: list[bool] = []

    async def fails_once(self: BoardService, *args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(True)
            raise DatabaseUnavailable("the database went away")
        return await board_posted(self, *args, **kwargs)

    monkeypatch.setattr(BoardService, "board_posted", fails_once)
    record = await table.slash(table.alice, "move", {"move": "d1-b1"})
    answer = await record.wait_original()
    assert not answer.ephemeral
    await settled(table)
    assert failed
    assert record.followups == []
    await outbox_done(table)
    assert [m.id for m in boards_of(table, "d1-b1")] == [answer.id]
    assert table.bot is not None
    assert await table.bot.services.announcements.message_of(1, 1) == answer.id


@pytest.mark.parametrize("later", [timedelta(seconds=1), timedelta(0)], ids=["later", "still"])
async def test_a_set_ended_after_a_line_whose_record_failed_still_gets_its_final_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch, later: timedelta
) -> None:
    """alice's line against the computer is out but the database fails to record it; while the
    computer thinks, an admin aborts the game from #lobby (``later``, or at the same instant:
    a clock standing still) and Discord refuses its final board: the outbox posts that board
    later (before, the line's late record marked it out: never posted; on a clock standing
    still, until the late record compared the board as its move owed it, not instants)."""
    assert table.bot is not None
    pool = HeldPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    delivered = AnnouncementService.delivered
    failed: list[bool] = []

    async def fails_first(self: AnnouncementService, *args: Any, **kwargs: Any) -> None:
        if not failed:
            failed.append(True)
            raise DatabaseUnavailable("the database went away")
        await delivered(self, *args, **kwargs)

    monkeypatch.setattr(AnnouncementService, "delivered", fails_first)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…"), line.content
    await table.standin.wait_until(lambda: pool.asked == [1], waiting_for="the computer's turn")
    assert failed
    table.advance(later)
    games = f"/channels/{table.channel.id}/messages"
    refused = table.standin.fail_rest(
        403,
        seconds=60,
        matching=lambda method, path: method == "POST" and path == games,
        code=50013,
    )
    lobby = table.guild.channel("lobby")
    asked = await table.reply_text(table.admin, "abort", {"game": 1}, channel=lobby)
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    await table.standin.click(asked, confirm, table.admin)
    await table.standin.wait_until(lambda: refused.hits >= 1, waiting_for="the refused board")
    table.standin.end_faults()
    pool.go.set()
    await outbox_done(table)
    aborted = [m for m in table.public_messages() if " aborted the " in m.content]
    assert len(aborted) == 1, [m.content for m in table.public_messages()]


async def test_a_set_ended_just_before_a_line_is_recorded_out_still_gets_its_final_board(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's line against the computer is out, and an abort at its ply lands just before the
    flow records it out: the record marks out only the board her move owed, and the outbox
    posts the final board (a record of whatever is owed there marked the final board out:
    never posted)."""
    assert table.bot is not None
    pool = HeldPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    services = table.bot.services
    delivered = AnnouncementService.delivered
    recorded = asyncio.Event()

    async def aborted_first(self: AnnouncementService, *args: Any, **kwargs: Any) -> None:
        monkeypatch.setattr(AnnouncementService, "delivered", delivered)  # only this once
        await services.games.abort(table.channel.id)
        await delivered(self, *args, **kwargs)
        recorded.set()

    monkeypatch.setattr(AnnouncementService, "delivered", aborted_first)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…"), line.content
    await asyncio.wait_for(recorded.wait(), 20)
    pool.go.set()
    await outbox_done(table)
    aborted = [m for m in table.public_messages() if "aborted" in m.content.lower()]
    assert len(aborted) == 1, [m.content for m in table.public_messages()]
    assert aborted[0].attachments, aborted[0].content
