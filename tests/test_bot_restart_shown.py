"""A restart between Discord taking something and the bot noting it leaves nothing shown wrong:
a board is shown once (the outbox, owing it after the restart, finds it among the channel's
newest messages instead of posting it again: an interaction's answer carries no nonce that
would return it), and an accepted challenge loses its buttons."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.flow import challenges
from bot.flow.live_boards import LiveBoards
from bot.services import Services
from bot.services.announcements import AnnouncementService
from bot.services.challenges import ChallengeService
from bot.storage.errors import StorageError
from tests.bot_harness import Harness, challenge_id, running_bot, until
from tests.discord_standin import DiscordStandin, StoredMessage
from tests.discord_standin.model import ATTACH_FILES
from tests.test_bot_outbox import board_owed_to_the_outbox, quiet_moves

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server, its games played in the channel."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def board_never_noted(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The next board the flow posts is never noted out, as when the bot is killed just after
    Discord took it: returns an event set once that moment is reached."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(LiveBoards, "board_out", killed_here)
    return reached


async def killed_after_answer(
    table: Harness, monkeypatch: pytest.MonkeyPatch, restart_takes: timedelta = timedelta(seconds=1)
) -> None:
    """alice plays d1-b1 with /move; the bot stops once Discord took its board, before it
    noted it out, and starts again ``restart_takes`` later."""
    await table.challenge_accepted(table.alice, table.bob)
    reached = board_never_noted(monkeypatch)
    played = await table.move(table.alice, "d1-b1")
    assert "played d1-b1" in played.content, played.content
    await asyncio.wait_for(reached.wait(), 20)
    await table.stop()
    monkeypatch.undo()
    table.advance(restart_takes)
    await table.start()


def boards_of_move(table: Harness, notation: str) -> int:
    """How many public messages show the board after ``notation``."""
    return sum(f"played {notation}" in m.content for m in table.public_messages())


async def test_a_board_answered_before_a_restart_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the restart the outbox finds alice's board in the channel: bob sees it once, and
    his move on it is played."""
    await killed_after_answer(table, monkeypatch)
    table.advance(timedelta(seconds=11))  # past the board's grace: the outbox owes it
    await table.checks_run(2)
    assert boards_of_move(table, "d1-b1") == 1
    played = await table.move(table.bob, "d3-c3")
    assert "played d3-c3" in played.content, played.content
    assert boards_of_move(table, "d1-b1") == 1


async def test_a_board_owed_at_the_instant_the_bot_starts_is_looked_for(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot starts again at the very instant (by its clock) alice's board became owed: the
    board is still one the process before may have shown, and is found, not posted again
    (before, only one owed strictly before the start was looked for)."""
    await killed_after_answer(table, monkeypatch, restart_takes=timedelta(0))
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    assert boards_of_move(table, "d1-b1") == 1


async def test_a_board_answered_before_a_restart_is_not_posted_late(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob answers alice's board after the restart, before the outbox looks at it: her board,
    owed still, is found in the channel, not posted again as late."""
    await killed_after_answer(table, monkeypatch)
    played = await table.move(table.bob, "d3-c3")
    assert "played d3-c3" in played.content, played.content
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    assert not any("posted late" in m.content for m in table.public_messages())
    assert boards_of_move(table, "d1-b1") == 1


@pytest.mark.parametrize("moved_on", [False, True], ids=["as-it-stands", "moved-on"])
async def test_a_board_owed_is_posted_after_a_restart_though_board_showed_it(
    table: Harness, moved_on: bool
) -> None:
    """alice's first move is stored, its answer lost (its board the outbox's); carol's /board
    shows the game before the bot restarts: after it, alice's board is posted all the same,
    telling her move and pinging bob (before, the /board answer's Takeback button named that
    board, and it was taken as shown: bob was never told) — or, bob having moved since, the
    /board answer's buttons off, posted late (its picture is not named after that board)."""
    await board_owed_to_the_outbox(table)
    shown = await table.reply_text(table.carol, "board")
    assert not shown.ephemeral, shown.content
    first, second = quiet_moves(2)
    if moved_on:
        played = await table.move(table.bob, second)
        assert f"played {second}" in played.content, played.content
        await until(lambda: not shown.components)
    await table.stop()
    table.advance(timedelta(seconds=1))  # a restart takes its time
    await table.start()
    table.advance(timedelta(seconds=30))  # the outbox's turn
    await table.checks_run(2)
    [board] = [m for m in table.public_messages() if f"played {first}" in m.content]
    if moved_on:
        assert "posted late" in board.content, board.content
    else:
        assert board.pinged_user_ids() == {table.bob.id}


def challenge_never_edited(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The next accepted challenge's message is never edited (nor its match begun), as when the
    bot is killed just after storing the match: returns an event set once that moment is
    reached."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(challenges, "update_message", killed_here)
    return reached


async def accepted_then_stopped(
    table: Harness, monkeypatch: pytest.MonkeyPatch, **options: object
) -> StoredMessage:
    """alice challenges bob (with ``options``); the bot stops once his acceptance is stored,
    before her challenge's message shows it (:func:`challenge_never_edited`): returns that
    message, its buttons still on."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, **options})
    reached = challenge_never_edited(monkeypatch)
    # Never answered: the stand-in's wait for its answer is left behind.
    pressed = asyncio.create_task(
        table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
    )
    await asyncio.wait_for(reached.wait(), 20)
    await table.stop()
    pressed.cancel()
    monkeypatch.undo()
    assert reply.custom_ids(), "the challenge still has its buttons"
    return reply


async def test_a_challenge_accepted_before_a_restart_loses_its_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops once bob's acceptance is stored, before alice's challenge shows it: when
    the match's first board is posted after the restart, the challenge says bob accepted, its
    Accept, Decline and Withdraw gone."""
    reply = await accepted_then_stopped(table, monkeypatch)
    table.advance(timedelta(seconds=1))
    await table.start()
    table.advance(timedelta(seconds=11))
    await table.wait_board(lambda m: "your move" in m.content, timeout=20)
    await until(lambda: not reply.custom_ids())
    sides = f"accepted: <@{table.alice.id}> attacks, <@{table.bob.id}> defends. Good game!"
    assert sides in reply.content, reply.content


async def test_a_thread_challenge_accepted_before_a_restart_loses_its_buttons(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same where the match got its thread: the challenge becomes the line linking it."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        line = await accepted_then_stopped(table, monkeypatch)
        thread = line.thread
        assert thread is not None
        table.advance(timedelta(seconds=1))
        await table.start()
        table.advance(timedelta(seconds=11))
        await table.wait_board(channel=thread)
        await until(lambda: not line.custom_ids())
        assert f"the game is on in <#{thread.id}>." in line.content, line.content
    finally:
        await table.stop()


KING_CAPTURED = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""alice attacking, bob defending: her last move, b1-b3, captures the king."""


def never_recorded(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The next board the flow posts is never recorded as out, as when the bot is killed just
    after Discord took it: returns an event set once that moment is reached."""
    reached = asyncio.Event()

    async def killed_here(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(LiveBoards, "board_out", killed_here)  # a board, with the move's row
    monkeypatch.setattr(AnnouncementService, "delivered", killed_here)  # a line
    return reached


async def restarted(
    table: Harness,
    monkeypatch: pytest.MonkeyPatch,
    reached: asyncio.Event,
    meanwhile: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Once ``reached``, the bot stops (``meanwhile`` runs) and starts again; past the board's
    grace, its timers run two checks."""
    await asyncio.wait_for(reached.wait(), 20)
    await table.stop()
    monkeypatch.undo()
    if meanwhile is not None:
        await meanwhile()
    table.advance(timedelta(seconds=1))
    await table.start()
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)


async def final_board_unnoted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[StoredMessage, asyncio.Event]:
    """alice and bob play to the king's capture (:data:`KING_CAPTURED`); the answer to her
    last move, the set's final board, is never noted out (:func:`never_recorded`): returns it,
    and the event set once that moment is reached."""
    for number, text in enumerate(KING_CAPTURED[:-1]):
        played = await table.move(table.bob if number % 2 else table.alice, text)
        assert f"played {text}" in played.content, played.content
    reached = never_recorded(monkeypatch)
    final = await table.move(table.alice, KING_CAPTURED[-1])
    assert "is over" in final.content, final.content
    return final, reached


@pytest.mark.parametrize("as_text", [False, True], ids=["picture", "as-text"])
async def test_a_final_board_answered_before_a_restart_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch, as_text: bool
) -> None:
    """alice's move capturing the king is answered with the set's final board (no buttons),
    then the bot stops before noting it out: after the restart it is found by its picture, not
    posted again — or, shown as text where I may not attach files, by the game's number after
    the board's text (before, posted again)."""
    await table.challenge_accepted(table.alice, table.bob)
    if as_text:  # taken away during the game (a challenge here would be refused)
        await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    final, reached = await final_board_unnoted(table, monkeypatch)
    assert as_text is not bool(final.attachments), final.content
    await restarted(table, monkeypatch, reached)
    assert boards_of_move(table, KING_CAPTURED[-1]) == 1


def language_changed(table: Harness, tag: str) -> Callable[[], Awaitable[None]]:
    """The server's language set to ``tag`` (``/settings language:``) while the bot is stopped."""

    async def changed() -> None:
        services = await Services.open(str(table.db_path), clock=lambda: table.now)
        try:
            await services.settings.change(table.guild.id, language=tag)
        finally:
            await services.close()

    return changed


def messages_telling(table: Harness, notation: str) -> int:
    """How many public messages tell the move ``notation``, in any language."""
    return sum(notation in m.content for m in table.public_messages())


async def test_a_final_board_as_text_is_found_after_the_language_changed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's move capturing the king is answered with the set's final board as text (no
    Attach Files), ending with " · game N" in English; the bot stops before noting it out and
    the server's language becomes German meanwhile: after the restart the board is found by
    that English line, not posted again in German (before, it was: " · Partie N" was looked
    for)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    final, reached = await final_board_unnoted(table, monkeypatch)
    assert not final.attachments, final.content
    await restarted(table, monkeypatch, reached, language_changed(table, "de"))
    assert messages_telling(table, KING_CAPTURED[-1]) == 1


async def line_unnoted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[StoredMessage, asyncio.Event]:
    """alice challenges the computer and plays d1-b1; its answer, her line saying "I am
    thinking…", is never noted out (:func:`never_recorded`): returns that line, and the event
    set once that moment is reached."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    reached = never_recorded(monkeypatch)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…"), line.content
    return line, reached


async def test_a_line_against_the_computer_is_found_after_the_language_changed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's line against the computer is answered in English, then the bot stops before
    noting it out and the server's language becomes French: after the restart her line is
    found by its English words, not posted again in French, and no longer says "I am
    thinking…" once my reply is out (before, it was posted a second time)."""
    line, reached = await line_unnoted(table, monkeypatch)
    await restarted(table, monkeypatch, reached, language_changed(table, "fr"))
    await table.wait_board(lambda m: "(défenseurs)" in m.content)
    await table.checks_run(1)
    assert messages_telling(table, "d1-b1") == 1
    await until(lambda: not line.content.endswith("I am thinking…"))


async def test_a_line_against_the_computer_answered_before_a_restart_is_not_posted_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's move against the computer is answered with a line (no picture, no buttons),
    then the bot stops before noting it out: after the restart the line is found by its text,
    not posted again, and no longer says that I am thinking once my reply is out."""
    line, reached = await line_unnoted(table, monkeypatch)
    await restarted(table, monkeypatch, reached)
    await table.wait_board(lambda m: "(defenders) played" in m.content)
    await table.checks_run(1)
    assert boards_of_move(table, "d1-b1") == 1
    assert not any("posted late" in m.content for m in table.public_messages())
    await until(lambda: not line.content.endswith("I am thinking…"))


async def test_a_line_against_the_computer_is_found_after_its_player_was_renamed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's line against the computer is answered, then the bot stops before noting it out;
    while it is stopped she takes another name: after the restart her line, naming her as she
    was, is found by the move it tells, not posted again under her new name, and my reply
    edits it."""
    line, reached = await line_unnoted(table, monkeypatch)

    async def renamed() -> None:
        services = await Services.open(str(table.db_path), clock=lambda: table.now)
        try:
            await services.players.remember(
                table.alice.id, "Alicia", guild_id=table.guild.id, member_name="Alicia"
            )
        finally:
            await services.close()

    await restarted(table, monkeypatch, reached, renamed)
    await table.wait_board(lambda m: "(defenders) played" in m.content)
    await table.checks_run(1)
    assert boards_of_move(table, "d1-b1") == 1
    await until(lambda: not line.content.endswith("I am thinking…"))


@pytest.mark.parametrize("alice_moves", [False, True], ids=["waiting", "alice-moves-first"])
async def test_a_challenge_whose_read_fails_after_the_first_board_is_shown_accepted_once(
    table: Harness,
    monkeypatch: pytest.MonkeyPatch,
    alice_moves: bool,
) -> None:
    """The bot stops once bob's acceptance is stored; after the restart the outbox posts the
    first board, but the database fails to read the challenge that started it: the board is
    shown once, and at a later check the challenge says bob accepted — also when alice moved
    on the board before that check."""
    reply = await accepted_then_stopped(table, monkeypatch)
    real_of_match = ChallengeService.of_match
    failures: list[int] = []

    async def fails_once(self: ChallengeService, match_id: int) -> Any:
        if not failures:
            failures.append(match_id)
            raise StorageError("database is locked")
        return await real_of_match(self, match_id)

    monkeypatch.setattr(ChallengeService, "of_match", fails_once)
    table.advance(timedelta(seconds=1))
    await table.start()
    table.advance(timedelta(seconds=11))
    await table.checks_run(1)
    await table.wait_board(lambda m: "your move" in m.content, timeout=20)
    assert failures, "the challenge was not read"
    if alice_moves:
        played = await table.move(table.alice, "d1-b1")
        assert "played d1-b1" in played.content, played.content
    for _ in range(3):
        table.advance(timedelta(minutes=1))
        await table.checks_run(1)
    await until(lambda: not reply.custom_ids())
    firsts = [m for m in table.public_messages() if " begins." in m.content]
    assert len(firsts) == 1, [m.content for m in firsts]


async def test_a_challenge_whose_first_set_ended_before_its_first_board_loses_its_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops once bob's acceptance of a two-set match is stored; after the restart
    alice captures the king before the outbox posts the first set's first board: at its
    check the challenge says bob accepted (before, it kept its Accept and Decline, as the
    set was no longer in progress)."""
    reply = await accepted_then_stopped(table, monkeypatch, sets=2)
    table.advance(timedelta(seconds=1))
    await table.start()
    for number, text in enumerate(KING_CAPTURED):
        played = await table.move(table.bob if number % 2 else table.alice, text)
        assert f"played {text}" in played.content, played.content
    assert "is over" in played.content, played.content
    assert reply.custom_ids(), "the challenge still has its buttons"
    table.advance(timedelta(seconds=11))
    await table.checks_run(2)
    await until(lambda: not reply.custom_ids())
    sides = f"accepted: <@{table.alice.id}> attacks, <@{table.bob.id}> defends. Good game!"
    assert sides in reply.content, reply.content
