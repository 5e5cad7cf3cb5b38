"""Answers that carry pictures, where the bot lacks Attach Files: Discord refuses a file in an
interaction's answer there, so a puzzle, the rules and a rematch against the computer answer
with text instead of failing with an apology."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import (
    ATTACH_FILES,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
)
from tests.discord_standin.recorder import InteractionRecord
from tests.held_engine import HeldEngine
from tests.test_bot_analysis import KING_WALKS_INTO_CAPTURE, play
from tests.test_bot_lost_permissions import lose_on_time_while_refused
from tests.test_bot_puzzles import select_offering, shown_puzzle, wrong_first_move
from tests.test_bot_rematch import rematch_id, resigned_against_the_computer

pytest_plugins = ["tests.discord_standin.fixtures"]

APOLOGY = "Sorry, something went wrong"


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in the channel (threads off)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


@pytest.fixture
async def threaded(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads (the bot's default)."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


async def test_a_puzzle_is_played_as_text_where_i_may_not_attach_files(table: Harness) -> None:
    """Without Attach Files in #games, /puzzle play shows the puzzle's board as its alt text,
    and its picker works to the end (a wrong move shows why), each step without a picture."""
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    shown = await table.reply_text(table.alice, "puzzle play")
    assert shown.ephemeral
    assert shown.attachments == []
    assert "Find the move: choose a piece." in shown.content
    puzzle = shown_puzzle(shown)
    assert (
        f"\n> Brandubh (World Tafl Federation) board, 7x7. Your move ({puzzle.to_move.value})"
        in (shown.content)
    )
    move = wrong_first_move(puzzle)
    origin = move.split("-")[0]
    chosen = await table.standin.select(
        shown, select_offering(shown, origin), table.alice, [origin]
    )
    step_two = await chosen.wait_original()
    assert step_two.attachments == []
    assert f"Where does {origin} go?" in step_two.content
    played = await table.standin.select(
        step_two, select_offering(step_two, move), table.alice, [move]
    )
    failed = await played.wait_original(lambda m: "Where does" not in m.content, timeout=30)
    assert failed.attachments == []
    assert "Not this time" in failed.content
    assert APOLOGY not in failed.content


async def test_the_rules_answer_as_text_where_i_may_not_attach_files(table: Harness) -> None:
    """Without Attach Files in #games, /rules gives the rules in text and says why the rules
    page and the picture are not attached, rather than an apology."""
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    rules = await table.reply_text(table.carol, "rules")
    assert rules.ephemeral
    assert rules.attachments == []
    assert "corner" in rules.content
    assert rules.content.endswith(
        "I can't attach the rules page and its pictures here: I need the Attach Files "
        "permission in this channel."
    )


async def rematch_without_attach_files(table: Harness) -> tuple[FakeChannel, InteractionRecord]:
    """alice, attacking, resigns her game against the computer in its thread; Attach Files is
    denied on #games, and she presses Rematch (the computer attacks in it): the thread, and
    the press."""
    over = await resigned_against_the_computer(table)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    return over.channel, await table.standin.click(over, rematch_id(over), table.alice)


async def test_a_rematch_against_the_computer_starts_as_text_where_i_may_not_attach_files(
    threaded: Harness,
) -> None:
    """alice resigns her game against the computer in its thread; with Attach Files denied on
    #games since, her Rematch starts the new game with its first board as text."""
    table = threaded
    _thread, pressed = await rematch_without_attach_files(table)
    started = await pressed.wait_original()
    assert started.content.startswith("Rematch:"), started.content
    assert started.attachments == []
    assert "\n> Brandubh (World Tafl Federation) board, 7x7." in started.content


async def test_the_computers_opening_move_shows_as_text_where_i_may_not_attach_files(
    threaded: Harness,
) -> None:
    """With Attach Files denied on #games after alice resigned her game against the computer,
    her Rematch (the computer attacks now) shows the computer's opening move, which I post on
    my own, as text too: not owed until the permission comes back."""
    table = threaded
    thread, pressed = await rematch_without_attach_files(table)
    await pressed.wait_original()
    opening = await table.standin.wait_for_message(
        thread, lambda m: "(attackers) played" in m.content, timeout=20
    )
    assert opening.attachments == []
    assert "\n> Brandubh (World Tafl Federation) board, 7x7." in opening.content


async def test_a_loss_on_time_is_announced_as_text_where_i_may_not_attach_files(
    table: Harness,
) -> None:
    """With Attach Files denied on #games during alice's game with bob, her loss on time (which
    I post on my own) is announced with its board as text, not owed until the permission
    comes back."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    table.advance(timedelta(days=1, seconds=1))
    ended = await table.standin.wait_for_message(
        table.channel, lambda m: "ran out of time" in m.content, timeout=10
    )
    assert ended.attachments == []
    assert "\n> Brandubh (World Tafl Federation) board, 7x7." in ended.content


async def test_an_owed_board_is_posted_as_text_where_i_may_still_not_attach_files(
    table: Harness,
) -> None:
    """alice loses on time while I may neither send messages nor attach files in #games; an
    admin gives Send Messages back but not Attach Files: the owed board comes, as text, rather
    than being refused for as long as Attach Files is missing."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES | ATTACH_FILES)
    await lose_on_time_while_refused(table, table.channel)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    ended = await table.standin.wait_for_message(
        table.channel, lambda m: "ran out of time" in m.content, timeout=10
    )
    assert ended.attachments == []
    assert "\n> Brandubh (World Tafl Federation) board, 7x7." in ended.content


async def test_discords_refusal_names_only_the_permission_i_lack_here(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal from Discord (403) that reaches the error handler, where I may send messages
    but not attach files, names Attach Files alone (before: Send Messages and Attach Files)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    assert table.bot is not None
    channel = table.bot.get_partial_messageable(table.channel.id)
    with pytest.raises(discord.Forbidden) as refused:  # Discord's own refusal of a picture
        await channel.send("board", file=discord.File(io.BytesIO(b"png"), "board.png"))

    async def refused_by_discord(*_args: Any) -> None:
        raise refused.value

    monkeypatch.setattr(table.bot.flow, "show_board", refused_by_discord)
    answer = await table.reply_text(table.alice, "board")
    assert answer.ephemeral
    assert answer.content == (
        "I can't play in this channel: I need the Attach Files permission here. Ask a server "
        "admin to give it to me, or use another channel."
    )


async def refusal_shown_for(
    table: Harness, monkeypatch: pytest.MonkeyPatch, where: FakeChannel, deny: int
) -> str:
    """The answer to alice's /board in ``where`` when showing the board meets Discord's own
    refusal (a 403) of a post made while ``deny`` was denied to me on #games, given back
    since: what my permissions there show when the refusal reaches the error handler."""
    assert table.bot is not None
    await table.standin.set_overwrite(table.channel, table.me, deny=deny)
    channel = table.bot.get_partial_messageable(where.id)
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("board")
    await table.standin.set_overwrite(table.channel, table.me)

    async def refused_by_discord(*_args: Any) -> None:
        raise refused.value

    monkeypatch.setattr(table.bot.flow, "show_board", refused_by_discord)
    answer = await table.reply_text(table.alice, "board", channel=where)
    assert answer.ephemeral
    return answer.content


async def test_discords_refusal_in_a_thread_names_the_threads_permissions(
    threaded: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a game's thread, a refusal of Discord's where my permissions show none missing names
    what a thread needs, Send Messages in Threads (before: Send Messages, which a thread does
    not use, so an admin giving it changed nothing)."""
    table = threaded
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    shown = await refusal_shown_for(table, monkeypatch, thread, SEND_MESSAGES_IN_THREADS)
    assert shown == (
        "I can't play in this channel: I need the Send Messages in Threads and Attach Files "
        "permissions here. Ask a server admin to give them to me, or use another channel."
    )


async def test_discords_missing_access_names_view_channel(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord's 403 Missing Access (50001: I may not see the channel) names View Channel
    (before: Send Messages and Attach Files, which I had: an admin could not tell what to
    give)."""
    await table.challenge_accepted(table.alice, table.bob)
    shown = await refusal_shown_for(table, monkeypatch, table.channel, VIEW_CHANNEL)
    assert shown == (
        "I can't play in this channel: I need the View Channel permission here. Ask a server "
        "admin to give it to me, or use another channel."
    )


async def test_discords_missing_access_names_view_channel_with_my_member_not_cached(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord's 403 Missing Access met when my own member has left discord.py's cache since
    the command came (my permissions there are then not known) still names View Channel
    (before: reading them failed in the error handler)."""
    assert table.bot is not None
    await table.challenge_accepted(table.alice, table.bob)
    await table.standin.set_overwrite(table.channel, table.me, deny=VIEW_CHANNEL)
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.get_partial_messageable(table.channel.id).send("board")
    await table.standin.set_overwrite(table.channel, table.me)
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None

    async def refused_by_discord(*_args: Any) -> None:
        guild._remove_member(guild.me)  # a command brings my member; it is gone meanwhile
        raise refused.value

    monkeypatch.setattr(table.bot.flow, "show_board", refused_by_discord)
    answer = await table.reply_text(table.alice, "board")
    assert answer.ephemeral
    assert answer.content == (
        "I can't play in this channel: I need the View Channel permission here. Ask a server "
        "admin to give it to me, or use another channel."
    )


async def test_attach_files_taken_during_an_analysis_is_named_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin takes Attach Files from me on #games while carol's /analyse searches: the
    refused review names Attach Files alone (before: Send Messages and Attach Files, from the
    permissions Discord sent with the command, when I had both)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse")
    await engine.started()
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    engine.let_go()
    refusal = await record.wait_followup(timeout=60)
    assert refusal.ephemeral
    assert refusal.content == (
        "I can't play in this channel: I need the Attach Files permission here. Ask a server "
        "admin to give it to me, or use another channel."
    )


async def test_an_analysis_refused_for_attach_files_says_so_in_its_public_line(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attach Files taken from me while carol's /analyse searches: its public progress line
    ("Analysing game 1… 0 %") becomes one line saying why the review is not here and that
    /analyse shows it, stored, where I can attach files (before: stuck at "0 %")."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse")
    await engine.started()
    await record.wait_original(lambda shown: shown.content.startswith("Analysing game"))
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    engine.let_go()
    assert (await record.wait_followup(timeout=60)).ephemeral  # carol's own refusal
    line = await record.wait_original(lambda shown: "Analysing" not in shown.content)
    assert not line.ephemeral
    assert line.content == (
        "The analysis of game 1 could not be posted here: I need the Attach Files permission "
        "here. It is stored: `/analyse game:1` shows it at once in a channel where I can "
        "attach files."
    )
    assert line.attachments == []
