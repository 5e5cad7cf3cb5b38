"""A command that had to be deferred still refuses privately, and still succeeds in public.

A deferral's visibility is fixed when it is sent, and its first followup fills it in: a refusal
after a public "thinking…" would be shown to the whole channel. So a command whose work may
still refuse defers privately, and its public answer, when it comes, is a message of its own.
The slow start is real: another read holds the bot's read connection (reads queue behind each
other), or another program holds the database's write lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bot.storage.errors import SAVE_FAILED
from tests.bot_harness import Harness, challenge_id, running_bot, settled
from tests.discord_standin import DiscordStandin, FakeMember, InteractionRecord, StoredMessage
from tests.discord_standin.recorder import DEFERRED_CHANNEL_MESSAGE
from tests.foreign_lock import foreign_write_lock
from tests.test_bot_puzzles import pick, select_offering, shown_puzzle, wrong_first_move

pytest_plugins = ["tests.discord_standin.fixtures"]

SLOW_READ_SECONDS = 2.2
"""How long the bot's next read waits: past the 1.5 s after which an answer is deferred, and
short enough that the answer itself comes well within the deferral's 15 minutes."""

SLOW_WRITE_SECONDS = 4.0
"""Another program holds the write lock this long: under the bot's 5 s busy timeout, so the
write lands, but past Discord's 3 s — the command must be deferred."""

LOCK_SECONDS = 12.0
"""Longer than the bot's 5 s busy timeout, by enough for a write that starts late on a loaded
machine: the write is given up ("could not be saved")."""


@contextlib.asynccontextmanager
async def slow_reads(table: Harness, seconds: float = SLOW_READ_SECONDS) -> AsyncIterator[None]:
    """For ``seconds`` from entry a long read holds the bot's read connection (as a heavy
    read of another answer would): the first read of what the block sends in waits for it."""
    assert table.bot is not None
    database = table.bot.services.database
    holding = asyncio.Event()

    async def long_read() -> None:
        async with database.snapshot():
            holding.set()
            await asyncio.sleep(seconds)

    reading = asyncio.create_task(long_read())
    await holding.wait()
    try:
        yield
    finally:
        await reading


async def answered_in_time(
    table: Harness, member: FakeMember, command: str, options: dict[str, Any]
) -> InteractionRecord:
    """``member``'s ``/command`` in the table's channel, sent without waiting for its answer:
    Discord's 3 s must see it answered (deferred, when the start is slow)."""
    record = await table.standin.slash(
        table.guild, table.channel, member, command, options, wait=False
    )
    await table.standin.wait_answered(record, timeout=3.0)
    return record


def public_ids(table: Harness) -> set[int]:
    """The bot's public messages in the table's channel, by id."""
    return {m.id for m in table.public_messages()}


async def refused_privately(
    table: Harness, record: InteractionRecord, before: set[int]
) -> StoredMessage:
    """The deferred answer to ``record``, once filled in: it must be the player's alone, and
    the channel must have gained no public message meanwhile."""
    refusal = await record.wait_original(timeout=15)
    assert record.response_type == DEFERRED_CHANNEL_MESSAGE, "the start was not slow"
    assert refusal.ephemeral, f"a refusal shown to everyone: {refusal.content!r}"
    await settled(table)  # the command is done: anything else it would post is out
    assert public_ids(table) == before
    return refusal


async def private_answer_gone(table: Harness, record: InteractionRecord) -> None:
    """``record`` was deferred privately, and its private answer went once the public one
    was out."""
    answer = record.original
    assert record.response_type == DEFERRED_CHANNEL_MESSAGE
    assert answer is not None
    assert answer.ephemeral
    await table.standin.wait_until(lambda: answer.deleted, waiting_for="the private answer to go")


async def test_a_move_refused_after_a_slow_read_is_private(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob plays /move out of turn while the bot's reads wait 2 s: the answer is deferred,
    and "not your turn" is his alone, with nothing posted in the channel."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        before = public_ids(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.bob, "move", {"move": "d3-a3"}, wait=False
            )
        refusal = await refused_privately(table, record, before)
        assert refusal.content == f"It is not your turn: <@{table.alice.id}> is to move."


async def test_a_move_that_cannot_be_saved_is_refused_privately(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice's /move meets another program's write lock for 12 s: the answer is deferred, and
    "could not be saved" is hers alone (the move changed nothing)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        before = public_ids(table)
        async with foreign_write_lock(table.db_path, LOCK_SECONDS):
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
            )
            refusal = await refused_privately(table, record, before)
        assert refusal.content == str(SAVE_FAILED)


async def test_a_move_after_a_slow_start_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice's /move waits 4 s for another program's write lock: it is deferred privately,
    then its board is posted for everyone and the private "thinking…" goes away."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await answered_in_time(table, table.alice, "move", {"move": "d1-b1"})
        board = await table.wait_board(lambda m: "played d1-b1" in m.content)
        assert f"<@{table.bob.id}>, your move" in board.content
        await private_answer_gone(table, record)


async def test_a_challenge_refused_after_a_slow_write_is_private(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice challenges bob a second time while another program holds the write lock for 4 s:
    the answer is deferred, and the refusal (one challenge between two members) is hers
    alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        before = public_ids(table)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await answered_in_time(
                table, table.alice, "challenge", {"opponent": table.bob}
            )
        refusal = await refused_privately(table, record, before)
        assert refusal.content.startswith(f"Your challenge to <@{table.bob.id}> is still open")


async def test_a_challenge_after_a_slow_start_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice challenges bob while another program holds the write lock for 4 s: the challenge
    is posted for everyone (pinging bob), the private "thinking…" goes away, and bob's Accept
    starts the match."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await answered_in_time(
                table, table.alice, "challenge", {"opponent": table.bob}
            )
        posted = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "challenges you" in m.content, timeout=10
        )
        assert posted.pinged_user_ids() == {table.bob.id}
        await private_answer_gone(table, record)
        await table.standin.click(posted, f"challenge:accept:{challenge_id(posted)}", table.bob)
        await table.wait_board(lambda m: "your move" in m.content)


async def test_a_challenge_whose_ping_claim_waits_for_a_lock_is_posted_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program takes the write lock for 4 s just after alice's challenge is stored,
    as its claim on bob's ping is made: the answer is deferred in time (it waited for the
    claim past Discord's 3 s), and the challenge is posted, pinging bob."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        assert table.bot is not None
        challenges = table.bot.services.challenges
        claim = challenges.claim_opponent_ping

        async def behind_a_lock(challenge_id: int) -> datetime | None:
            async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
                return await claim(challenge_id)

        monkeypatch.setattr(challenges, "claim_opponent_ping", behind_a_lock)
        await answered_in_time(table, table.alice, "challenge", {"opponent": table.bob})
        posted = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "challenges you" in m.content, timeout=10
        )
        assert posted.pinged_user_ids() == {table.bob.id}


async def test_a_takeback_refused_after_a_slow_read_is_private(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """carol, who is not playing, asks for a takeback while the bot's reads wait 2 s: the
    answer is deferred, and the refusal is hers alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        before = public_ids(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, "takeback", {}, wait=False
            )
        refusal = await refused_privately(table, record, before)
        assert refusal.content == "You are not playing the game in this channel."


async def test_a_takeback_asked_after_a_slow_read_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice asks to take back her move while the bot's reads wait 2 s: the request is posted
    for everyone, pinging bob, with its Accept and Decline."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "takeback", {}, wait=False
            )
        request = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "take back" in m.content, timeout=10
        )
        assert request.pinged_user_ids() == {table.bob.id}
        assert any(c.startswith("takeback-answer:") for c in request.custom_ids())
        await private_answer_gone(table, record)


async def test_an_abort_that_cannot_be_saved_is_refused_privately(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin confirms /abort while another program holds the write lock for 12 s: the press
    is deferred, and "could not be saved" is the admin's alone; the game goes on."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        asked = await table.reply_text(table.admin, "abort")
        before = public_ids(table)
        async with foreign_write_lock(table.db_path, LOCK_SECONDS):
            record = await table.standin.click(
                asked, asked.custom_ids()[0], table.admin, wait=False
            )
            refusal = await record.wait_followup(timeout=15)
        assert refusal.ephemeral, f"a refusal shown to everyone: {refusal.content!r}"
        assert refusal.content == str(SAVE_FAILED)
        await settled(table)  # the press is done: anything else it would post is out
        assert public_ids(table) == before
        assert table.bot is not None
        assert await table.bot.services.games.in_channel(table.channel.id) is not None


async def test_an_export_refused_after_a_slow_read_is_private(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """/export asks for a game that does not exist while the bot's reads wait 2 s: the answer
    is deferred, and the refusal is the asker's alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        before = public_ids(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, "export", {"game": 999}, wait=False
            )
        refusal = await refused_privately(table, record, before)
        assert refusal.content == "There is no game 999 in this server."


async def test_an_analysis_refused_after_a_slow_read_is_private(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """/analyse asks for a game that does not exist while the bot's reads wait 2 s: the answer
    is deferred, and the refusal is the asker's alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        before = public_ids(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, "analyse", {"game": 999}, wait=False
            )
        refusal = await refused_privately(table, record, before)
        assert refusal.content == "There is no game 999 in this server."


KING_WALKS_INTO_CAPTURE = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""A one-set match the attackers win in five moves (the king walks into capture)."""


async def finished_set(table: Harness) -> None:
    """alice (attackers) beats bob in a one-set match in the table's channel."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    for ply, text in enumerate(KING_WALKS_INTO_CAPTURE):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)


async def test_an_analysis_after_a_slow_read_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """carol's /analyse of the finished set waits 2 s for a read: the progress is shown to
    her alone, then the review is posted for everyone and her private message goes away."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await finished_set(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, "analyse", {}, wait=False
            )
        review = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "blunder" in m.content, timeout=60
        )
        assert [a.filename[-4:] for a in review.attachments] == [".png", ".gif"]
        await private_answer_gone(table, record)


async def test_an_export_after_a_slow_read_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """carol's /export of the finished match waits 2 s for a read: the record and replay are
    posted for everyone and her private "thinking…" goes away."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await finished_set(table)
        async with slow_reads(table):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, "export", {}, wait=False
            )
        exported = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "OpenTafl" in m.content, timeout=30
        )
        assert [a.filename[-4:] for a in exported.attachments] == [".txt", ".gif"]
        await private_answer_gone(table, record)


@pytest.mark.parametrize("command", ["leaderboard", "stats", "puzzle stats"])
async def test_standings_after_a_slow_read_are_answered_in_public(
    discord_standin: DiscordStandin, tmp_path: Path, command: str
) -> None:
    """/leaderboard, /stats and /puzzle stats meet a read held 4 s, past Discord's 3 s to
    answer: they are deferred in time, publicly (nothing there refuses after the read), and
    then answered."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.slash(
                table.guild, table.channel, table.carol, command, {}, wait=False
            )
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        assert record.response_type == DEFERRED_CHANNEL_MESSAGE
        shown = await record.wait_original(lambda m: bool(m.embeds), timeout=15)
        assert not shown.ephemeral


async def test_a_game_against_the_computer_after_a_slow_start_is_posted_in_public(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice challenges the computer (threads off) while another program holds the write lock
    for 4 s: the answer is deferred in time, the first board is posted for everyone and the
    private "thinking…" goes away."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await answered_in_time(
                table, table.alice, "challenge", {"opponent": table.me, "level": 1}
            )
        board = await table.wait_board(lambda m: "against the computer" in m.content)
        assert not board.ephemeral
        await private_answer_gone(table, record)


@pytest.mark.parametrize("command", ["games", "puzzle leaderboard", "leaderboard"])
async def test_a_page_turned_after_a_slow_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, command: str
) -> None:
    """Previous / Next of /games, /puzzle leaderboard and /leaderboard pressed while a read
    holds the bot's read connection 4 s is deferred in time, and the message then shows the
    list as it is now (the press went unanswered: "This interaction failed")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await table.reply_text(table.carol, command)
        guild = table.guild.id
        if command == "games":
            await table.challenge_accepted(table.alice, table.bob)
            custom_id, now_listed = f"games:{guild}:0:10:prev", "**alice** (attackers)"
        elif command == "puzzle leaderboard":
            puzzle = await table.reply_text(table.alice, "puzzle play")
            await pick(table, puzzle, table.alice, wrong_first_move(shown_puzzle(puzzle)))
            custom_id = f"puzzleboard:{guild}:all:{table.carol.id}:10:prev"
            now_listed = "**alice** — 0 of 1 solved"
        else:  # nobody rated yet: the same page, read again
            custom_id, now_listed = f"leaderboard:{guild}:10:prev:brandubh", "No rated games"
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.forged_click(shown, custom_id, table.bob, wait=False)
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        await table.standin.wait_until(lambda: shown.edit_count == 1, timeout=15)
        assert now_listed in shown.embeds[0]["description"]


async def test_a_puzzle_piece_chosen_after_a_slow_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A piece chosen in a puzzle's picker while a read holds the bot's read connection 4 s
    is deferred in time, and its moves then shown (the choice went unanswered)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await table.reply_text(table.alice, "puzzle play")
        origin = wrong_first_move(shown_puzzle(shown)).split("-")[0]
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.select(
                shown, select_offering(shown, origin), table.alice, [origin], wait=False
            )
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        where = await record.wait_original(lambda m: "Where does" in m.content, timeout=15)
        assert where.id == shown.id


async def test_a_puzzle_square_chosen_after_a_slow_read_is_played_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The square of a puzzle's picker chosen while a read holds the bot's read connection 4 s
    is deferred in time, and the move then judged on the same message (its read of the
    attempt left the choice unanswered)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await table.reply_text(table.alice, "puzzle play")
        move = wrong_first_move(shown_puzzle(shown))
        origin = move.split("-")[0]
        chosen = await table.standin.select(
            shown, select_offering(shown, origin), table.alice, [origin]
        )
        step_two = await chosen.wait_original(lambda m: "Where does" in m.content)
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.select(
                step_two, select_offering(step_two, move), table.alice, [move], wait=False
            )
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        judged = await record.wait_original(lambda m: "Not this time" in m.content, timeout=30)
        assert judged.id == shown.id


@pytest.mark.parametrize("command", ["help", "resign", "rules"])
async def test_private_answers_after_a_slow_read_are_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, command: str
) -> None:
    """/help and /rules read this channel's game and the server's settings, /resign the
    game, before answering: with a read held 4 s, past Discord's 3 s, they are deferred
    privately in time, then answered to the asker alone (before: answered after the read,
    too late — 10062, "The application did not respond")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, command, {}, wait=False
            )
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        assert record.response_type == DEFERRED_CHANNEL_MESSAGE
        shown = await record.wait_original(lambda m: bool(m.content), timeout=15)
        assert shown.ephemeral


@pytest.mark.parametrize(("prefix", "asks"), [("move", "Which piece"), ("resign-ask", "Resign")])
async def test_a_board_button_pressed_after_a_slow_read_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, prefix: str, asks: str
) -> None:
    """Move and Resign under the board read the live board and the game first: pressed while
    a read is held 4 s, they are deferred privately in time, then ask alice alone (before:
    answered after the read, too late — "This interaction failed")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        board = await table.challenge_accepted(table.alice, table.bob)
        [custom_id] = [
            c["custom_id"]
            for row in board.components
            for c in row["components"]
            if str(c.get("custom_id", "")).startswith(f"{prefix}:")
        ]
        async with slow_reads(table, seconds=4.0):
            record = await table.standin.click(board, custom_id, table.alice, wait=False)
            await table.standin.wait_until(lambda: record.answered, timeout=3.5)
        assert record.response_type == DEFERRED_CHANNEL_MESSAGE
        shown = await record.wait_original(lambda m: asks in m.content, timeout=15)
        assert shown.ephemeral
