"""A player who left the server does not keep the other waiting: their set and match end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.recorder import StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def allowed_users(message: StoredMessage) -> set[int]:
    """The users the message allows Discord to notify (whether or not they are members)."""
    allowed = message.allowed_mentions or {}
    assert "users" not in (allowed.get("parse") or []), allowed
    return {int(user) for user in allowed.get("users") or []}


async def test_a_player_who_left_loses_at_the_reminder_and_the_match_ends(
    table: Harness,
) -> None:
    """bob leaves during set 1 of a two-set match (an hour per move): at his half-time
    reminder he is not pinged; the set is carol's at once, set 2 is not played, and carol
    wins the match — and is the one pinged."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(minutes=31))
    over = await table.wait_board(lambda m: "left the server" in m.content)
    bob, carol = f"<@{table.bob.id}>", f"<@{table.carol.id}>"
    assert over.content.splitlines() == [
        "**Set 1 of 2 is over** after 1 move. The attackers win: the defenders left the server.",
        f"{bob} has left the server: {carol} wins the set.",
        f"It is not rated: {bob} never moved in it.",
        f"{bob} has left the server, so set 2 is not played: {carol} wins it without a move.",
        f"**Match over:** {carol} wins the match 2–0, with more sets won.",
    ]
    assert allowed_users(over) == {table.carol.id}
    await asyncio.sleep(0.5)
    shown = [m.content for m in table.public_messages()]
    assert not any("reminder" in text for text in shown), shown
    assert not any("Set 2 begins" in text for text in shown), shown
    refused = await table.move(table.carol, "d1-b1")
    assert refused.ephemeral  # nothing left to play: the match is over, not waiting


async def test_no_set_starts_with_a_player_who_left(table: Harness) -> None:
    """bob leaves before alice's winning move in set 1: set 2 is not started with him; it is
    alice's without a move and she wins the match 2–0 (she made the move: nobody is pinged)."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN[:-1]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    await table.standin.remove_member(table.bob)
    over = await table.move(table.alice, ATTACKERS_WIN[-1])
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert f"{alice} wins the set." in over.content
    assert (
        f"{bob} has left the server, so set 2 is not played: {alice} wins it without a move."
        in over.content
    )
    assert f"**Match over:** {alice} wins the match 2–0, with more sets won." in over.content
    assert "Set 2 begins" not in over.content
    assert allowed_users(over) == set()
    await asyncio.sleep(0.5)  # nor does the outbox post set 2 later
    assert not any("Set 2" in m.content for m in table.public_messages())


async def test_a_set_starts_when_both_players_are_still_there(table: Harness) -> None:
    """The near miss: with both players in the server, set 2 begins after set 1."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    second = await table.wait_board(lambda m: "Set 2 begins" in m.content)
    assert f"<@{table.bob.id}>, your move as the attackers" in second.content


async def test_discord_in_trouble_never_ends_a_game(table: Harness) -> None:
    """When Discord cannot say whether bob is a member (500), he is taken to be: he is
    reminded as usual and his set goes on."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    asked = table.standin.fail_rest(
        500, seconds=60, matching=lambda method, path: method == "GET" and "/members/" in path
    )
    table.advance(timedelta(minutes=31))
    reminder = await table.standin.wait_for_message(
        table.channel, lambda m: "reminder" in m.content
    )
    assert asked.hits >= 1
    assert reminder.pinged_user_ids() == {table.bob.id}
    assert not any("left the server" in m.content for m in table.public_messages())


async def test_a_player_who_left_in_german(discord_standin: DiscordStandin, tmp_path: Path) -> None:
    """The same in a German server: the players read why the set and the match ended."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.reply_text(table.admin, "settings", {"language": "de"})
        await table.challenge_accepted(table.carol, table.bob, time=60)
        await table.move(table.carol, "d1-b1")
        await table.standin.remove_member(table.bob)
        table.advance(timedelta(minutes=31))
        over = await table.wait_board(lambda m: "Server verlassen" in m.content)
        bob, carol = f"<@{table.bob.id}>", f"<@{table.carol.id}>"
        assert f"{bob} hat den Server verlassen: {carol} gewinnt den Satz." in over.content
        assert (
            f"{bob} hat den Server verlassen, deshalb wird Satz 2 nicht gespielt: {carol} "
            "gewinnt ihn ohne Zug." in over.content
        )
