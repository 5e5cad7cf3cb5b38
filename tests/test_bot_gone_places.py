"""/export game:, /analyse game: and /games for a game whose place the bot no longer has in its
cache: a thread archived since, a channel or thread deleted, one the bot may no longer see.
Discord is asked (GET /channels/{id}) and its answer decides, in a sentence that is true."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection
from pathlib import Path
from typing import Any

import discord
import pytest

from tests.bot_harness import Harness, board_thread_game, challenge_id, eventually, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel
from tests.discord_standin.model import VIEW_CHANNEL
from tests.test_bot_lobby import ATTACKERS_WIN, game_in_member_thread
from tests.test_bot_vanished import game_in

pytest_plugins = ["tests.discord_standin.fixtures"]

DELETED = (
    "Game 1 was played in a channel or thread that has since been deleted: I cannot tell who "
    "could see it there, so I do not share it anywhere."
)


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def finished_in_member_thread(table: Harness, parent_name: str) -> FakeChannel:
    """alice beats bob in game 1, in a thread she started in #``parent_name`` (the bot does
    not record that thread's channel). Returns the thread."""
    thread = await game_in_member_thread(table, parent_name)
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    return thread


def asked_about(table: Harness, channel: FakeChannel) -> int:
    """How many times the bot asked Discord for ``channel`` (GET /channels/{id})."""
    path = f"/api/v10/channels/{channel.id}"
    return sum(c.method == "GET" and c.path == path for c in table.standin.recorder.rest_log)


async def test_a_game_in_an_archived_public_thread_is_exported_anywhere(table: Harness) -> None:
    """alice's own thread of the public #games is archived once her game is over: carol's
    /export game:1 in #lobby gets the files (Discord shows a public thread), and asking again
    does not ask Discord again."""
    thread = await finished_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    lobby = table.guild.channel("lobby")
    for _ in range(2):
        exported = await table.slash(table.carol, "export", {"game": 1}, channel=lobby)
        files = await exported.wait_followup()
        assert not files.ephemeral
        assert [a.filename for a in files.attachments] == ["game-1.txt", "game-1.gif"]
    assert asked_about(table, thread) == 1


async def test_a_game_whose_channel_was_deleted_is_refused_saying_so(table: Harness) -> None:
    """#side, where alice's thread and game were, is deleted: carol's /export game:1 and
    /analyse game:1 are refused saying the place is deleted and who could see it is unknown,
    not that she should ask for it there."""
    await finished_in_member_thread(table, "side")
    await table.standin.delete_channel(table.guild.channel("side"))
    for command in ("export", "analyse"):
        refused = await table.reply_text(table.carol, command, {"game": 1})
        assert refused.ephemeral
        assert refused.content == DELETED


async def test_a_game_in_a_deleted_thread_of_a_private_channel_is_refused(
    table: Harness,
) -> None:
    """A bot-made thread of #side, which @everyone cannot see: once #side is deleted (its
    threads with it), carol's /export of its game is refused as deleted, never given out."""
    side = table.guild.channel("side")
    await table.standin.set_overwrite(side, table.guild, deny=VIEW_CHANNEL)
    for member in (table.alice, table.bob, table.me):
        await table.standin.set_overwrite(side, member, allow=VIEW_CHANNEL)
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob, "sets": 1}, channel=side
    )
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    await table.standin.delete_channel(side)
    refused = await table.reply_text(table.carol, "export", {"game": 1})
    assert refused.content == DELETED


async def test_a_game_in_a_thread_the_bot_may_no_longer_see_is_refused_saying_so(
    table: Harness,
) -> None:
    """alice's thread of #side is archived, then the bot loses View Channel in #side: Discord
    answers Missing Access, and carol's /export game:1 is refused saying so."""
    thread = await finished_in_member_thread(table, "side")
    await table.standin.edit_thread(thread, archived=True)
    await table.standin.set_overwrite(table.guild.channel("side"), table.me, deny=VIEW_CHANNEL)
    refused = await table.reply_text(table.carol, "export", {"game": 1})
    assert refused.ephemeral
    assert refused.content == (
        "Game 1 was played in a channel or thread Discord does not let me see: I cannot tell "
        "who can see it, so I do not share it anywhere."
    )


async def test_discord_not_answering_is_asked_again_next_time(table: Harness) -> None:
    """Discord answers 503 when asked about alice's archived thread: carol is told to try
    again; once Discord answers, her /export game:1 gets the files."""
    thread = await finished_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    outage = table.standin.fail_rest(
        503,
        seconds=600,
        matching=lambda method, path: method == "GET" and path == f"/channels/{thread.id}",
    )
    refused = await table.reply_text(table.carol, "export", {"game": 1})
    assert refused.ephemeral
    assert refused.content == (
        "Discord could not tell me just now who can see the channel or thread where game 1 was "
        "played: try again in a minute."
    )
    outage.until = 0.0
    exported = await table.slash(table.carol, "export", {"game": 1})
    assert (await exported.wait_followup()).attachments


async def test_games_lists_a_game_in_an_archived_public_thread(table: Harness) -> None:
    """alice's own thread of the public #games is archived while her game goes on: carol's
    /games in #lobby still lists it (Discord shows a public thread)."""
    thread = await game_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    listed = await table.reply_text(table.carol, "games", channel=table.guild.channel("lobby"))
    assert f"<#{thread.id}>" in str(listed.embeds[0].get("description"))


async def test_two_games_lists_at_once_ask_discord_about_a_place_once(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol's and bob's /games come while Discord is being asked about alice's archived
    thread: the second waits for the same answer (before, it asked again), and both list it."""
    thread = await game_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    assert table.bot is not None
    places = table.bot.flow.places
    judge, fetch_channel = places.judge, table.bot.fetch_channel
    judging: list[int] = []
    both = asyncio.Event()

    async def judged(guild: discord.Guild, channel_id: int, *, here: Collection[int] = ()) -> Any:
        judging.append(channel_id)
        if len(judging) == 2:
            both.set()
        return await judge(guild, channel_id, here=here)

    async def fetched(channel_id: int) -> Any:
        await asyncio.wait_for(both.wait(), timeout=4)  # the other list asks meanwhile
        return await fetch_channel(channel_id)

    monkeypatch.setattr(places, "judge", judged)
    monkeypatch.setattr(table.bot, "fetch_channel", fetched)
    lobby = table.guild.channel("lobby")
    lists = await asyncio.gather(
        *(table.reply_text(who, "games", channel=lobby) for who in (table.carol, table.bob))
    )
    for listed in lists:
        assert f"<#{thread.id}>" in str(listed.embeds[0].get("description"))
    assert judging == [thread.id, thread.id]
    assert asked_about(table, thread) == 1


async def test_a_kept_answer_is_judged_again_against_the_channel(table: Harness) -> None:
    """Discord's answer about alice's archived thread is kept, but not its verdict: once #games
    is hidden from @everyone, carol's next /export game:1 in #lobby is refused, with no new
    request to Discord."""
    thread = await finished_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    lobby = table.guild.channel("lobby")
    exported = await table.slash(table.carol, "export", {"game": 1}, channel=lobby)
    assert (await exported.wait_followup()).attachments
    games = table.guild.channel("games")
    await table.standin.set_overwrite(games, table.guild, deny=VIEW_CHANNEL)
    refused = await table.reply_text(table.carol, "export", {"game": 1}, channel=lobby)
    assert refused.content == (
        "Game 1 was played in a channel not everyone here can see: ask for it there."
    )
    assert asked_about(table, thread) == 1


async def test_games_does_not_wait_on_discord_and_says_what_it_left_out(table: Harness) -> None:
    """Discord answers 500 about alice's archived thread (discord.py tries a 500 again for 25
    seconds): carol's /games is answered without waiting that long, leaves the game out and
    says why, instead of leaving it out unsaid after half a minute."""
    thread = await game_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    table.standin.fail_rest(
        500,
        seconds=600,
        matching=lambda method, path: method == "GET" and path == f"/channels/{thread.id}",
    )
    assert table.bot is not None
    table.bot.flow.places.waited_at_most = 1.0
    listed = await table.reply_text(table.carol, "games", channel=table.guild.channel("lobby"))
    description = str(listed.embeds[0].get("description"))
    assert f"<#{thread.id}>" not in description
    assert description.endswith(
        "Some games are left out: Discord could not tell me just now who can see where they "
        "are played. Try again in a minute."
    )


async def test_a_thread_deleted_while_the_bot_was_away_is_not_listed_and_its_game_ends(
    table: Harness,
) -> None:
    """The thread the bot started for alice and bob's game in the public #games is deleted
    while the bot is stopped: carol's /games does not link to it (Discord says it is gone),
    and the game there is aborted, as when a post there is refused."""
    _, thread = await board_thread_game(table)
    await table.stop()
    await table.standin.delete_channel(thread)  # nobody is connected to be told
    await table.start()
    listed = await table.reply_text(table.carol, "games", channel=table.guild.channel("lobby"))
    assert f"<#{thread.id}>" not in str(listed.embeds[0].get("description"))
    await eventually(game_in(table, thread), None)


async def test_a_game_in_an_archived_thread_is_exported_inside_its_private_channel(
    table: Harness,
) -> None:
    """alice's own thread of #side, which @everyone cannot see, is archived once her game is
    over: her /export game:1 inside #side gets the files, as for a thread still active there
    (she was told to ask for it there, where she was), and carol's in #lobby is refused."""
    side = table.guild.channel("side")
    await table.standin.set_overwrite(side, table.guild, deny=VIEW_CHANNEL)
    for member in (table.alice, table.bob, table.me):
        await table.standin.set_overwrite(side, member, allow=VIEW_CHANNEL)
    thread = await finished_in_member_thread(table, "side")
    await table.standin.edit_thread(thread, archived=True)
    exported = await table.slash(table.alice, "export", {"game": 1}, channel=side)
    files = await exported.wait_followup()
    assert [a.filename for a in files.attachments] == ["game-1.txt", "game-1.gif"]
    refused = await table.reply_text(
        table.carol, "export", {"game": 1}, channel=table.guild.channel("lobby")
    )
    assert refused.content == (
        "Game 1 was played in a channel not everyone here can see: ask for it there."
    )


async def test_a_game_in_a_kind_of_channel_discord_py_does_not_know_is_refused(
    table: Harness,
) -> None:
    """Discord shows the place of alice's finished game (no longer in the bot's cache) as a
    channel type newer than discord.py (it raises InvalidData reading it): carol's /export
    game:1 is refused saying nobody can tell who sees it, not answered with an apology."""
    thread = await finished_in_member_thread(table, "games")
    await table.standin.edit_thread(thread, archived=True)
    thread.type = 99
    refused = await table.reply_text(table.carol, "export", {"game": 1}, channel=table.channel)
    assert refused.ephemeral
    assert refused.content == (
        "Game 1 was played in a kind of channel I do not know: I cannot tell who can see it, "
        "so I do not share it anywhere."
    )
