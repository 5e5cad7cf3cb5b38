"""A restart at the worst moment loses nothing and holds nobody: a match stored whose first
board was not posted yet gets it after the restart; a challenge stored but never posted is
closed (nobody saw it), and one posted but not noted is found in its channel."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.flow import challenge_posts, outbox, posts
from bot.flow.game_flow import GameFlow
from bot.services.challenges import ChallengeService
from bot.views import common
from tests.bot_harness import Harness, challenge_id, settled, until
from tests.discord_standin import DiscordStandin, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]


def begin_match_never_runs(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The next match stored is never begun (its first board never posted), as when the bot
    is killed just after storing it: returns an event set once that moment is reached."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(GameFlow, "begin_match", killed_here)
    return reached


async def test_a_match_stored_before_its_first_board_gets_it_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's challenge; the bot stops once the match is stored, before its first
    board is out: after the restart the board is posted, once, pinging alice to move, and
    her move is played."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False)
    await table.start()
    try:
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        reached = begin_match_never_runs(monkeypatch)
        await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
        await asyncio.wait_for(reached.wait(), 20)
        await table.stop()
        monkeypatch.undo()
        assert not any(m.attachments for m in table.public_messages())
        await table.start()
        table.advance(timedelta(seconds=11))  # past the grace the flow has to post it itself
        board = await table.wait_board(lambda m: "your move" in m.content, timeout=20)
        assert board.content.startswith("**Brandubh (World Tafl Federation)** begins."), (
            board.content
        )
        assert f"<@{table.alice.id}>, your move as the attackers" in board.content
        played = await table.move(table.alice, "d1-b1")
        assert "played d1-b1" in played.content, played.content
        firsts = [m for m in table.public_messages() if "your move as the attackers" in m.content]
        assert len(firsts) == 1
    finally:
        await table.stop()


async def test_a_thread_match_stored_before_its_first_board_gets_it_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same in the match's own thread: after the restart its first board, posted there
    once, says who attacks and who defends and pings both players (which adds them to it)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        reached = begin_match_never_runs(monkeypatch)
        await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
        await asyncio.wait_for(reached.wait(), 20)
        await table.stop()
        monkeypatch.undo()
        thread = line.thread
        assert thread is not None
        assert table.standin.messages(thread) == []
        await table.start()
        table.advance(timedelta(seconds=11))
        board = await table.wait_board(channel=thread)
        attacks = f"<@{table.alice.id}> attacks, <@{table.bob.id}> defends. Good game!"
        assert attacks in board.content, board.content
        assert board.pinged_user_ids() == {table.alice.id, table.bob.id}
        played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
        assert "played d1-b1" in played.content, played.content
        await until(lambda: len([m for m in table.standin.messages(thread) if m.attachments]) >= 2)
        assert sum("Good game!" in m.content for m in table.standin.messages(thread)) == 1
    finally:
        await table.stop()


async def test_a_computer_match_stored_before_its_first_board_gets_it_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice starts a match against the computer, attacking; the bot stops once it is stored,
    before its first board is out: after the restart the board is posted in its thread once,
    pinging alice alone, and the computer answers her move."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        reached = begin_match_never_runs(monkeypatch)
        line = await table.reply_text(
            table.alice, "challenge", {"opponent": table.me, "side": "attackers"}
        )
        await asyncio.wait_for(reached.wait(), 20)
        await table.stop()
        monkeypatch.undo()
        thread = line.thread
        assert thread is not None
        await table.start()
        table.advance(timedelta(seconds=11))
        board = await table.wait_board(channel=thread)
        assert f"<@{table.alice.id}>, your move as the attackers" in board.content
        assert board.pinged_user_ids() == {table.alice.id}
        played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
        await table.standin.wait_until(lambda: "(defenders) played" in played.content, timeout=30)
        assert sum("begins." in m.content for m in table.standin.messages(thread)) == 1
    finally:
        await table.stop()


def challenge_never_posted(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The next challenge stored is never posted (its answer never sent), as when the bot is
    killed just after storing it: returns an event set once that moment is reached."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(challenge_posts, "answer", killed_here)
    return reached


async def test_a_challenge_stored_but_never_posted_holds_nobody_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops once alice's challenge to bob is stored, before it is posted: nobody
    saw it, nobody can answer or withdraw it, so after the restart alice's challenge to bob
    again is posted, not refused as one already open between them (pointing at nothing for
    ten minutes), and bob accepts it."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        reached = challenge_never_posted(monkeypatch)
        # Never answered: the stand-in's wait for its answer is left behind.
        pressed = asyncio.create_task(
            table.slash(table.alice, "challenge", {"opponent": table.bob})
        )
        await asyncio.wait_for(reached.wait(), 20)
        await table.stop()
        pressed.cancel()
        monkeypatch.undo()
        await table.start()
        again = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        assert not again.ephemeral, again.content
        await table.standin.click(again, f"challenge:accept:{challenge_id(again)}", table.bob)
        board = await table.wait_board(lambda m: m.created_at >= again.created_at)
        assert f"<@{table.alice.id}>, your move as the attackers" in board.content
    finally:
        await table.stop()


async def stopped_once_posted(table: Harness, monkeypatch: pytest.MonkeyPatch) -> StoredMessage:
    """alice challenges bob, and the bot stops once the challenge is posted, before its
    message is noted: returns that challenge's message."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> bool:
        reached.set()
        await asyncio.Event().wait()
        return False

    monkeypatch.setattr(ChallengeService, "set_message", killed_here)
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await asyncio.wait_for(reached.wait(), 20)
    await table.stop()
    monkeypatch.undo()
    return first


async def test_a_challenge_posted_but_not_noted_is_found_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops once alice's challenge is posted, before its message is noted: after the
    restart a second challenge to bob is refused with a link to that message (it is out, and
    bob can still accept it), not to the bare channel."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        first = await stopped_once_posted(table, monkeypatch)
        await table.start()
        refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        assert refused.ephemeral
        assert f"/{table.channel.id}/{first.id}" in refused.content, refused.content
        await table.standin.click(first, f"challenge:accept:{challenge_id(first)}", table.bob)
        await table.wait_board(lambda m: m.created_at >= first.created_at)
    finally:
        await table.stop()


async def test_a_challenge_posted_but_not_noted_is_found_past_a_busy_channels_talk(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops once alice's challenge is posted, before its message is noted, carol
    writes 120 lines in the channel, and the bot stays away three hours (the challenge is
    given that time back): after the restart a second challenge to bob is still refused with
    a link to the first (not taken for one never posted, and a second shown), and bob accepts
    the first."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        first = await stopped_once_posted(table, monkeypatch)
        for line in range(120):
            await table.standin.member_writes(table.channel, table.carol, f"line {line}")
        table.advance(timedelta(hours=3))
        await table.start()
        refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        assert refused.ephemeral, refused.content
        assert f"/{table.channel.id}/{first.id}" in refused.content, refused.content
        assert [m for m in table.public_messages() if m.custom_ids()] == [first]
        await table.standin.click(first, f"challenge:accept:{challenge_id(first)}", table.bob)
        await table.wait_board(lambda m: m.created_at >= first.created_at)
    finally:
        await table.stop()


async def accepted_edit_held(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[StoredMessage, asyncio.Event, asyncio.Task[Any]]:
    """alice challenges bob and he accepts; the edit of her challenge's message is held once
    it begins (Discord slow, retrying): returns her challenge's message, the event that lets
    the edit go on, and the press, answered once it has."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    editing, go_on = asyncio.Event(), asyncio.Event()
    real_update = common.update_message

    async def slow_update(*args: Any, **kwargs: Any) -> None:
        editing.set()
        await go_on.wait()
        await real_update(*args, **kwargs)

    monkeypatch.setattr("bot.flow.challenges.update_message", slow_update)
    pressed = asyncio.create_task(
        table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob, timeout=30)
    )
    await asyncio.wait_for(editing.wait(), 20)
    return reply, go_on, pressed


async def test_a_first_board_whose_challenge_edit_outlasts_the_grace_is_posted_once(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts; the edit of alice's challenge message takes longer than the outbox's grace
    (Discord slow, retrying): the timers' checks meanwhile leave the match's first board to
    the accept, which posts it once, pinging alice once."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False)
    await table.start()
    try:
        _, go_on, pressed = await accepted_edit_held(table, monkeypatch)
        table.advance(timedelta(seconds=11))  # past the grace of the board owed at the storing
        await table.checks_run(2)
        assert not any(m.attachments for m in table.public_messages())
        go_on.set()
        await pressed
        await table.wait_board(lambda m: "your move" in m.content, timeout=20)
        table.advance(timedelta(minutes=3))
        await table.checks_run(2)
        boards = [m for m in table.public_messages() if m.attachments]
        assert len(boards) == 1, [m.content for m in boards]
    finally:
        await table.stop()


async def test_a_first_board_whose_accept_could_not_be_deferred_is_posted_after_the_grace(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's Accept is slow to store, and Discord cannot be reached for its deferral: the
    match is stored all the same, and its first board comes from the outbox past its 10 s
    grace (pinging alice, whose move it is), with the challenge shown accepted, not only once
    the accept's two minutes are up."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False)
    table.expect_apology = True  # the press's error, its answer unknown to Discord
    await table.start()
    try:
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        stored = asyncio.Event()
        storing = asyncio.Event()
        real_defer = discord.InteractionResponse.defer
        real_accept = ChallengeService.accept

        async def slow_accept(self: ChallengeService, *args: Any, **kwargs: Any) -> Any:
            storing.set()
            await asyncio.sleep(common.ANSWER_BEFORE + 0.5)  # deferred meanwhile
            active = await real_accept(self, *args, **kwargs)
            stored.set()
            return active

        async def unreachable(response: discord.InteractionResponse[Any], **kwargs: Any) -> Any:
            if not storing.is_set():  # the checks before, slow under load, may defer
                return await real_defer(response, **kwargs)
            raise ConnectionResetError("Discord cannot be reached")

        monkeypatch.setattr(ChallengeService, "accept", slow_accept)
        monkeypatch.setattr(discord.InteractionResponse, "defer", unreachable)
        # Never answered: the stand-in's wait for its answer is left behind.
        pressed = asyncio.create_task(
            table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
        )
        await asyncio.wait_for(stored.wait(), 20)
        await asyncio.sleep(0.2)  # the press ends, its deferral's error raised
        table.advance(timedelta(seconds=11))  # past the grace of the board owed at the storing
        await table.checks_run(2)
        board = await table.wait_board(lambda m: "your move" in m.content, timeout=20)
        assert board.pinged_user_ids() == {table.alice.id}
        await until(lambda: not reply.custom_ids())  # the challenge shows it accepted
        pressed.cancel()
    finally:
        await table.stop()


async def test_a_first_board_whose_challenge_edit_outlasts_the_bound_is_posted_once(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts; the edit of alice's challenge message outlasts the bound the outbox leaves
    the first board to the accept (two minutes, one second here): the outbox posts it, and the
    accept, going on, finds it out and does not post it again (before, alice was pinged
    twice)."""
    monkeypatch.setattr(outbox, "STARTING_BOUND", timedelta(seconds=1))
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False)
    await table.start()
    try:
        _, go_on, pressed = await accepted_edit_held(table, monkeypatch)
        await asyncio.sleep(1.5)  # past the bound: the first board is the outbox's
        table.advance(timedelta(seconds=11))
        await table.checks_run(2)
        await table.wait_board(lambda m: "your move" in m.content, timeout=20)
        go_on.set()
        await pressed
        await settled(table)
        table.advance(timedelta(minutes=3))
        await table.checks_run(2)
        boards = [m for m in table.public_messages() if m.attachments]
        assert len(boards) == 1, [m.content for m in boards]
        assert boards[0].pinged_user_ids() == {table.alice.id}
    finally:
        await table.stop()


async def test_a_computer_match_slower_than_the_bound_takes_its_thinking_away(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice challenges me where no thread is tried, and /challenge, deferred privately,
    outlasts the bound the outbox leaves the first board to it: the outbox posts the board,
    and /challenge, going on, takes its "thinking…" away rather than leave it for good."""
    monkeypatch.setattr(outbox, "STARTING_BOUND", timedelta(seconds=1))
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=False)
    await table.start()
    try:
        stored, go_on = asyncio.Event(), asyncio.Event()
        real_within_deadline = common.within_deadline

        async def slow(interaction: Any, work: Any, **kwargs: Any) -> Any:
            async def then_held() -> Any:
                started = await work
                stored.set()
                await go_on.wait()
                return started

            return await real_within_deadline(interaction, then_held(), **kwargs)

        monkeypatch.setattr("bot.flow.computer_match.within_deadline", slow)
        record = await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
        await asyncio.wait_for(stored.wait(), 20)
        await asyncio.sleep(1.5)  # past the bound: the first board is the outbox's
        table.advance(timedelta(seconds=11))
        await table.checks_run(2)
        await table.wait_board(lambda m: "your move" in m.content, timeout=20)
        go_on.set()
        thinking = record.original
        assert thinking is not None
        assert thinking.ephemeral, thinking.content
        await until(lambda: thinking.deleted)
        await settled(table)
        boards = [m for m in table.public_messages() if m.attachments]
        assert len(boards) == 1, [m.content for m in boards]
    finally:
        await table.stop()


async def test_a_first_board_the_outbox_is_posting_when_the_slow_accept_posts_it_shows_once(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts, a thread is made for the match, and the edit of alice's challenge message
    outlasts the bound the outbox leaves the first board to the accept: the outbox begins
    posting it, and before Discord has it the accept, going on, posts it in the thread. Both
    carry the board's nonce: it shows once, pinging the players once (before, twice)."""
    monkeypatch.setattr(outbox, "STARTING_BOUND", timedelta(seconds=1))
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        assert table.bot is not None
        late = table.bot.flow.outbox.late
        real_post = late._post_live_board
        posting, post_on = asyncio.Event(), asyncio.Event()

        async def slow_post(*args: Any, **kwargs: Any) -> discord.Message:
            posting.set()
            await post_on.wait()
            return await real_post(*args, **kwargs)

        monkeypatch.setattr(late, "_post_live_board", slow_post)
        reply, go_on, pressed = await accepted_edit_held(table, monkeypatch)
        await asyncio.sleep(1.5)  # past the bound: the first board is the outbox's
        table.advance(timedelta(seconds=11))
        await asyncio.wait_for(posting.wait(), 20)  # the outbox's post is under way
        go_on.set()
        await pressed
        assert reply.thread is not None
        thread = reply.thread
        await table.wait_board(lambda m: "your move" in m.content, channel=thread, timeout=20)
        post_on.set()
        await settled(table)
        table.advance(timedelta(minutes=3))
        await table.checks_run(2)
        boards = [m for m in table.public_messages(thread) if m.attachments]
        assert len(boards) == 1, [m.content for m in boards]
        assert boards[0].pinged_user_ids() == {table.alice.id, table.bob.id}  # into the thread
    finally:
        await table.stop()


async def test_a_first_board_posted_after_the_set_ended_leaves_the_final_board_its_nonce(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts, and while the first board is drawn an admin aborts the match before any
    move (at the same instant): the accept's first board, posted late, carries a nonce of its
    own, not the final board's, so the outbox's post of that board is made, telling both it
    was aborted (before, Discord returned the first board for it, and nobody was told)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        drawing, draw_on = asyncio.Event(), asyncio.Event()
        real_board_post = posts.board_post

        async def slow_board_post(*args: Any, **kwargs: Any) -> Any:
            drawing.set()
            await draw_on.wait()
            return await real_board_post(*args, **kwargs)

        monkeypatch.setattr("bot.flow.game_flow.board_post", slow_board_post)
        pressed = asyncio.create_task(
            table.standin.click(
                reply, f"challenge:accept:{challenge_id(reply)}", table.bob, timeout=30
            )
        )
        await asyncio.wait_for(drawing.wait(), 20)
        assert reply.thread is not None
        assert table.bot is not None
        thread = reply.thread
        await table.bot.services.games.abort(thread.id)
        draw_on.set()
        await pressed
        await settled(table)
        table.advance(timedelta(seconds=11))
        await table.checks_run(2)
        boards = [m.content for m in table.public_messages(thread) if m.attachments]
        assert len(boards) == 2, boards
        assert "aborted" in boards[1].lower(), boards
    finally:
        await table.stop()
