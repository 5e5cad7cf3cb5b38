"""One server's database trouble holds up no other server's owed work in the same check."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from bot.flow import computer_turns as turns
from bot.player_holds import ASK_AGAIN
from bot.services.domain import GuildSettings, SetEnd
from bot.storage.errors import StorageError
from tests.bot_harness import (
    Harness,
    challenge_id,
    eventually,
    running_bot,
    settled,
    timers_checked,
)
from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeGuild,
    FakeMember,
    StoredMessage,
)
from tests.discord_standin.model import MANAGE_GUILD, VIEW_CHANNEL
from tests.test_bot_computer import StallingPool
from tests.test_bot_outbox import OUTAGE_SECONDS
from tests.test_bot_shut_out import HIDDEN, lines

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@dataclass
class Elsewhere:
    """A second server the bot is in, with two players (games in #play, threads off)."""

    guild: FakeGuild
    channel: FakeChannel
    dave: FakeMember
    erin: FakeMember


async def elsewhere(table: Harness, *, threads: bool = False) -> Elsewhere:
    """The bot joins a second server, "Elsewhere", where dave and erin play (each game in a
    thread of #play if ``threads``)."""
    assert table.bot is not None
    guild = table.standin.add_guild("Elsewhere", channels=["play"])
    dave = table.standin.add_member(guild, "dave")
    erin = table.standin.add_member(guild, "erin")
    await table.standin.bot_joins(guild)
    for member in (dave, erin):
        await table.standin.announce_member(member)
    await table.bot.services.settings.change(guild.id, threads=threads)
    return Elsewhere(guild, guild.channel("play"), dave, erin)


def language_fails_in(
    table: Harness, monkeypatch: pytest.MonkeyPatch, guild: FakeGuild
) -> list[int]:
    """From now on, the database fails every read of ``guild``'s settings (its language) in
    the timers' checks, until the returned list is cleared."""
    assert table.bot is not None
    settings = table.bot.services.settings
    read = settings.get
    timers = table.bot.timers
    failing = [guild.id]

    async def fails_there(guild_id: int) -> GuildSettings:
        if guild_id in failing and asyncio.current_task() is timers._task:
            raise StorageError("database is locked")
        return await read(guild_id)

    monkeypatch.setattr(settings, "get", fails_there)
    return failing


async def game_in(
    table: Harness, guild: FakeGuild, channel: FakeChannel, who: FakeMember, other: FakeMember
) -> None:
    """``who`` challenges ``other`` in ``channel`` to one set, which ``other`` accepts."""
    offered = await table.standin.slash(guild, channel, who, "challenge", {"opponent": other})
    reply = await offered.wait_original()
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", other)
    await table.wait_board(channel=channel)


def boards_of_move(table: Harness, channel: FakeChannel, move: str) -> int:
    """How many boards in ``channel`` tell of ``move``."""
    return sum(
        f"played {move}" in m.content and any(a.filename.endswith(".png") for a in m.attachments)
        for m in table.public_messages(channel)
    )


async def test_a_board_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move in each of two servers is played while Discord takes no post, so both boards are
    owed (the first server's first); the database then fails every read of the first server's
    language: the other server's board is posted, and the first's once the database reads it."""
    other = await elsewhere(table)
    await game_in(table, table.guild, table.channel, table.alice, table.bob)
    await game_in(table, other.guild, other.channel, other.dave, other.erin)
    table.standin.fail_rest(500, seconds=OUTAGE_SECONDS)
    for guild, channel, who in (
        (table.guild, table.channel, table.alice),
        (other.guild, other.channel, other.dave),
    ):
        await table.standin.slash(guild, channel, who, "move", {"move": "d1-b1"}, wait=False)

    assert table.bot is not None
    games = table.bot.services.games

    async def both_played() -> bool:
        played = [await games.in_channel(c.id) for c in (table.channel, other.channel)]
        return all(game is not None and game.ply == 1 for game in played)

    await eventually(both_played, True)
    await settled(table, timeout=90)  # the moves' own posts gave up: the boards are owed
    failing = language_fails_in(table, monkeypatch, table.guild)
    table.standin.end_faults()
    table.advance(timedelta(seconds=30))  # past the normal path's grace and any backoff
    await table.checks_run(2)
    assert boards_of_move(table, other.channel, "d1-b1") == 1
    assert boards_of_move(table, table.channel, "d1-b1") == 0
    failing.clear()
    await table.standin.wait_until(lambda: boards_of_move(table, table.channel, "d1-b1") == 1)


async def resigns(table: Harness, guild: FakeGuild, channel: FakeChannel, who: FakeMember) -> None:
    """``who`` resigns the set they play in ``channel``, confirming it."""
    asked = await (await table.standin.slash(guild, channel, who, "resign")).wait_original()
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    await table.standin.click(asked, confirm, who)
    await table.standin.wait_for_message(channel, lambda m: "is over" in m.content)


async def test_a_match_line_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match in a thread ends in each of two servers, and both their lines are owed their
    results (the first server's first); the database fails every read of the first server's
    language: the other server's line shows its result at the next check, and the first's
    once the database reads it."""
    assert table.bot is not None
    other = await elsewhere(table, threads=True)
    await table.bot.services.settings.change(table.guild.id, threads=True)
    games: list[tuple[FakeGuild, FakeChannel, FakeMember, StoredMessage, FakeChannel]] = []
    for guild, channel, who, opponent in (
        (table.guild, table.channel, table.alice, table.bob),
        (other.guild, other.channel, other.dave, other.erin),
    ):
        offered = await table.standin.slash(
            guild, channel, who, "challenge", {"opponent": opponent, "sets": 1}
        )
        line = await offered.wait_original()
        await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", opponent)
        assert line.thread is not None
        await table.wait_board(channel=line.thread)
        games.append((guild, channel, who, line, line.thread))
    sets = []
    for _, _, _, _, thread in games:
        active = await table.bot.services.games.in_channel(thread.id)
        assert active is not None
        sets.append(active.set_id)
    before = [table.thread_line(thread).content for _, _, _, _, thread in games]
    for guild, _, who, _, thread in games:
        await resigns(table, guild, thread, who)
    first, second = (thread for _, _, _, _, thread in games)
    await table.standin.wait_until(lambda: table.thread_line(second).content != before[1])
    # Both lines owed, as when Discord did not take their edits at the matches' ends.
    failing = language_fails_in(table, monkeypatch, table.guild)
    for (_, _, _, _, thread), shown, set_id in zip(games, before, sets, strict=True):
        table.thread_line(thread).content = shown
        await table.bot.services.announcements.line_owed(set_id)
    await table.checks_run(2)
    assert "**erin** won." in table.thread_line(second).content
    assert table.thread_line(first).content == before[0]
    failing.clear()
    await table.standin.wait_until(lambda: "**bob** won." in table.thread_line(first).content)


async def test_a_daily_post_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily puzzle falls due in the first server an hour before the other; the database
    fails every read of the first server's language: the other server's post comes at its
    hour all the same, and the first's once the database reads it."""
    other = await elsewhere(table)
    admin = table.standin.add_member(other.guild, "odo", permissions=MANAGE_GUILD)
    await table.standin.announce_member(admin)
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    set_there = await table.standin.slash(
        other.guild,
        other.channel,
        admin,
        "puzzle daily",
        {"channel": other.channel, "hour": (hour + 1) % 24},
    )
    await set_there.wait_original()
    failing = language_fails_in(table, monkeypatch, table.guild)

    def dailies(channel: FakeChannel) -> int:
        return sum("Daily puzzle" in m.content for m in table.public_messages(channel))

    table.advance(timedelta(hours=1))
    await table.checks_run(2)  # the first server's is claimed, and fails
    table.advance(timedelta(hours=1))
    await table.checks_run(2)
    assert dailies(other.channel) == 1
    assert dailies(lobby) == 0
    failing.clear()
    await table.standin.wait_until(lambda: dailies(lobby) == 1)


async def stalled_after_a_move(
    table: Harness, guild: FakeGuild, channel: FakeChannel, who: FakeMember
) -> None:
    """``who`` plays the computer in ``channel`` (one set, attacking) and moves; the computer
    gives up on its reply (its search fails every try), and ``who``'s line says I am
    thinking."""
    computer = guild.member(table.standin.bot_user.id)
    assert computer is not None
    offered = await table.standin.slash(
        guild, channel, who, "challenge", {"opponent": computer, "side": "attackers", "sets": 1}
    )
    await offered.wait_original()
    await table.wait_board(channel=channel)
    await table.standin.slash(guild, channel, who, "move", {"move": "d1-b1"})
    await table.standin.wait_for_message(channel, lambda m: "could not find" in m.content)
    assert still_thinking(table, channel)


def still_thinking(table: Harness, channel: FakeChannel) -> bool:
    """Whether the player's line of d1-b1 in ``channel`` still says I am thinking."""
    return any(
        "played d1-b1" in m.content and m.content.endswith("I am thinking…")
        for m in table.public_messages(channel)
    )


@pytest.fixture
def stalling(table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The computer's search fails every try (it gives up on its moves)."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    table.bot.ai = StallingPool(failures=10 * turns.COMPUTER_ATTEMPTS)


async def set_end_fails_for(
    table: Harness, monkeypatch: pytest.MonkeyPatch, channel: FakeChannel
) -> None:
    """From now on, the database fails every read of the set's end of the game in ``channel``
    in the timers' checks (what a stalled turn reads once its set ended)."""
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(channel.id)
    assert active is not None
    games = table.bot.services.games
    read = games.ended
    timers = table.bot.timers

    async def fails_there(set_id: int) -> SetEnd:
        if set_id == active.set_id and asyncio.current_task() is timers._task:
            raise StorageError("database is locked")
        return await read(set_id)

    monkeypatch.setattr(games, "ended", fails_there)


@pytest.mark.usefixtures("stalling")
async def test_a_computer_line_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against the computer in two servers, each player moves and the computer gives up on its
    reply; both resign. The database fails the first server's set's end at every check: the
    other player's line says no longer that I am thinking at the next check."""
    other = await elsewhere(table)
    await stalled_after_a_move(table, table.guild, table.channel, table.alice)
    await stalled_after_a_move(table, other.guild, other.channel, other.dave)
    await set_end_fails_for(table, monkeypatch, table.channel)
    await resigns(table, table.guild, table.channel, table.alice)
    await resigns(table, other.guild, other.channel, other.dave)
    await table.checks_run(2)
    assert still_thinking(table, table.channel)
    assert not still_thinking(table, other.channel)


@pytest.mark.usefixtures("stalling")
async def test_a_stalled_line_comes_off_while_its_servers_language_fails(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer gave up on its reply to alice, who resigns; the database fails her
    server's language: her line still comes off (it is known in every language, 9e43ba1),
    and her stalled turn is forgotten: what follows the set's end is looked for once."""
    assert table.bot is not None
    await stalled_after_a_move(table, table.guild, table.channel, table.alice)
    computer_turns = table.bot.flow.computer_turns
    ended_unseen = computer_turns.ended_unseen
    looked: list[int] = []

    async def counted(set_id: int, ply: int) -> None:
        looked.append(set_id)
        await ended_unseen(set_id, ply)

    monkeypatch.setattr(computer_turns, "ended_unseen", counted)
    language_fails_in(table, monkeypatch, table.guild)
    await resigns(table, table.guild, table.channel, table.alice)
    await table.standin.wait_until(lambda: not still_thinking(table, table.channel))
    await table.checks_run(2)
    assert len(looked) == 1


async def test_a_held_line_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice, then dave in another server, is hidden from her game's channel at her deadline;
    the database fails every read of alice's server's language, so her held line stays owed:
    dave's line is posted, and, shown his channel again, he is told he can play a minute on."""
    other = await elsewhere(table)
    await table.challenge_accepted(table.alice, table.bob)
    table.advance(timedelta(hours=1))
    await game_in(table, other.guild, other.channel, other.dave, other.erin)
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    failing = language_fails_in(table, monkeypatch, table.guild)
    table.advance(timedelta(hours=23, seconds=1))  # alice's deadline
    assert table.bot is not None
    holds = table.bot.timers.holds
    await eventually(lambda: _async(holds.held_player(table.channel.id)), table.alice.id)
    await table.standin.set_overwrite(other.channel, other.dave, deny=VIEW_CHANNEL)
    table.advance(timedelta(hours=1))  # dave's
    await eventually(lambda: _async(holds.held_player(other.channel.id)), other.dave.id)
    await table.standin.wait_until(lambda: bool(lines(table, HIDDEN, other.channel)))
    await table.standin.set_overwrite(other.channel, other.dave)
    table.advance(ASK_AGAIN)
    await table.checks_run(2)
    assert lines(table, f"<@{other.dave.id}> can play again", other.channel)
    assert not lines(table, HIDDEN)
    failing.clear()
    await timers_checked(table)
    await table.standin.wait_until(lambda: bool(lines(table, HIDDEN)))


async def _async(value: object) -> object:
    return value


async def declined_request(
    table: Harness,
    guild: FakeGuild,
    channel: FakeChannel,
    who: FakeMember,
    other: FakeMember,
) -> tuple[StoredMessage, str, int]:
    """``who`` moves in ``channel`` and asks to take it back; ``other`` declines. Returns the
    request message, its content as asked, and the takeback's id."""
    await table.standin.slash(guild, channel, who, "move", {"move": "d1-b1"})
    request = await (await table.standin.slash(guild, channel, who, "takeback")).wait_original()
    asked = request.content
    [decline] = [c for c in request.custom_ids() if c.startswith("takeback-answer:")][1:]
    assert decline.endswith(":decline")
    await table.standin.click(request, decline, other)
    await table.standin.wait_until(lambda: request.content != asked)
    return request, asked, int(decline.split(":")[1])


async def test_a_takeback_answer_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A takeback is asked and declined in each of two servers, and both requests' messages
    are owed how they ended (the first server's first), as when Discord refused their edits
    as locked; the database fails every read of the first server's language: the other
    server's request shows its end at the next check, and the first's once the database
    reads it."""
    assert table.bot is not None
    other = await elsewhere(table)
    await game_in(table, table.guild, table.channel, table.alice, table.bob)
    await game_in(table, other.guild, other.channel, other.dave, other.erin)
    requests = [
        await declined_request(table, table.guild, table.channel, table.alice, table.bob),
        await declined_request(table, other.guild, other.channel, other.dave, other.erin),
    ]
    failing = language_fails_in(table, monkeypatch, table.guild)
    for request, asked, takeback_id in requests:
        request.content = asked
        await table.bot.services.announcements.answer_owed(takeback_id)
    (first, first_asked, _), (second, _, _) = requests
    await table.checks_run(2)
    assert "declined" in second.content
    assert first.content == first_asked
    failing.clear()
    await table.standin.wait_until(lambda: "declined" in first.content)


async def test_a_time_out_the_database_fails_in_one_server_holds_up_no_other(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice, then dave in another server, runs out of time in the same check; the database
    fails every read of alice's server's language: dave's loss on time is posted, and alice's
    once the database reads it (her set ended all the same)."""
    other = await elsewhere(table)
    await game_in(table, table.guild, table.channel, table.alice, table.bob)
    await game_in(table, other.guild, other.channel, other.dave, other.erin)
    failing = language_fails_in(table, monkeypatch, table.guild)
    table.advance(timedelta(days=1, seconds=1))  # both move timers run out
    await table.checks_run(2)

    def losses(channel: FakeChannel) -> int:
        return sum("ran out of time" in m.content for m in table.public_messages(channel))

    assert losses(other.channel) == 1
    assert losses(table.channel) == 0
    failing.clear()
    table.advance(timedelta(seconds=30))  # past the outbox's grace: her final board is owed
    await table.standin.wait_until(lambda: losses(table.channel) == 1)
