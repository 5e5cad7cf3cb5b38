"""Presses, selects and commands whose first reads wait behind a slow database are still
answered within Discord's 3 s, where the undeferred answer would land.

The slow start is real (tests/test_bot_slow_refusals.py): a long read holds the bot's read
connection, or another program holds the database's write lock. A server's settings are kept
a minute after a read (bot/services/settings.py); where the answer's first read is the
server's language, its clock is moved past that minute so the language is read anew.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from bot.services.domain import Challenge
from bot.services.settings import KEEP_SECONDS
from tests.bot_harness import Harness, challenge_id, move_button, running_bot
from tests.discord_standin import DiscordStandin, InteractionRecord, StoredMessage
from tests.foreign_lock import foreign_write_lock
from tests.test_bot_refusals import SHUFFLE
from tests.test_bot_rematch import (
    accepted_in_thread,
    attackers_win,
    rematch_id,
    resigned_against_the_computer,
)
from tests.test_bot_shut_out import alice_held_at_her_deadline
from tests.test_bot_slow_refusals import SLOW_WRITE_SECONDS, private_answer_gone, slow_reads

pytest_plugins = ["tests.discord_standin.fixtures"]

HELD_READ_SECONDS = 4.0
"""How long a long read holds the bot's read connection: past Discord's 3 s."""


def settings_read_anew(table: Harness) -> None:
    """From now on, the settings read so far are older than the minute they are kept: the
    next answer reads its server's language from the database."""
    table.age_kept(KEEP_SECONDS + 1)


async def in_time(table: Harness, record: InteractionRecord) -> None:
    """``record`` is answered (deferred, when slow) within Discord's 3 s, and a little slack."""
    await table.standin.wait_until(lambda: record.answered, timeout=3.5)


async def picker(table: Harness) -> StoredMessage:
    """alice's picker, opened with Move under the first board of her game against bob."""
    board = await table.challenge_accepted(table.alice, table.bob)
    opened = await table.standin.click(board, move_button(board), table.alice)
    return await opened.wait_original()


async def test_a_piece_chosen_in_a_games_picker_after_a_slow_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice chooses d1 in her picker while a read holds the bot's read connection 4 s: the
    choice is deferred in time, and the picker then shows d1's moves (before: the picker
    read the game first, unguarded — "This interaction failed")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await picker(table)
        [pieces] = shown.custom_ids()
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.select(shown, pieces, table.alice, ["d1"], wait=False)
            await in_time(table, record)
        where = await record.wait_original(lambda m: "Where does d1 go?" in m.content, timeout=15)
        assert where.id == shown.id
        assert where.ephemeral


async def test_a_square_chosen_in_a_games_picker_after_a_slow_read_is_played_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice chooses d1-b1 in her picker while a read holds the bot's read connection 4 s:
    the choice is deferred in time, her picker says the move is played and its board is
    posted for everyone (before: the picker read the game first, unguarded)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        shown = await picker(table)
        [pieces] = shown.custom_ids()
        chosen = await table.standin.select(shown, pieces, table.alice, ["d1"])
        step_two = await chosen.wait_original(lambda m: "Where does" in m.content)
        [squares] = step_two.custom_ids()
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.select(
                step_two, squares, table.alice, ["d1-b1"], wait=False
            )
            await in_time(table, record)
        board = await table.wait_board(lambda m: "played d1-b1" in m.content, timeout=15)
        assert not board.ephemeral
        assert "d1-b1" in step_two.content


async def test_a_move_whose_servers_language_is_slow_to_read_is_posted_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice's /move comes a minute after the server's settings were last read, while a read
    holds the bot's read connection 4 s: reading the language anew is deferred privately in
    time, and the board is posted for everyone (before: that read came first, unguarded)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        settings_read_anew(table)
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
            )
            await in_time(table, record)
        board = await table.wait_board(lambda m: "played d1-b1" in m.content, timeout=15)
        assert not board.ephemeral


async def test_a_decline_whose_servers_language_is_slow_to_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob declines alice's challenge a minute after the server's settings were last read:
    the decline is stored at once, but then a read holds the bot's read connection 4 s, so
    reading the language anew (for the challenge's new text) is deferred in time, and the
    challenge then says so (before: that read came after the write's guard, unguarded)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        posted = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        assert table.bot is not None
        challenges = table.bot.services.challenges
        decline = challenges.decline
        held = contextlib.AsyncExitStack()

        async def then_reads_held(*args: Any, **kwargs: Any) -> Challenge:
            declined = await decline(*args, **kwargs)
            await held.enter_async_context(slow_reads(table, seconds=HELD_READ_SECONDS))
            return declined

        monkeypatch.setattr(challenges, "decline", then_reads_held)
        settings_read_anew(table)
        async with held:
            record = await table.standin.click(
                posted, f"challenge:decline:{challenge_id(posted)}", table.bob, wait=False
            )
            await in_time(table, record)
        await table.standin.wait_until(
            lambda: f"<@{table.bob.id}> declined the challenge." in posted.content, timeout=15
        )


@pytest.mark.parametrize("opponent", ["member", "computer"])
async def test_a_rematch_pressed_after_a_slow_read_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, opponent: str
) -> None:
    """Rematch reads the finished match first (and, against the computer, whether it is on
    again and the server's settings): pressed while a read holds the bot's read connection
    4 s, it is deferred in time, then the rematch offered privately (a member) or begun in
    the thread (the computer) as before."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as table:
        if opponent == "member":
            over = await attackers_win(
                table, await accepted_in_thread(table, table.alice, table.bob)
            )
        else:
            over = await resigned_against_the_computer(table)
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.click(over, rematch_id(over), table.alice, wait=False)
            await in_time(table, record)
        if opponent == "member":
            offered = await record.wait_followup(timeout=15)
            assert offered.ephemeral
            assert offered.content.startswith("Rematch offered in")
        else:
            await table.standin.wait_for_message(
                over.channel,
                lambda m: not m.ephemeral and m.content.startswith("Rematch: "),
                timeout=15,
            )


async def test_the_daily_puzzles_setting_read_slowly_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin's /puzzle daily reads the setting while a read holds the bot's read
    connection 4 s: it is deferred privately in time, then answered to the admin alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.slash(
                table.guild, table.channel, table.admin, "puzzle daily", {}, wait=False
            )
            await in_time(table, record)
        shown = await record.wait_original(lambda m: "daily puzzle" in m.content, timeout=15)
        assert shown.ephemeral


async def test_moves_typed_while_reads_are_slow_are_offered_nothing_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice types a move while a read holds the bot's read connection 4 s: an autocomplete
    cannot be deferred, so it offers nothing, in time, rather than its moves too late."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            asked = time.monotonic()
            choices = await table.standin.autocomplete(
                table.guild, table.channel, table.alice, "move", focused="move", value="d"
            )
            assert time.monotonic() - asked < 3.0
        assert choices == []
        offered = await table.standin.autocomplete(
            table.guild, table.channel, table.alice, "move", focused="move", value="d"
        )
        assert "d1-b1" in [c["value"] for c in offered]


async def test_a_held_players_press_waiting_to_give_her_time_back_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice, held while hidden from the channel, is shown it again and presses Move while
    another program holds the write lock 4 s: giving her time back waits for the lock, so
    the press is deferred in time, and her picker then opens for her alone (before: the
    give-back, in the buttons' guard, came first, unguarded)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await alice_held_at_her_deadline(table)
        await table.standin.set_overwrite(table.channel, table.alice)
        board = [
            m for m in table.public_messages() if any(c.startswith("move:") for c in m.custom_ids())
        ][-1]
        assert table.bot is not None
        assert table.bot.timers.holds.held_player(table.channel.id) == table.alice.id
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await table.standin.click(board, move_button(board), table.alice, wait=False)
            await in_time(table, record)
        asked = await record.wait_followup(timeout=15)
        assert asked.ephemeral
        assert "Which piece" in asked.content
        assert table.bot.timers.holds.held_player(table.channel.id) is None


async def test_a_held_players_command_waiting_to_give_her_time_back_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice, held while hidden from the channel, is shown it again and plays /move while
    another program holds the write lock 4 s: giving her time back first waits for the lock,
    so the command is deferred privately in time, and her board then posted for everyone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await alice_held_at_her_deadline(table)
        await table.standin.set_overwrite(table.channel, table.alice)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
            )
            await in_time(table, record)
        board = await table.wait_board(lambda m: "played d1-b1" in m.content, timeout=15)
        assert not board.ephemeral


async def test_a_held_players_challenge_to_the_computer_waiting_to_give_her_time_back_starts(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice, held while hidden from the channel, is shown it again and challenges the
    computer there (threads on) while another program holds the write lock 4 s: giving her
    time back defers the command privately, and the match's line is then posted for everyone
    and its thread opened, as undeferred (before: the line was sent as the interaction's
    response, which the deferral had taken — an apology, and no match)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await alice_held_at_her_deadline(table)
        assert table.bot is not None
        await table.bot.services.settings.change(table.guild.id, threads=True)
        await table.standin.set_overwrite(table.channel, table.alice)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await table.standin.slash(
                table.guild,
                table.channel,
                table.alice,
                "challenge",
                {"opponent": table.me, "level": 1},
                wait=False,
            )
            await in_time(table, record)
        line = await table.standin.wait_for_message(
            table.channel,
            lambda m: not m.ephemeral and f"**{table.alice.name}** vs " in m.content,
            timeout=15,
        )
        await table.standin.wait_until(lambda: "the game is on in <#" in line.content, timeout=15)
        await private_answer_gone(table, record)


def reads_held_after(
    table: Harness, monkeypatch: pytest.MonkeyPatch, owner: object, name: str
) -> contextlib.AsyncExitStack:
    """``owner.name`` (a service's method) does its own work at once, then a read holds the
    bot's read connection 4 s, until the returned stack is closed: the reads after it wait."""
    real = getattr(owner, name)
    held = contextlib.AsyncExitStack()

    async def then_reads_held(*args: Any, **kwargs: Any) -> Any:
        done = await real(*args, **kwargs)
        await held.enter_async_context(slow_reads(table, seconds=HELD_READ_SECONDS))
        return done

    monkeypatch.setattr(owner, name, then_reads_held)
    return held


async def test_a_takeback_asked_whose_servers_language_is_slow_to_read_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice asks /takeback a minute after the server's settings were last read: the request
    is stored at once, but then a read holds the bot's read connection 4 s, so reading the
    language anew (and the game) is deferred in time, and the request then posted for bob."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        assert table.bot is not None
        held = reads_held_after(table, monkeypatch, table.bot.services.takebacks, "ask")
        settings_read_anew(table)
        async with held:
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "takeback", {}, wait=False
            )
            await in_time(table, record)
        await table.standin.wait_for_message(
            table.channel, lambda m: f"<@{table.bob.id}>" in m.content, timeout=15
        )


async def test_a_puzzle_leaderboard_whose_servers_language_is_slow_to_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/puzzle leaderboard a minute after the server's settings were last read: its board is
    read at once, but then a read holds the bot's read connection 4 s, so reading the
    language anew is deferred in time, and the leaderboard then shown."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        assert table.bot is not None
        held = reads_held_after(table, monkeypatch, table.bot.services.puzzles, "leaderboard")
        settings_read_anew(table)
        async with held:
            record = await table.standin.slash(
                table.guild, table.channel, table.alice, "puzzle leaderboard", {}, wait=False
            )
            await in_time(table, record)
        shown = await record.wait_original(lambda m: bool(m.embeds), timeout=15)
        assert not shown.ephemeral


async def test_a_repetition_played_anyway_after_a_slow_read_is_played_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob presses "Play e5-e4 anyway" under his losing-repetition warning while a read holds
    the bot's read connection 4 s: reading the game (is the board still the one warned
    about?) is deferred in time, and the move then played, ending the set by repetition."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        for ply, text in enumerate(SHUFFLE):
            await table.move(table.alice if ply % 2 == 0 else table.bob, text)
        warning = await table.reply_text(table.bob, "move", {"move": "e5-e4"})
        assert "third time" in warning.content, warning.content
        [confirm] = warning.custom_ids()
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.click(warning, confirm, table.bob, wait=False)
            await in_time(table, record)
        board = await table.wait_board(lambda m: "played e5-e4" in m.content, timeout=15)
        assert not board.ephemeral


async def test_a_challenge_whose_servers_settings_are_slow_to_read_is_posted_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice's /challenge to bob comes a minute after the server's settings were last read,
    while a read holds the bot's read connection 4 s: reading them anew (its time per move,
    the open-challenge role) is deferred privately in time, and the challenge then posted for
    everyone, pinging bob."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        settings_read_anew(table)
        async with slow_reads(table, seconds=HELD_READ_SECONDS):
            record = await table.standin.slash(
                table.guild,
                table.channel,
                table.alice,
                "challenge",
                {"opponent": table.bob},
                wait=False,
            )
            await in_time(table, record)
        posted = await table.standin.wait_for_message(
            table.channel,
            lambda m: not m.ephemeral and "challenge:accept:" in " ".join(m.custom_ids()),
            timeout=15,
        )
        assert posted.pinged_user_ids() == {table.bob.id}
        await private_answer_gone(table, record)


async def takeback_requested(table: Harness) -> tuple[StoredMessage, str, str]:
    """alice plays d1-b1 against bob and asks to take it back: the request, and the ids of
    its Accept and Decline."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.move(table.alice, "d1-b1")
    request = await table.reply_text(table.alice, "takeback")
    answers = [c for c in request.custom_ids() if c.startswith("takeback-answer:")]
    [accept] = [c for c in answers if "accept" in c]
    [decline] = [c for c in answers if "accept" not in c]
    return request, accept, decline


async def test_a_takeback_accepted_while_the_database_is_locked_is_answered_in_time(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """bob accepts alice's takeback while another program holds the write lock 4 s: storing
    his answer waits for the lock, so the press is deferred in time, then the request says
    he accepted and the board before d1-b1 is posted."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        request, accept, _decline = await takeback_requested(table)
        async with foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS):
            record = await table.standin.click(request, accept, table.bob, wait=False)
            await in_time(table, record)
        await table.standin.wait_until(
            lambda: request.content == "bob accepted the takeback.", timeout=15
        )
        board = await table.wait_board(lambda m: m.id > request.id, timeout=15)
        assert not board.ephemeral


async def test_a_takeback_declined_whose_servers_language_is_slow_to_read_is_shown_in_time(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob declines alice's takeback a minute after the server's settings were last read: his
    answer is stored at once, but then a read holds the bot's read connection 4 s, so reading
    the language and names anew is deferred in time, and the request then says he declined."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        request, _accept, decline = await takeback_requested(table)
        assert table.bot is not None
        held = reads_held_after(table, monkeypatch, table.bot.services.takebacks, "answer")
        settings_read_anew(table)
        async with held:
            record = await table.standin.click(request, decline, table.bob, wait=False)
            await in_time(table, record)
        await table.standin.wait_until(
            lambda: request.content == "bob declined the takeback: the game goes on as it was.",
            timeout=15,
        )
