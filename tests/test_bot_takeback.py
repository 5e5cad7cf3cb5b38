"""Takeback, end to end: asked, accepted, declined, lapsed, refused; against the computer."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord.webhook.async_
import pytest

from bot.flow import takebacks as takebacks_flow
from bot.flow.posts import BoardPost, board_post
from bot.services.clocks import OutOfTime
from tests.bot_harness import Harness, running_bot, settled, waits_until_told
from tests.discord_standin import DiscordStandin, StoredMessage
from tests.test_bot_stored_answers import QuickRetries

pytest_plugins = ["tests.discord_standin.fixtures"]

DOUBLE_CLICK = 0.2
"""Seconds between the two presses of a double click."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


def answer_button(message: StoredMessage, answer: str) -> str:
    """The custom_id of a takeback request's Accept or Decline."""
    [found] = [c for c in message.custom_ids() if c.startswith("takeback-answer:") and answer in c]
    return found


def undone_moves(db_path: Path) -> list[tuple[str, int, int | None]]:
    """The audit table: (move, asked by, accepted by) of every undone move."""
    with sqlite3.connect(db_path, timeout=10) as raw:
        return [
            (str(row[0]), int(row[1]), row[2])
            for row in raw.execute(
                "SELECT u.notation, t.asked_by, t.answered_by FROM undone_moves u "
                "JOIN takebacks t USING (takeback_id) ORDER BY u.rowid"
            )
        ]


async def ask(table: Harness) -> StoredMessage:
    """alice asks to take back her last move; returns the request message."""
    request = await table.reply_text(table.alice, "takeback")
    assert not request.ephemeral, request.content
    return request


async def test_accepted_takeback_undoes_the_move_and_keeps_it_in_the_audit(
    table: Harness,
) -> None:
    """bob accepts: alice's d1-b1 is undone, she is to move again, the audit keeps the move."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    assert request.content.startswith(
        f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back their last move (d1-b1)."
    )
    assert request.pinged_user_ids() == {table.bob.id}
    refused = await table.standin.click(request, answer_button(request, "accept"), table.alice)
    assert (await refused.wait_original()).content == (
        "Your opponent answers your takeback request, not you."
    )
    await table.standin.click(request, answer_button(request, "accept"), table.bob)
    assert request.content == "bob accepted the takeback."
    board = await table.wait_board(lambda m: "taken back" in m.content)
    assert board.content.startswith("alice's move 1 was taken back.\n")
    assert f"<@{table.alice.id}>, your move as the attackers" in board.content
    again = await table.move(table.alice, "d2-c2")
    assert not again.ephemeral, again.content
    assert await asyncio.to_thread(undone_moves, table.db_path) == [
        ("d1-b1", table.alice.id, table.bob.id)
    ]
    exported = await table.reply_text(table.carol, "export")
    record = next(a for a in exported.attachments if a.filename.endswith(".txt"))
    assert "d1-b1" not in record.data.decode()
    assert "d2-c2" in record.data.decode()


async def test_a_takeback_button_of_the_earlier_form_works_until_a_takeback(
    table: Harness,
) -> None:
    """A board posted before the buttons named their position carries
    ``takeback:<set>:<ply>``: its press asks as before in a set where nothing was taken back;
    once something was (the same ply reached again), it is refused in one sentence."""
    await table.challenge_accepted(table.alice, table.bob)
    first = await table.move(table.alice, "d1-b1")
    [button] = [c for c in first.custom_ids() if c.startswith("takeback:")]
    set_id = button.split(":")[1]
    assert button == f"takeback:{set_id}:1.0"
    earlier = f"takeback:{set_id}:1"
    pressed = await table.standin.forged_click(first, earlier, table.alice)
    request = await pressed.wait_original()
    assert request.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back")
    await table.standin.click(request, answer_button(request, "accept"), table.bob)
    await table.wait_board(lambda m: "taken back" in m.content)
    again = await table.move(table.alice, "d1-b1")
    assert f"takeback:{set_id}:1.1" in again.custom_ids()
    refused = await table.standin.forged_click(again, earlier, table.alice)
    answer = await refused.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        "A move was taken back since this board was posted: nothing more was taken back."
    )
    assert await asyncio.to_thread(undone_moves, table.db_path) == [
        ("d1-b1", table.alice.id, table.bob.id)
    ]


async def test_a_takeback_under_a_board_answer_asks_as_under_the_board(table: Harness) -> None:
    """carol's /board after alice's move carries a Takeback of its own
    (``takeback:<set>:<ply>.<undone>:board``: the board owed there, looked for by its button
    after a restart, is not this answer); alice's press on it asks bob, as under the board."""
    await table.challenge_accepted(table.alice, table.bob)
    first = await table.move(table.alice, "d1-b1")
    [button] = [c for c in first.custom_ids() if c.startswith("takeback:")]
    shown = await table.reply_text(table.carol, "board")
    assert not shown.ephemeral, shown.content
    [again] = [c for c in shown.custom_ids() if c.startswith("takeback:")]
    assert again == f"{button}:board"
    pressed = await table.standin.click(shown, again, table.alice)
    request = await pressed.wait_original()
    assert request.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back")


async def test_declined_takeback_changes_nothing(table: Harness) -> None:
    """bob declines: the move stands and it is still bob's turn."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    await table.standin.click(request, answer_button(request, "decline"), table.bob)
    assert request.content == "bob declined the takeback: the game goes on as it was."
    reply = await table.move(table.bob, "c4-c2")
    assert not reply.ephemeral, reply.content


async def test_a_declined_takeback_is_not_asked_again_for_the_same_move(table: Harness) -> None:
    """bob declines; alice asks again at once: refused to her alone, bob is not pinged again."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    await table.standin.click(request, answer_button(request, "decline"), table.bob)
    posts = len(table.public_messages())
    again = await table.reply_text(table.alice, "takeback")
    assert again.ephemeral
    assert again.content == (f"<@{table.bob.id}> already declined to take this move back: play on.")
    assert len(table.public_messages()) == posts


async def test_a_takeback_lapses_when_a_move_is_played(table: Harness) -> None:
    """bob moves instead of answering: the request lapses and loses its buttons."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    await table.move(table.bob, "c4-c2")
    await table.standin.wait_until(lambda: "lapsed" in request.content, timeout=5)
    assert request.components == []
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."


async def test_an_accept_after_a_move_landed_marks_the_request_lapsed_itself(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's move lands and he presses Accept before the timer's sweep: nothing is undone, and
    the press itself turns the request into "lapsed" without buttons (no sweep will, since
    the press stored the lapse)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    assert table.bot is not None

    async def no_sweep(now: object = None) -> list[object]:
        return []

    monkeypatch.setattr(table.bot.services.takebacks, "lapse_stale", no_sweep)
    await table.move(table.bob, "c4-c2")
    await table.standin.click(request, answer_button(request, "accept"), table.bob)
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."
    assert undone_moves(table.db_path) == []


@pytest.mark.parametrize(("sets", "word"), [(2, "set"), (1, "game")])
async def test_a_takeback_asked_after_the_opponents_time_ran_out_is_too_late(
    table: Harness, monkeypatch: pytest.MonkeyPatch, sets: int, word: str
) -> None:
    """bob's time ran out and the timer has not noticed yet: alice's takeback is refused, as a
    move made now would be, saying she wins the set on time (the game, in a one-set match:
    there is no set to speak of); bob is asked nothing, and the set ends on time at the
    timer's check."""
    await table.challenge_accepted(table.alice, table.bob, sets=sets, time=60)
    await table.move(table.alice, "d1-b1")
    assert table.bot is not None
    clocks = table.bot.services.clocks
    noticed = clocks.out_of_time

    async def not_noticed_yet(now: object = None) -> OutOfTime:
        return OutOfTime(())

    monkeypatch.setattr(clocks, "out_of_time", not_noticed_yet)
    posts = len(table.public_messages())
    table.advance(timedelta(hours=1, seconds=1))
    refused = await table.reply_text(table.alice, "takeback")
    assert refused.ephemeral
    assert refused.content.startswith("Too late: your opponent's time for their move ran out <t:")
    assert refused.content.endswith(f", so you win this {word} on time."), refused.content
    assert len(table.public_messages()) == posts, "bob was asked to answer too late"
    monkeypatch.setattr(clocks, "out_of_time", noticed)
    over = await table.wait_board(lambda m: "ran out of time" in m.content)
    if sets == 2:
        assert over.content.startswith("**Set 1 of 2 is over** after 1 move."), over.content
    else:
        assert "Set 1" not in over.content, over.content
    assert undone_moves(table.db_path) == []


async def test_a_takeback_lapses_after_ten_minutes(table: Harness) -> None:
    """Unanswered for ten minutes, the request lapses and its buttons go."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert "lapsed" in request.content


async def test_a_takeback_asked_again_after_it_lapsed_does_not_ping_again(
    table: Harness,
) -> None:
    """alice's request lapses unanswered and she asks again for the same move: the new request
    is posted (bob may still answer it), but only the first one pinged him — else asking every
    ten minutes would ping him six times an hour. Taken back, another move is asked pinging."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    first = await ask(table)
    assert first.pinged_user_ids() == {table.bob.id}
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: first.components == [], timeout=5)
    again = await ask(table)
    assert again.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back")
    assert again.pinged_user_ids() == set()
    await table.standin.click(again, answer_button(again, "accept"), table.bob)
    assert again.content == "bob accepted the takeback."
    await table.wait_board(lambda m: "taken back" in m.content)
    await table.move(table.alice, "d1-c1")  # another move at the same ply: pinged again
    other = await ask(table)
    assert "(d1-c1)" in other.content
    assert other.pinged_user_ids() == {table.bob.id}


async def test_a_request_the_game_moved_past_does_not_hold_up_the_next(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob answers alice's takeback request with a move and at once asks to take that move
    back, before the timers' check lapses her request: his request is posted and hers says it
    lapsed (before, he was told "A takeback is already waiting for an answer in this game."
    about a request his move had ended)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    assert table.bot is not None
    lapsing, go_on = waits_until_told(monkeypatch, table.bot.flow.takebacks, "lapse")
    await asyncio.wait_for(lapsing.wait(), 20)  # the timers' lapse waits
    try:
        await table.move(table.bob, "c4-c2")
        his = await table.reply_text(table.bob, "takeback")
    finally:
        go_on.set()
    assert not his.ephemeral, his.content
    assert his.content.startswith(f"<@{table.alice.id}>, <@{table.bob.id}> asks to take back")
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."
    assert request.components == []


async def test_only_your_own_last_move_can_be_taken_back(table: Harness) -> None:
    """After bob replied, alice's takeback is refused with the reason."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    await table.move(table.bob, "c4-c2")
    refused = await table.reply_text(table.alice, "takeback")
    assert refused.ephemeral
    assert refused.content == (
        "Only your own last move can be taken back, and your opponent has moved since."
    )


async def test_a_player_who_has_not_moved_is_told_so(table: Harness) -> None:
    """bob asks for a takeback before his first move: he is told he has not moved yet."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    refused = await table.reply_text(table.bob, "takeback")
    assert refused.ephemeral
    assert refused.content == "You have not moved yet in this set."


async def test_a_one_set_match_speaks_of_the_game_not_a_set(table: Harness) -> None:
    """In a one-set match, a takeback before any move, or before bob's own first move, is
    refused speaking of the game, as its board and /resign do (not of a set)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    refused = await table.reply_text(table.alice, "takeback")
    assert refused.content == "There is no move to take back in this game yet."
    await table.move(table.alice, "d1-b1")
    refused = await table.reply_text(table.bob, "takeback")
    assert refused.content == "You have not moved yet in this game."


async def test_a_spectator_pressing_accept_is_told_who_may(table: Harness) -> None:
    """carol presses Accept on alice's request: only bob, who was asked, may answer it."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    pressed = await table.standin.click(request, answer_button(request, "accept"), table.carol)
    refused = await pressed.wait_original()
    assert refused.ephemeral
    assert refused.content == (
        f"Only <@{table.bob.id}>, who was asked, can answer this takeback request."
    )
    assert request.custom_ids(), "the request still waits for bob"


async def test_a_pending_takeback_survives_a_restart(table: Harness) -> None:
    """Asked before a restart, the request is accepted after it and the move is undone."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    await table.restart()
    await table.standin.click(request, answer_button(request, "accept"), table.bob)
    assert request.content == "bob accepted the takeback."
    again = await table.move(table.alice, "d2-c2")
    assert not again.ephemeral, again.content


async def test_against_the_computer_a_takeback_undoes_both_moves_at_once(table: Harness) -> None:
    """alice's takeback against the computer undoes her move and its reply, no question asked."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    reply = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: bool(reply.attachments), timeout=10)
    board = await table.reply_text(table.alice, "takeback")
    assert board.content.startswith("alice took back their move and my reply.")
    assert "move 1 ·" in board.content
    again = await table.move(table.alice, "d1-c1")
    assert "played d1-c1" in again.content
    audit = await asyncio.to_thread(undone_moves, table.db_path)
    assert len(audit) == 2
    assert audit[1][0] == "d1-b1"  # the computer's reply was undone first, then alice's move
    assert {(asked, accepted) for _, asked, accepted in audit} == {(table.alice.id, table.me.id)}


async def test_a_picker_opened_before_a_takeback_is_refused_on_the_new_board(
    table: Harness,
) -> None:
    """alice opens the picker against the computer, takes her move back, plays another and the
    computer replies (the same move number, another board): the old picker's square is refused
    as "the board changed" (it was played on a board it never showed)."""
    assert table.bot is not None
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    first = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: bool(first.attachments), timeout=10)
    live = await table.wait_board(lambda m: any(c.startswith("move:") for c in m.custom_ids()))
    step_two = await table.picked(live, table.alice, "d7")
    [where] = step_two.custom_ids()
    undone = await table.reply_text(table.alice, "takeback")
    assert "took back" in undone.content, undone.content
    second = await table.move(table.alice, "d1-f1")
    await table.standin.wait_until(lambda: bool(second.attachments), timeout=10)
    new = await table.bot.services.games.in_channel(table.channel.id)
    assert new is not None
    assert new.ply == 2
    component = step_two.component(where)
    assert component is not None
    legal_now = {str(m) for m in new.game.legal_moves()}
    stale = next(o["value"] for o in component["options"] if o["value"] in legal_now)
    played = await table.standin.select(step_two, where, table.alice, [stale])
    answer = await played.wait_original()
    after = await table.bot.services.games.in_channel(table.channel.id)
    assert after is not None
    assert after.ply == 2, f"{stale} was played from a picker of another board"
    assert answer.content == "The board changed since you opened the picker: press Move again."


async def test_a_double_press_of_takeback_against_the_computer_takes_back_one_round(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice presses Takeback twice on the computer's board after two rounds, the second
    press while the first one's board is still being drawn: her last move and its reply are
    taken back, not also the round before; the second press is told why, privately."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    for move in ("d1-b1", "d2-c2"):
        reply = await table.move(table.alice, move)
        await table.wait_board(lambda m, line=reply.id: m.id == line)  # my reply is in it
    drawing, second_answered = asyncio.Event(), asyncio.Event()
    draw = board_post

    async def drawn_after_the_second_press(*args: Any, **kwargs: Any) -> BoardPost:
        monkeypatch.setattr(takebacks_flow, "board_post", draw)  # only the first one waits
        drawing.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(second_answered.wait(), timeout=3)
        return await draw(*args, **kwargs)

    monkeypatch.setattr(takebacks_flow, "board_post", drawn_after_the_second_press)
    [button] = [c for c in reply.custom_ids() if c.startswith("takeback:")]
    first = await table.standin.click(reply, button, table.alice, wait=False)
    await asyncio.wait_for(drawing.wait(), timeout=5)
    second = await table.standin.click(reply, button, table.alice, wait=False)
    await table.standin.wait_answered(second, timeout=10)
    second_answered.set()
    await table.standin.wait_answered(first, timeout=10)
    taken = await first.wait_original()
    refused = await second.wait_original()
    assert taken.content.startswith("alice took back their move and my reply.")
    audit = await asyncio.to_thread(undone_moves, table.db_path)
    assert [move for move, _, _ in audit] == [audit[0][0], "d2-c2"]
    assert refused.ephemeral
    assert refused.content == (
        "You took back moves since this board was posted: nothing more was taken back. To "
        "take back more, press Takeback on the newest board."
    )


async def test_a_takeback_lapsed_while_discord_refuses_its_edit_is_shown_once_discord_is_back(
    table: Harness,
) -> None:
    """alice's request lapses while Discord answers every edit of its message 503: once
    Discord is back, the outbox's check edits it to say it lapsed, its buttons gone (before,
    nothing tried the edit again: Accept and Decline stayed for good)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    edits = f"/messages/{request.id}"
    down = table.standin.fail_rest(
        503, seconds=60, matching=lambda method, path: method == "PATCH" and path.endswith(edits)
    )
    table.advance(timedelta(minutes=10, seconds=1))
    await table.checks_run(2)
    assert down.hits >= 1
    assert request.custom_ids()  # not shown yet
    table.standin.end_faults()  # Discord is back
    table.advance(timedelta(minutes=1))
    await table.checks_run(2)
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == f"<@{table.alice.id}>'s takeback request lapsed."


async def test_a_takeback_accepted_while_discord_refuses_its_edit_is_shown_once_discord_is_back(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's request while Discord answers every interaction response 503: once
    Discord is back, the outbox's check edits the request to say he accepted, its buttons gone,
    and posts the board after it (before, the request kept Accept and Decline for good)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    request = await ask(table)
    monkeypatch.setattr(discord.webhook.async_, "asyncio", QuickRetries())
    down = table.standin.fail_rest(
        503,
        seconds=60,
        matching=lambda method, path: method == "POST" and path.endswith("/callback"),
    )
    await table.standin.click(request, answer_button(request, "accept"), table.bob, wait=False)
    await table.standin.wait_until(lambda: down.hits >= 1, timeout=10)
    await settled(table)
    assert request.custom_ids()  # not shown yet
    table.standin.end_faults()  # Discord is back
    table.advance(timedelta(minutes=1))
    await table.checks_run(2)
    await table.standin.wait_until(lambda: request.components == [], timeout=5)
    assert request.content == (
        f"<@{table.bob.id}> accepted <@{table.alice.id}>'s takeback request."
    )
    board = await table.wait_board(lambda m: "taken back" in m.content)
    assert board.content.startswith("alice's move 1 was taken back.\n")
