"""A game whose thread Discord archived (nobody wrote in it for a while) goes on: an archived,
unlocked thread is open to anyone who writes in it, so its clocks run (unlike a thread a
moderator locked, which holds them where I lack Manage Threads), and whatever the bot posts
or edits there still lands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot import computer_retries
from bot.flow import computer_turns
from tests.bot_harness import (
    Harness,
    board_thread_game,
    eventually,
    next_drawing_waits,
    running_bot,
    settled,
    timers_checked,
    until,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.test_bot_computer import StallingPool

pytest_plugins = ["tests.discord_standin.fixtures"]

WEEK = 7 * 24 * 60
"""The longest time per move a challenge offers, in minutes."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


async def quiet(table: Harness, thread: FakeChannel) -> None:
    """Nobody wrote in ``thread`` for long enough: Discord archives it (not locked)."""
    await table.standin.edit_thread(thread, archived=True)


async def speaking(table: Harness, language: str | None) -> None:
    """An admin sets the server's language (``None``: left as it is, English)."""
    if language is not None:
        await table.reply_text(table.admin, "settings", {"language": language})


def board_buttons(board: StoredMessage) -> list[str]:
    """The custom ids of a board's buttons."""
    return board.custom_ids()


async def test_a_move_after_writing_in_the_archived_thread_is_played(table: Harness) -> None:
    """alice's client offers no commands in the archived thread; she writes there, which opens
    it, and her /move is played: the old board loses its buttons, the new one has them."""
    first, thread = await board_thread_game(table, time=WEEK)
    await quiet(table, thread)
    with pytest.raises(ValueError, match="archived"):
        await table.slash(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.standin.member_writes(thread, table.alice)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert not played.ephemeral, played.content
    await table.standin.wait_until(lambda: first.components == [], timeout=5)
    assert board_buttons(played)


async def test_a_move_in_the_parent_channel_points_to_the_archived_thread(
    table: Harness,
) -> None:
    """From #games alice's /move points to her thread, not as locked: anyone may write there."""
    _, thread = await board_thread_game(table, time=WEEK)
    await quiet(table, thread)
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert reply.ephemeral
    assert reply.content == (
        f"There is no game in this channel: yours is in <#{thread.id}>, play it there."
    )


async def test_the_boards_buttons_work_in_the_archived_thread(table: Harness) -> None:
    """A press of the board's move button in the archived thread (the client opens it first)
    is answered with the picker, privately."""
    board, thread = await board_thread_game(table, time=WEEK)
    await quiet(table, thread)
    [move] = [c for c in board_buttons(board) if c.startswith("move:")]
    pressed = await table.standin.click(board, move, table.alice)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.components, answer.content
    assert not thread.archived


async def test_takeback_and_resign_buttons_work_in_the_archived_thread(table: Harness) -> None:
    """After alice's move the thread goes quiet and is archived: her Takeback press asks bob
    (the question lands in the thread), bob's Accept takes it back; then bob's Resign press
    asks him to confirm, and his confirmation ends the game, each in the archived thread."""
    _, thread = await board_thread_game(table, time=WEEK)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await quiet(table, thread)
    [takeback] = [c for c in board_buttons(played) if c.startswith("takeback:")]
    await (await table.standin.click(played, takeback, table.alice)).wait_original()
    question = await table.standin.wait_for_message(
        thread, lambda m: any(c.startswith("takeback-answer:") for c in m.custom_ids())
    )
    await quiet(table, thread)
    [accept] = [c for c in question.custom_ids() if c.endswith(":accept")]
    await table.standin.click(question, accept, table.bob)
    back = await table.wait_board(lambda m: "was taken back" in m.content, channel=thread)
    await quiet(table, thread)
    [resign] = [c for c in board_buttons(back) if c.startswith("resign-ask:")]
    asked = await (await table.standin.click(back, resign, table.bob)).wait_original()
    assert asked.ephemeral
    await quiet(table, thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.bob)
    over = await table.wait_board(lambda m: "wins the" in m.content, channel=thread)
    assert not over.ephemeral


@pytest.mark.parametrize(
    ("language", "lapsed"),
    [
        pytest.param(None, "<@{bob}>'s takeback request lapsed.", id="en"),
        pytest.param("de", "Die Bitte von <@{bob}> um Zugrücknahme ist verfallen.", id="de"),
    ],
)
async def test_a_takeback_request_that_lapses_in_the_archived_thread_says_so(
    table: Harness, language: str | None, lapsed: str
) -> None:
    """bob asks to take back his move; nobody answers, the thread is archived, and the request
    lapses: its question says so, in the server's language, and loses its buttons (the edit
    was refused in the archived thread; the language was read through the thread, which
    discord.py forgets once it is archived: English)."""
    await speaking(table, language)
    _, thread = await board_thread_game(table, time=WEEK)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.reply_text(table.bob, "move", {"move": "d3-a3"}, channel=thread)
    asked = await table.reply_text(table.bob, "takeback", channel=thread)
    question = await table.standin.wait_for_message(
        thread, lambda m: any(c.startswith("takeback-answer:") for c in m.custom_ids())
    )
    del asked
    await quiet(table, thread)
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: question.components == [], timeout=10)
    assert question.content == lapsed.format(bob=table.bob.id)


@pytest.mark.parametrize(
    ("language", "declined"),
    [
        pytest.param(None, "<@{bob}> declined <@{alice}>'s takeback request.", id="en"),
        pytest.param(
            "de", "<@{bob}> hat die Bitte von <@{alice}> um Zugrücknahme abgelehnt.", id="de"
        ),
    ],
)
async def test_a_takeback_answer_shown_late_in_the_archived_thread_is_in_the_servers_language(
    table: Harness, language: str | None, declined: str
) -> None:
    """bob declines alice's takeback in a thread whose lock I missed (Discord refuses the
    request's edit); a moderator unlocks the thread and archives it in one edit: the outbox
    shows on the request that he declined it, in the server's language (read through the
    thread, which discord.py forgets once it is archived: English)."""
    await speaking(table, language)
    _, thread = await board_thread_game(table, time=WEEK, opening=["d1-b1"])
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not request.ephemeral, request.content
    await table.standin.edit_thread(thread, locked=True, announce=False)
    [decline] = [c for c in request.custom_ids() if c.endswith(":decline")]
    told = await (await table.standin.click(request, decline, table.bob)).wait_original()
    assert told.ephemeral
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id), timeout=10)  # the refusal told of the lock
    await table.standin.edit_thread(thread, locked=False, archived=True)
    await until(lambda: not holds.thread_held(thread.id), timeout=10)
    table.advance(timedelta(minutes=1))  # past the pause after its last refusal
    await table.standin.wait_until(lambda: request.custom_ids() == [], timeout=10)
    assert request.content == declined.format(alice=table.alice.id, bob=table.bob.id)


async def test_the_half_time_reminder_lands_in_the_archived_thread(table: Harness) -> None:
    """alice's reminder at half time is posted in the archived thread (which opens it), and
    her clock was not held: the deadline stays where it was."""
    _, thread = await board_thread_game(table, time=WEEK)
    await quiet(table, thread)
    table.advance(timedelta(days=3, hours=13))
    reminder = await table.standin.wait_for_message(thread, lambda m: "reminder" in m.content)
    assert f"<@{table.alice.id}>" in reminder.content
    assert not thread.archived


async def test_a_timeout_in_the_archived_thread_posts_its_final_board(table: Harness) -> None:
    """alice's time runs out while the thread is archived: the final board is posted there,
    the old board loses its buttons, and the line in #games shows the result."""
    first, thread = await board_thread_game(table, time=WEEK)
    line = table.thread_line(thread)
    await quiet(table, thread)
    table.advance(timedelta(days=3, hours=13))
    await table.standin.wait_for_message(thread, lambda m: "reminder" in m.content)
    await quiet(table, thread)
    table.advance(timedelta(days=3, hours=12))
    over = await table.wait_board(lambda m: "ran out of time" in m.content, channel=thread)
    assert f"<@{table.bob.id}> wins" in over.content
    await table.standin.wait_until(lambda: first.components == [], timeout=10)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=10)


async def test_an_admins_abort_lands_in_the_archived_thread(table: Harness) -> None:
    """An admin aborts the game from #games while its thread is archived: the aborted board is
    posted in the thread and the old board loses its buttons."""
    first, thread = await board_thread_game(table, time=WEEK)
    line = table.thread_line(thread)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    await quiet(table, thread)
    board = await table.abort(table.admin, {"game": active.set_id}, game_channel=thread)
    assert "**Game aborted:**" in board.content
    await table.standin.wait_until(lambda: first.components == [], timeout=10)
    await table.standin.wait_until(lambda: "aborted" in line.content, timeout=10)


async def test_the_match_end_archives_a_thread_discord_archived_first(table: Harness) -> None:
    """bob resigns; during the grace period Discord archives the quiet thread: the bot's own
    archiving of it at the end of the grace period goes through without a fuss."""
    _, thread = await board_thread_game(table, time=WEEK)
    line = table.thread_line(thread)
    asked = await table.reply_text(table.bob, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.bob)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    await quiet(table, thread)
    table.advance(timedelta(minutes=11))
    assert table.bot is not None
    boards = table.bot.services.boards

    async def due() -> object:
        return await boards.archives_due(table.now)

    await eventually(due, [])
    assert thread.archived


async def test_the_computers_reply_lands_in_a_thread_archived_while_it_thinks(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice plays the computer; while its reply is being drawn her thread is archived: the
    reply still replaces the line that said it was thinking, and the game goes on."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    drawing, go_on = next_drawing_waits(monkeypatch, computer_turns)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await drawing.wait()
    await quiet(table, thread)
    go_on.set()
    reply = await table.wait_board(lambda m: "(defenders) played" in m.content, channel=thread)
    assert "I am thinking" not in reply.content
    assert all("I am thinking" not in m.content for m in table.public_messages(thread))
    del played


@pytest.mark.parametrize(
    ("language", "played"),
    [
        pytest.param(None, "**alice** (attackers) played d1-b1.", id="en"),
        pytest.param("de", "**alice** (Angreifer) zog d1-b1.", id="de"),
    ],
)
async def test_a_set_ended_while_the_computer_is_stalled_takes_thinking_off_in_an_archived_thread(
    table: Harness, monkeypatch: pytest.MonkeyPatch, language: str | None, played: str
) -> None:
    """The computer gave up on its reply to alice in her thread (it tries again in an hour);
    an admin aborts the game, and Discord archives the quiet thread before the timers look:
    her line no longer says "I am thinking…", in the server's language (the plain edit was
    refused in the archived thread)."""
    assert table.bot is not None
    monkeypatch.setattr(computer_turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    monkeypatch.setattr(computer_retries, "STALLED_RETRY", timedelta(hours=1))
    if language is not None:
        await table.reply_text(table.admin, "settings", {"language": language})
    start = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: start.thread is not None, timeout=5)
    assert start.thread is not None
    thread = start.thread
    await table.wait_board(channel=thread)
    table.bot.ai = StallingPool(failures=100)
    line = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    thinking = line.content.rsplit("\n", 1)[1]
    await table.standin.wait_until(
        lambda: len(table.public_messages(thread)) > 2, waiting_for="the computer's word"
    )
    looking, look = waits_until_told(monkeypatch, table.bot.timers, "retry_stalled")
    await looking.wait()
    asked = await table.reply_text(table.admin, "abort", channel=thread)
    [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
    await table.standin.click(asked, confirm, table.admin)
    await table.wait_board(lambda m: m.created_at >= asked.created_at, channel=thread)
    await quiet(table, thread)
    look.set()
    await table.standin.wait_until(lambda: not line.content.endswith(thinking), timeout=5)
    assert line.content == played


def _answers(method: str, path: str) -> bool:
    return "/interactions/" in path


@pytest.mark.parametrize(
    ("language", "late"),
    [
        pytest.param(
            None, "move 2 · posted late: Discord could not be reached when it was played.", id="en"
        ),
        pytest.param(
            "de",
            "Zug 2 · verspätet gepostet: Discord war nicht erreichbar, als er gespielt wurde.",
            id="de",
        ),
    ],
)
async def test_boards_owed_in_an_archived_thread_are_posted_in_the_servers_language(
    table: Harness, language: str | None, late: str
) -> None:
    """alice's and bob's moves are stored but Discord loses both answers; the thread is
    archived before the outbox posts their boards: alice's, posted late, says so in the
    server's language (it was read through the thread, which discord.py forgets once it is
    archived: English)."""
    await speaking(table, language)
    _, thread = await board_thread_game(table, time=WEEK)
    assert table.bot is not None
    games = table.bot.services.games
    table.standin.fail_rest(404, seconds=60, code=10062, matching=_answers)  # Unknown interaction
    for ply, (who, text) in enumerate(((table.alice, "d1-b1"), (table.bob, "d3-a3"))):
        await table.standin.slash(table.guild, thread, who, "move", {"move": text}, wait=False)

        async def stored() -> int | None:
            game = await games.in_channel(thread.id)
            return None if game is None else game.ply

        await eventually(stored, ply + 1)
    await settled(table)  # both answers failed: their boards are the outbox's
    table.standin.end_faults()
    await quiet(table, thread)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed boards
    posted = await table.standin.wait_for_message(thread, lambda m: late in m.content)
    assert posted.attachments


@pytest.mark.parametrize(
    ("language", "played"),
    [
        pytest.param(None, "**alice** (attackers) played d1-b1.", id="en"),
        pytest.param("de", "**alice** (Angreifer) zog d1-b1.", id="de"),
    ],
)
async def test_my_reply_the_outbox_posts_in_an_archived_thread_takes_thinking_off(
    table: Harness, language: str | None, played: str
) -> None:
    """Discord refused my reply to alice (both the edit of her line and a post of its own);
    her thread is archived before the outbox posts it: her line no longer says "I am
    thinking…" in the server's language (read through the thread, which discord.py forgets
    once it is archived, the outbox looked for the English words and left the line)."""
    await speaking(table, language)
    start = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.standin.wait_until(lambda: start.thread is not None, timeout=5)
    assert start.thread is not None
    thread = start.thread
    await table.wait_board(channel=thread)
    posts = f"/channels/{thread.id}/messages"

    def mine(method: str, path: str) -> bool:
        return (method == "PATCH" and "/messages/" in path) or (
            method == "POST" and path.endswith(posts)
        )

    refused = table.standin.fail_rest(503, seconds=60, matching=mine)
    line = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    thinking = line.content.rsplit("\n", 1)[1]
    assert line.content == f"{played}\n{thinking}"
    await table.standin.wait_until(lambda: refused.hits >= 2, waiting_for="my reply refused")
    await settled(table, tasks_named=("computer-move-",))  # my turn, all of it refused, is over
    table.standin.end_faults()
    await quiet(table, thread)
    table.advance(timedelta(seconds=30))  # the outbox's turn for the owed reply
    await table.wait_board(lambda m: m.created_at > line.created_at, channel=thread)
    await timers_checked(table)  # the outbox's round, the reply's line with it, is over
    assert line.content == played


# -- a thread locked, not archived: nothing of mine lands there -------------------------


async def test_a_move_in_a_locked_thread_is_refused_and_not_played(table: Harness) -> None:
    """A moderator locked (not archived) the game's thread and I lack Manage Threads, so
    Discord takes no visible answer of mine there: alice's /move and a press of the board's
    move button are refused, privately, saying the thread is locked, and the move is not
    played (it was played while she was told I lacked permissions); her clocks stand still
    meanwhile, and the refusal says so."""
    board, thread = await board_thread_game(table, time=WEEK)
    await table.standin.edit_thread(thread, locked=True)
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id), timeout=5)  # its clocks stand still
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert reply.ephemeral
    assert reply.content == LOCKED
    [move] = [c for c in board_buttons(board) if c.startswith("move:")]
    pressed = await (await table.standin.click(board, move, table.alice)).wait_original()
    assert pressed.ephemeral
    assert pressed.content == LOCKED
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    assert active.ply == 0


LOCKED = (
    "A moderator locked this thread: Discord takes nothing from me here until one unlocks it, "
    "and the game's clocks here stand still until then."
)


async def test_a_thread_unlocked_but_left_archived_shows_the_time_given_back(
    table: Harness,
) -> None:
    """A moderator locks and archives the thread for two days, then unlocks it but leaves it
    archived: alice's board says her new deadline (the two days given back) — the edit was
    refused in the archived thread and the board kept the old one."""
    _, thread = await board_thread_game(table, time=WEEK)
    [board] = [m for m in table.public_messages(thread) if m.components]
    table.advance(timedelta(hours=20))
    await table.checks_run()
    await table.standin.edit_thread(thread, archived=True, locked=True)
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id))  # the bot heard of the lock
    table.advance(timedelta(days=2))
    await timers_checked(table)  # held meanwhile
    await table.standin.edit_thread(thread, locked=False)
    left = timedelta(minutes=WEEK) - timedelta(hours=20)
    deadline = f"<t:{int((table.now + left).timestamp())}:R>"
    await table.standin.wait_until(lambda: deadline in board.content, timeout=10)


async def test_a_challenge_that_expires_in_an_archived_members_thread_says_so(
    table: Harness,
) -> None:
    """carol challenges ada in the thread she started; nobody answers, Discord archives the
    thread, and the challenge expires: its message says so and loses its buttons (the edit
    was refused in the archived thread, and its Accept stayed). Only a member of the thread
    may open it again, and the challenge is an answer, not a post: the bot joined the thread
    with it."""
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    posted = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1}, channel=corner
    )
    assert posted.components, posted.content
    await table.standin.wait_until(lambda: table.me.id in corner.members, timeout=5)
    await quiet(table, corner)
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: posted.components == [], timeout=10)
    assert "expired" in posted.content


async def test_what_only_its_reader_sees_still_comes_in_a_locked_thread(table: Harness) -> None:
    """A thread locked for me takes my private answers: there /help gives its guide, /rules
    the rules and /puzzle play a puzzle whose picker answers, not the refusal meant for what I
    would post for everyone (it said Discord takes nothing from me there)."""
    _, thread = await board_thread_game(table, time=WEEK)
    await table.standin.edit_thread(thread, locked=True)
    await table.standin.wait_until(lambda: thread.locked, timeout=5)
    for name in ("help", "rules"):
        shown = await table.reply_text(table.alice, name, channel=thread)
        assert shown.ephemeral
        assert shown.content != LOCKED
    puzzle = await table.reply_text(table.alice, "puzzle play", channel=thread)
    assert puzzle.ephemeral
    assert puzzle.content != LOCKED
    [picker] = [c for c in puzzle.custom_ids() if c.startswith("pz:") and ":from:" in c]
    select = puzzle.component(picker)
    assert select is not None
    [first, *_] = select["options"]
    chosen = await table.standin.select(puzzle, picker, table.alice, [first["value"]])
    answered = await chosen.wait_original()
    assert answered.content != LOCKED
    assert "Where does" in answered.content, answered.content


async def test_the_time_given_back_shows_in_a_members_archived_thread_against_the_computer(
    table: Harness,
) -> None:
    """carol plays the computer in the thread she started, by /move alone (answers, not posts:
    the bot joined the thread as the match began, as with a challenge there). A moderator locks
    and archives it for two days, then unlocks it but leaves it archived: carol's board says
    her new deadline (before, Discord refused to let a non-member open the thread for the edit,
    and the board kept the old one)."""
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    board = await table.reply_text(
        table.carol, "challenge", {"opponent": table.me, "level": 1, "time": WEEK}, channel=corner
    )
    assert board.components, board.content
    table.advance(timedelta(hours=20))
    await table.checks_run()
    await table.standin.edit_thread(corner, archived=True, locked=True)
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(corner.id))  # the bot heard of the lock
    table.advance(timedelta(days=2))
    await timers_checked(table)  # held meanwhile
    await table.standin.edit_thread(corner, locked=False)
    left = timedelta(minutes=WEEK) - timedelta(hours=20)
    deadline = f"<t:{int((table.now + left).timestamp())}:R>"
    await table.standin.wait_until(lambda: deadline in board.content, timeout=10)
