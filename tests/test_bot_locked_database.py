"""Another program holding the database's write lock freezes no channel and loses no move."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.storage.errors import SAVE_FAILED
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeMember,
    InteractionRecord,
    StoredMessage,
)
from tests.foreign_lock import foreign_write_lock
from tests.test_bot_puzzles import select_offering, shown_puzzle, wrong_first_move

pytest_plugins = ["tests.discord_standin.fixtures"]

LOCK_SECONDS = 12.0
"""Longer than the bot's 5 s busy timeout by enough that a move whose write starts late on a
loaded machine (up to 7 s after the lock was taken) still meets the lock for the whole 5 s.
(At 8 s, a write that started 3 s late on a loaded machine outlived the lock and landed.)"""

READING_SECONDS = 7.0
"""How long other channels are read from while the lock is held."""


async def start_game(
    table: Harness, challenger: FakeMember, opponent: FakeMember, channel: FakeChannel
) -> None:
    """A game in ``channel``; the challenger attacks and moves first."""
    reply = await table.reply_text(challenger, "challenge", {"opponent": opponent}, channel=channel)
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", opponent)
    await table.wait_board(channel=channel)


async def readers_during_lock(
    table: Harness, side: FakeChannel, lobby: FakeChannel, until: float
) -> list[InteractionRecord]:
    """/board, /rules and /move's autocomplete in other channels until ``until``."""
    standin = table.standin
    records: list[InteractionRecord] = []
    while time.monotonic() < until:
        records.append(await table.slash(table.admin, "board", channel=side))
        records.append(await table.slash(table.admin, "rules", channel=lobby))
        choices = await standin.autocomplete(
            table.guild, side, table.carol, "move", focused="move", value="d"
        )
        assert choices, "the player to move is offered moves"
        records.append(standin.interaction_log[-1])
    return records


async def test_a_foreign_write_lock_freezes_no_channel(
    discord_standin: DiscordStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """While another program holds the write lock for 12 s, other channels are answered in time,
    and the move that could not be saved is refused in one sentence and can be played after."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        side = table.guild.channel("side")
        lobby = table.guild.channel("lobby")
        await start_game(table, table.alice, table.bob, table.channel)
        await start_game(table, table.carol, table.admin, side)
        caplog.set_level(logging.WARNING)
        async with foreign_write_lock(table.db_path, LOCK_SECONDS):
            started = time.monotonic()
            move = asyncio.create_task(table.slash(table.alice, "move", {"move": "d1-b1"}))
            records = await readers_during_lock(table, side, lobby, started + READING_SECONDS)
            blocked_move = await move
        times = [r.response_time.total_seconds() for r in records if r.response_time]
        assert len(times) == len(records) >= 6
        assert max(times) < 3.0, times
        assert blocked_move.response_time is not None
        assert blocked_move.response_time.total_seconds() < 3.0
        refusal = await blocked_move.wait_original(timeout=15)
        assert refusal.content == str(SAVE_FAILED)
        assert str(table.db_path) not in refusal.content
        active = await table.bot.services.games.in_channel(table.channel.id)  # type: ignore[union-attr]
        assert active is not None
        assert active.ply == 0, "the refused move changed nothing"
        again = await table.move(table.alice, "d1-b1")
        assert "played d1-b1" in again.content
        tracebacks = [r for r in caplog.records if r.exc_info and "bot" in r.name]
        assert tracebacks == []


SLOW_WRITE_SECONDS = 4.0
"""Another program holds the write lock this long: under the bot's 5 s busy timeout, so the
write lands, but past Discord's 3 s to answer — the press must be deferred in time."""


async def takeback_asked(table: Harness) -> tuple[StoredMessage, str]:
    """alice plays d1-b1 against bob and asks to take it back: the request and its Accept."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await table.reply_text(table.alice, "takeback")
    [accept] = [
        c for c in request.custom_ids() if c.startswith("takeback-answer:") and "accept" in c
    ]
    return request, accept


async def test_a_takeback_accepted_during_a_slow_write_is_answered_and_posted(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob accepts alice's takeback while another program holds the write lock for 4 s: the
    press is answered in time and the board after the takeback is posted (the press failed,
    the move was undone unseen and the old board still asked bob to move)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        request, accept = await takeback_asked(table)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            pressed = await table.standin.click(request, accept, table.bob, wait=False)
            await table.standin.wait_until(lambda: pressed.answered, timeout=3.0)
        board = await table.wait_board(lambda m: "taken back" in m.content)
        assert f"<@{table.alice.id}>, your move" in board.content
        assert request.content == "bob accepted the takeback."


async def test_resigning_against_the_computer_during_a_slow_write_goes_on_to_set_two(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice resigns set 1 against the computer while another program holds the write lock
    for 4 s: the press is answered in time, and the computer opens set 2 (the press failed,
    and the computer never played set 2)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as table:
        await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
        await table.wait_board(lambda m: "your move as the attackers" in m.content)
        await table.move(table.alice, "d1-b1")
        await table.wait_board(lambda m: "(defenders) played" in m.content)
        ask = await table.reply_text(table.alice, "resign")
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            pressed = await table.standin.click(ask, ask.custom_ids()[0], table.alice, wait=False)
            await table.standin.wait_until(lambda: pressed.answered, timeout=3.0)
        await table.wait_board(
            lambda m: "(attackers) played" in m.content and "Set 2 of 2" in m.content, timeout=15
        )
        assert ask.content == "You resigned this set."


async def test_declining_a_challenge_during_a_slow_write_is_answered(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob declines alice's challenge while another program holds the write lock for 4 s:
    the press is answered in time and the challenge says he declined."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            pressed = await table.standin.click(
                line, f"challenge:decline:{challenge_id(line)}", table.bob, wait=False
            )
            await table.standin.wait_until(lambda: pressed.answered, timeout=3.0)
        await table.standin.wait_until(lambda: "declined" in line.content, timeout=5)
        assert line.content == f"<@{table.bob.id}> declined the challenge."


async def test_an_abort_during_a_slow_write_is_answered(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin confirms an abort while another program holds the write lock for 4 s: the
    press is answered in time and the aborted board is posted."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        asked = await table.reply_text(table.admin, "abort")
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            aborted = await table.standin.click(
                asked, asked.custom_ids()[0], table.admin, wait=False
            )
            await table.standin.wait_until(lambda: aborted.answered, timeout=3.0)
        board = await table.wait_board(lambda m: "aborted the match" in m.content)
        assert "Match aborted" in board.content


async def test_settings_saved_during_a_slow_write_are_answered(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin changes the time per move while another program holds the write lock for
    4 s: the command is answered in time, privately, saying the settings were saved."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            saved = await table.standin.slash(
                table.guild, table.channel, table.admin, "settings", {"time": 60}, wait=False
            )
            await table.standin.wait_until(lambda: saved.answered, timeout=3.0)
        answer = await saved.wait_original(lambda m: "Settings saved" in m.content, timeout=10)
        assert answer.ephemeral


@contextlib.asynccontextmanager
async def unanswerable(table: Harness) -> AsyncIterator[None]:
    """For ``SLOW_WRITE_SECONDS`` another program holds the write lock and Discord refuses
    every interaction's answer (503): what the block sends in is stored, its answer lost."""
    async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
        refused = table.standin.fail_rest(
            503, seconds=SLOW_WRITE_SECONDS, matching=lambda _m, path: "/callback" in path
        )
        yield
        await table.standin.wait_until(lambda: refused.hits >= 1, timeout=5)


async def test_a_resignation_whose_press_cannot_be_answered_still_goes_on_to_set_two(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice resigns set 1 against the computer during a 4 s write lock, and Discord refuses
    the press's deferral: the resignation, stored, is announced in the channel and the
    computer opens set 2 (it waited for a restart)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as table:
        await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
        await table.wait_board(lambda m: "your move as the attackers" in m.content)
        await table.move(table.alice, "d1-b1")
        await table.wait_board(lambda m: "(defenders) played" in m.content)
        ask = await table.reply_text(table.alice, "resign")
        async with unanswerable(table):
            await table.standin.click(ask, ask.custom_ids()[0], table.alice, wait=False)
        await table.wait_board(
            lambda m: "(attackers) played" in m.content and "Set 2 of 2" in m.content, timeout=15
        )


async def test_a_move_against_the_computer_that_cannot_be_answered_is_still_answered(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice plays /move against the computer during a 4 s write lock, and Discord refuses the
    deferral: the move, stored, is answered by the computer at once (not after a restart)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as table:
        await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
        await table.wait_board(lambda m: "your move as the attackers" in m.content)
        async with unanswerable(table):
            await table.standin.slash(
                table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
            )
        await table.wait_board(
            lambda m: "(defenders) played" in m.content and "your move" in m.content, timeout=15
        )


async def test_accept_after_expiry_during_a_slow_write_is_answered_privately(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob presses Accept on a challenge past its expiry while another program holds the write
    lock for 4 s (closing the challenge must wait): the press is answered in time, the refusal
    is his alone and the challenge shows it expired."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        assert table.bot is not None
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        await table.bot.timers.stop()  # the press lands between two sweeps
        table.advance(timedelta(minutes=10, seconds=1))
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            pressed = await table.standin.click(
                reply, f"challenge:accept:{challenge_id(reply)}", table.bob, wait=False
            )
            await table.standin.wait_until(lambda: pressed.answered, timeout=3.0)
        refused = await pressed.wait_followup(timeout=10)
        assert refused.ephemeral
        assert refused.content == "That challenge has expired: challenge again."
        await table.standin.wait_until(lambda: reply.components == [], timeout=5)
        assert "expired" in reply.content


async def test_accept_after_expiry_whose_press_cannot_be_answered_still_shows_it_expired(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob presses Accept on a challenge past its expiry during a 4 s write lock, and Discord
    refuses the press's deferral: the challenge, closed as expired, loses its buttons and says
    it expired (it kept an Accept that only answered "not open")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        assert table.bot is not None
        reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        await table.bot.timers.stop()  # no sweep would mark it expired
        table.advance(timedelta(minutes=10, seconds=1))
        async with unanswerable(table):
            await table.standin.click(
                reply, f"challenge:accept:{challenge_id(reply)}", table.bob, wait=False
            )
        await table.standin.wait_until(lambda: reply.components == [], timeout=10)
        assert reply.content == (
            f"<@{table.alice.id}>'s challenge to <@{table.bob.id}> expired without an answer."
        )


async def test_a_takeback_whose_press_cannot_be_answered_still_posts_its_board(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob accepts alice's takeback during a 4 s write lock, and Discord refuses the press's
    deferral: the takeback, stored, gets its board in the channel (nothing showed it)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        request, accept = await takeback_asked(table)
        async with unanswerable(table):
            await table.standin.click(request, accept, table.bob, wait=False)
        board = await table.wait_board(lambda m: "taken back" in m.content, timeout=15)
        assert f"<@{table.alice.id}>, your move" in board.content


async def test_the_daily_puzzle_set_during_a_slow_write_is_answered(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin switches the daily puzzle on while another program holds the write lock for
    4 s: the command is answered in time, privately, with the new setting."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        lobby = table.guild.channel("lobby")
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            daily = await table.standin.slash(
                table.guild,
                table.channel,
                table.admin,
                "puzzle daily",
                {"channel": lobby, "hour": 18},
                wait=False,
            )
            await table.standin.wait_until(lambda: daily.answered, timeout=3.0)
        answer = await daily.wait_original(lambda m: "(18:00 UTC)" in m.content, timeout=10)
        assert answer.ephemeral


async def test_a_puzzle_asked_for_during_a_slow_write_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """/puzzle play while another program holds the write lock for 4 s is answered in time, and
    the puzzle shown privately (its start, a write, waited past Discord's 3 s unanswered)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            asked = await table.standin.slash(
                table.guild, table.channel, table.alice, "puzzle play", {}, wait=False
            )
            await table.standin.wait_until(lambda: asked.answered, timeout=3.0)
        shown = await asked.wait_original(lambda m: "Find the move" in m.content, timeout=10)
        assert shown.ephemeral


async def test_a_puzzle_move_during_a_slow_write_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A wrong puzzle move chosen while another program holds the write lock for 4 s is
    answered in time, and its verdict shown (its record, a write, waited unanswered)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await table.reply_text(table.alice, "puzzle play")
        move = wrong_first_move(shown_puzzle(shown))
        origin = move.split("-")[0]
        chosen = await table.standin.select(
            shown, select_offering(shown, origin), table.alice, [origin]
        )
        where = await chosen.wait_original()
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            played = await table.standin.select(
                where, select_offering(where, move), table.alice, [move], wait=False
            )
            await table.standin.wait_until(lambda: played.answered, timeout=3.0)
        verdict = await played.wait_original(lambda m: "Not this time" in m.content, timeout=10)
        assert verdict.ephemeral


async def test_a_daily_puzzle_opened_during_a_slow_write_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The daily post's Solve pressed while another program holds the write lock for 4 s is
    answered in time, privately, with the puzzle; the public post is left as it was."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        lobby = table.guild.channel("lobby")
        hour = (table.now + timedelta(hours=1)).hour
        await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
        table.advance(timedelta(hours=1))
        post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
        [solve_id] = post.custom_ids()
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            pressed = await table.standin.click(post, solve_id, table.bob, wait=False)
            await table.standin.wait_until(lambda: pressed.answered, timeout=3.0)
        shown = await pressed.wait_original(lambda m: "Find the move" in m.content, timeout=10)
        assert shown.ephemeral
        assert shown.id != post.id
