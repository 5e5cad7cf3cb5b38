"""Accept on a challenge whose message a member started a thread from (Discord allows one thread
per message): the game is played in that thread, opened again if it was archived; a thread a
moderator locked is not played in (nobody could), the game is played in the channel, and the
challenge says why."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """Games in threads; the bot without Manage Threads (its default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def carols_thread_from_a_challenge(table: Harness) -> tuple[StoredMessage, FakeChannel]:
    """alice challenges bob in #games, and carol starts a thread, "chatter", from it."""
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob, "sets": 1, "time": 1440}
    )
    corner = await table.standin.start_member_thread(
        table.channel, "chatter", table.carol, starter=line
    )
    return line, corner


async def bob_accepts(table: Harness, line: StoredMessage) -> None:
    """bob presses Accept on alice's challenge."""
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert pressed.answered


async def test_a_members_thread_from_the_challenge_hosts_its_game(table: Harness) -> None:
    """carol's thread from alice's challenge is where bob's Accept plays the game (no other
    thread can be started from the message): the challenge links it, the board is there."""
    line, corner = await carols_thread_from_a_challenge(table)
    await bob_accepts(table, line)
    board = await table.wait_board(channel=corner)
    assert f"<@{table.alice.id}>, your move" in board.content
    assert line.content.endswith(f"— the game is on in <#{corner.id}>."), line.content
    assert table.public_messages() == [line]


async def test_an_archived_members_thread_from_the_challenge_is_opened_for_its_game(
    table: Harness,
) -> None:
    """carol's thread from alice's challenge was archived (not locked): bob's Accept plays the
    game there, and its first board opens it again."""
    line, corner = await carols_thread_from_a_challenge(table)
    await table.standin.edit_thread(corner, archived=True)
    await bob_accepts(table, line)
    board = await table.wait_board(channel=corner)
    assert f"<@{table.alice.id}>, your move" in board.content
    assert not corner.archived
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=corner)
    assert "played d1-b1" in played.content, played.content


@pytest.mark.parametrize("archived", [False, True])
async def test_a_locked_thread_from_the_challenge_leaves_its_game_in_the_channel(
    table: Harness, archived: bool
) -> None:
    """carol's thread from alice's challenge was locked by a moderator (archived too, or not):
    bob's Accept plays the game in #games, and the challenge says why, as when Discord will
    not open a thread (it was started in the locked thread, where nobody could play)."""
    line, corner = await carols_thread_from_a_challenge(table)
    await table.standin.edit_thread(corner, archived=archived, locked=True)
    await bob_accepts(table, line)
    board = await table.wait_board()
    assert board.channel is table.channel
    assert line.content.endswith(
        "\nThe thread started from this challenge is locked, so the game is played in this channel."
    ), line.content
    assert f"<@{table.alice.id}>" in line.content
    assert table.standin.messages(corner) == []
    assert (corner.name, corner.locked, corner.archived) == ("chatter", True, archived)
    played = await table.move(table.alice, "d1-b1")
    assert not played.ephemeral, played.content


async def test_a_lock_after_the_bot_read_the_thread_is_named_to_the_accepter(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moderator locks carol's thread from alice's challenge just after bob's Accept read it
    open: the game's first board there is refused, and bob is told that thread is locked, by
    name (it read as permissions missing in #games, where the press came from)."""
    line, corner = await carols_thread_from_a_challenge(table)
    bot = table.bot
    assert bot is not None
    fetch_channel = bot.fetch_channel

    async def fetch_then_lock(channel_id: int) -> object:
        fetched = await fetch_channel(channel_id)
        if channel_id == corner.id:
            await table.standin.edit_thread(corner, locked=True)
        return fetched

    monkeypatch.setattr(bot, "fetch_channel", fetch_then_lock)
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert pressed.answered
    await table.standin.wait_until(lambda: bool(pressed.followups), timeout=5)
    [told] = pressed.followups
    assert told.ephemeral
    assert told.content == (
        f"A moderator locked <#{corner.id}>: Discord takes nothing from me there until one "
        "unlocks it."
    )


async def test_a_thread_refused_as_archived_is_not_named_locked_to_the_accepter(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Just after bob's Accept read carol's thread open, Discord refuses the game's first board
    there as archived (403 50083, not "Thread is locked"): bob is told Discord says that
    thread is archived, by name — not that a moderator locked it, which Discord did not say."""
    line, corner = await carols_thread_from_a_challenge(table)
    bot = table.bot
    assert bot is not None
    fetch_channel = bot.fetch_channel
    board_path = f"/channels/{corner.id}/messages"

    async def fetch_then_refuse(channel_id: int) -> object:
        fetched = await fetch_channel(channel_id)
        if channel_id == corner.id:
            table.standin.fail_rest(
                403,
                seconds=30,
                code=50083,
                matching=lambda method, path: method == "POST" and path == board_path,
            )
        return fetched

    monkeypatch.setattr(bot, "fetch_channel", fetch_then_refuse)
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert pressed.answered
    await table.standin.wait_until(lambda: bool(pressed.followups), timeout=5)
    [told] = pressed.followups
    assert told.ephemeral
    assert told.content == (
        f"Discord says <#{corner.id}> is archived: it takes nothing from me there until the "
        "thread is opened again."
    )
