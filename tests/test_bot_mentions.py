"""Names cannot ping or format, and a match's end pings only the player who did not cause it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeMember
from tests.discord_standin.recorder import StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


@pytest.fixture
async def channel_table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays games in the channel itself."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def resign(table: Harness, who: FakeMember) -> StoredMessage:
    """``who`` resigns with /resign and its confirmation; the set's end is returned."""
    asked = await table.reply_text(who, "resign")
    await table.standin.click(asked, asked.custom_ids()[0], who)
    return await table.wait_board(lambda m: "resigned" in m.content)


async def test_a_match_lost_on_time_pings_the_winner_once(channel_table: Harness) -> None:
    """alice runs out of time in the match's last set: bob, who may not be watching, is
    pinged by its end — he alone, and once."""
    table = channel_table
    board = await table.challenge_accepted(table.alice, table.bob, sets=1, time=60)
    table.advance(timedelta(minutes=61))
    over = await table.wait_board(lambda m: "ran out of time" in m.content)
    assert f"<@{table.bob.id}> wins the game." in over.content
    assert over.allowed_user_ids() == {table.bob.id}
    assert over.pinged_user_ids() == {table.bob.id}
    since = [m for m in table.public_messages() if m.id > board.id]
    assert [m.id for m in since if table.bob.id in m.pinged_user_ids()] == [over.id]


async def test_a_resignation_that_ends_the_match_pings_the_opponent(
    channel_table: Harness,
) -> None:
    """alice resigns set 2: bob is pinged by the match's end, alice (who resigned) is not."""
    table = channel_table
    await table.challenge_accepted(table.alice, table.bob)
    first = await resign(table, table.alice)
    assert "Set 2 begins" in first.content
    asked = await table.reply_text(table.alice, "resign")
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.wait_board(lambda m: "Match over" in m.content)
    assert over.allowed_user_ids() == {table.bob.id}
    assert over.pinged_user_ids() == {table.bob.id}


async def test_an_abort_pings_the_players_not_the_admin(channel_table: Harness) -> None:
    """An admin aborts alice and bob's match (perhaps from another channel, in a game of a week
    a move): both players are named and pinged by the post, the admin is not."""
    table = channel_table
    await table.challenge_accepted(table.alice, table.bob, time=7 * 24 * 60)
    over = await table.abort(table.admin)
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert over.content.startswith(f"<@{table.admin.id}> aborted the match of {alice} and {bob}.")
    assert over.pinged_user_ids() == {table.alice.id, table.bob.id}


async def test_a_match_ended_by_a_move_pings_nobody(channel_table: Harness) -> None:
    """The near miss: a one-set match won by a move pings nobody (both were just playing)."""
    table = channel_table
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    for ply, text in enumerate(ATTACKERS_WIN):
        over = await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    assert "wins the game" in over.content
    assert over.pinged_user_ids() == set()


async def test_resigning_to_the_computer_pings_nobody(channel_table: Harness) -> None:
    """Against the computer the match's end pings nobody extra: alice resigned herself."""
    table = channel_table
    start = await table.slash(table.alice, "challenge", {"opponent": table.me, "sets": 1})
    await start.wait_original()
    await table.wait_board(lambda m: f"<@{table.alice.id}>, your move" in m.content)
    over = await resign(table, table.alice)
    assert over.allowed_user_ids() == set()
    assert over.pinged_user_ids() == set()


async def test_a_hostile_nickname_pings_nobody_and_shows_as_text(table: Harness) -> None:
    """'@everyone <@carol> **x**' plays bob: carol is never pinged, nor everyone; the name's
    Markdown and mention show as plain text; only the player to move is ever notified."""
    evil = table.standin.add_member(
        table.guild, "evil", nick=f"@everyone <@{table.carol.id}> **x**"
    )
    line = await table.reply_text(evil, "challenge", {"opponent": table.bob, "sets": 1})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert line.thread is not None
    thread = line.thread
    await table.wait_board(channel=thread)
    for ply, text in enumerate(ATTACKERS_WIN):
        who = evil if ply % 2 == 0 else table.bob
        reply = await table.reply_text(who, "move", {"move": text}, channel=thread)
        assert not reply.ephemeral, reply.content
    await table.reply_text(table.carol, "games")
    await table.reply_text(table.carol, "leaderboard")
    await table.reply_text(table.carol, "stats", {"player": evil})
    everything = table.standin.messages(table.channel) + table.standin.messages(thread)
    assert everything
    for message in everything:
        assert table.carol.id not in message.pinged_user_ids(), message.content
        assert message.pinged_user_ids() <= {evil.id, table.bob.id}, message.content
        parse = (message.allowed_mentions or {}).get("parse", [])
        assert "everyone" not in parse
        assert "roles" not in parse
    shown = [m.content for m in table.standin.messages(thread) if "played d1-b1" in m.content]
    assert shown == [
        f"**@\u200beveryone <@\u200b{table.carol.id}> \\*\\*x\\*\\*** (attackers) played d1-b1."
        + shown[0].split("played d1-b1.")[1]
    ]


async def test_a_nickname_that_is_a_link_or_a_channel_shows_as_text(
    channel_table: Harness,
) -> None:
    """Players nicknamed 'https://e.vil/x' and '<#lobby>' play: the boards name them as
    text, not as a link Discord would preview or as a link to #lobby."""
    table = channel_table
    lobby = table.guild.channel("lobby")
    link = table.standin.add_member(table.guild, "link", nick="https://e.vil/x")
    channel = table.standin.add_member(table.guild, "channel", nick=f"<#{lobby.id}>")
    await table.challenge_accepted(link, channel, sets=1)
    first = await table.move(link, "d1-b1")
    second = await table.move(channel, "c4-c2")
    assert first.content.startswith("**https:\u200b//e.vil/x** (attackers) played d1-b1.")
    assert second.content.startswith(f"**<\u200b#{lobby.id}>** (defenders) played c4-c2.")
    for message in table.public_messages():
        assert "https://" not in message.content, message.content
        assert f"<#{lobby.id}>" not in message.content, message.content


async def test_a_server_name_with_markdown_shows_as_text_in_the_titles(table: Harness) -> None:
    """A server named "**Tafl** __Club__": /leaderboard's and /games' titles show the name as
    written, not as bold and underlined text."""
    await table.standin.rename_guild(table.guild, "**Tafl** __Club__")
    for command in ("leaderboard", "games"):
        shown = await table.reply_text(table.alice, command)
        title = shown.embeds[0]["title"]
        assert title.endswith(" — \\*\\*Tafl\\*\\* \\_\\_Club\\_\\_"), title
