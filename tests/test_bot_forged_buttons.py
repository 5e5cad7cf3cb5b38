"""A button whose id names another challenge, request or match than the message it is pressed
on (a forged or garbled ``custom_id``) is refused in one sentence and changes nothing: it
neither answers what it names nor edits the message pressed, nor posts anywhere.

Each test was written by an attack run and failed before its fix.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, board_thread_game, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, InteractionRecord, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

FORGED = "That button or id is not one of mine."


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread (the bot's default)."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


async def refusal(record: InteractionRecord) -> str:
    """The private sentence the presser saw."""
    message = await record.wait_original()
    assert message.ephemeral, message.content
    return message.content


async def test_accept_naming_another_channels_challenge_is_refused(table: Harness) -> None:
    """bob presses, on carol's challenge to ada in #lobby, an Accept naming alice's challenge
    open to anyone in #games: refused; neither challenge changes and no thread is opened."""
    wanted = await table.reply_text(table.alice, "challenge", {"sets": 1})
    pressed = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=table.guild.channel("lobby")
    )
    shown, buttons = pressed.content, pressed.custom_ids()
    for action in ("accept", "decline", "withdraw"):
        forged = f"challenge:{action}:{challenge_id(wanted)}"
        who = table.alice if action == "withdraw" else table.bob
        record = await table.standin.forged_click(pressed, forged, who)
        assert await refusal(record) == FORGED, action
    assert (pressed.content, pressed.custom_ids(), pressed.thread) == (shown, buttons, None)
    assert wanted.thread is None
    assert wanted.custom_ids() == [
        f"challenge:accept:{challenge_id(wanted)}",
        f"challenge:withdraw:{challenge_id(wanted)}",
    ]
    taken = await table.standin.click(wanted, f"challenge:accept:{challenge_id(wanted)}", table.bob)
    assert taken.answered
    assert wanted.thread is not None


async def test_accept_pressed_in_another_server_is_refused(table: Harness) -> None:
    """mallory, of another server, presses Accept of alice's open challenge there: refused, and
    alice's challenge stays open (it was closed as if alice had left the server)."""
    wanted = await table.reply_text(table.alice, "challenge", {"sets": 1})
    shown = wanted.content
    elsewhere = table.standin.add_guild("Elsewhere", channels=["play"])
    mallory = table.standin.add_member(elsewhere, "mallory")
    await table.standin.bot_joins(elsewhere)
    await table.standin.announce_member(mallory)
    forged = f"challenge:accept:{challenge_id(wanted)}"
    record = await table.standin.forged_click(
        wanted, forged, mallory, channel=elsewhere.channel("play")
    )
    assert await refusal(record) == FORGED
    assert wanted.content == shown
    taken = await table.standin.click(wanted, forged, table.bob)
    assert taken.answered
    assert wanted.thread is not None


async def test_takeback_answer_naming_another_games_request_is_refused(
    table: Harness,
) -> None:
    """bob, asked for a takeback in his game's thread, presses its Accept forged onto a message
    in #lobby: refused; the move is not undone, nothing is posted in #lobby."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    request = await table.reply_text(table.alice, "takeback", channel=thread)
    [accept] = [c for c in request.custom_ids() if c.endswith(":accept")]
    lobby = table.guild.channel("lobby")
    elsewhere = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=lobby
    )
    shown = elsewhere.content
    record = await table.standin.forged_click(elsewhere, accept, table.bob)
    assert await refusal(record) == FORGED
    assert elsewhere.content == shown
    assert [m.id for m in table.public_messages(lobby)] == [elsewhere.id]
    [board] = [
        m for m in table.standin.messages(thread) if m.custom_ids() and "move:" in m.custom_ids()[0]
    ]
    record = await table.standin.forged_click(board, accept, table.bob)
    assert await refusal(record) == FORGED
    reply = await table.reply_text(table.bob, "move", {"move": "c4-c2"}, channel=thread)
    assert not reply.ephemeral, reply.content


async def finished_computer_match(table: Harness) -> StoredMessage:
    """alice resigns a one-set match against the computer; the match-over message."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    assert line.thread is not None
    await table.wait_board(channel=line.thread)
    asked = await table.reply_text(table.alice, "resign", channel=line.thread)
    [confirm] = asked.custom_ids()
    await table.standin.click(asked, confirm, table.alice)
    return await table.standin.wait_for_message(
        line.thread, lambda m: any(c.startswith("rematch:") for c in m.custom_ids())
    )


async def test_rematch_pressed_outside_the_matchs_channel_is_refused(table: Harness) -> None:
    """alice's Rematch of her match against the computer, forged onto a message in #lobby:
    refused, and no board is posted there."""
    over = await finished_computer_match(table)
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    lobby = table.guild.channel("lobby")
    elsewhere = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=lobby
    )
    record = await table.standin.forged_click(elsewhere, rematch, table.alice)
    assert await refusal(record) == FORGED
    assert [m.id for m in table.public_messages(lobby)] == [elsewhere.id]


async def test_a_board_button_naming_a_game_played_elsewhere_is_not_called_over(
    table: Harness,
) -> None:
    """alice plays bob in two threads; Move, Takeback and Resign naming the second game,
    pressed on the first game's board, are refused as not mine (they said that game was
    over, while it is played) and post nothing."""
    board, thread = await board_thread_game(table, opening=["d1-b1"])
    _, other = await board_thread_game(table, opening=["d1-b1"])
    [other_set] = {c.split(":")[1] for c in (await table.wait_board(channel=other)).custom_ids()}
    posts = len(table.public_messages(thread)), len(table.public_messages(other))
    for forged in (f"move:{other_set}", f"takeback:{other_set}", f"resign-ask:{other_set}"):
        pressed = await table.standin.forged_click(board, forged, table.bob)
        assert await refusal(pressed) == FORGED, forged
    assert (len(table.public_messages(thread)), len(table.public_messages(other))) == posts


async def test_rematch_of_a_match_still_played_is_refused(table: Harness) -> None:
    """bob presses, on the board of his match with alice still being played, a Rematch naming
    that match: refused as not mine, and no challenge is posted (it offered alice a rematch
    of a match they were still playing, pinging her)."""
    board, thread = await board_thread_game(table, opening=["d1-b1"], sets=2)
    assert table.bot is not None
    playing = await table.bot.services.games.in_channel(thread.id)
    assert playing is not None
    posts = len(table.public_messages()), len(table.public_messages(thread))
    pressed = await table.standin.forged_click(board, f"rematch:{playing.match_id}", table.bob)
    assert await refusal(pressed) == FORGED
    assert (len(table.public_messages()), len(table.public_messages(thread))) == posts


async def test_rematch_of_an_aborted_match_is_refused(table: Harness) -> None:
    """An aborted match has no Rematch button: one forged onto its last board, naming it, is
    refused as not mine and posts nothing."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    assert table.bot is not None
    playing = await table.bot.services.games.in_channel(thread.id)
    assert playing is not None
    aborted = await table.abort(table.admin, channel=thread)
    assert not any(c.startswith("rematch:") for c in aborted.custom_ids())
    posts = len(table.public_messages()), len(table.public_messages(thread))
    pressed = await table.standin.forged_click(aborted, f"rematch:{playing.match_id}", table.bob)
    assert await refusal(pressed) == FORGED
    assert (len(table.public_messages()), len(table.public_messages(thread))) == posts
