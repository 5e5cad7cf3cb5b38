"""A game's channel or thread deleted, or the bot removed from the server: the game is aborted
at once as /abort aborts it (unrated), nothing more is posted to the place that is gone, and
its challenges stop counting. Each test failed before (the game ran out its clock where nobody
could see it, rated, and its boards were tried hourly for ever).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.shards import Shards
from bot.storage import sets as stored_sets
from bot.storage.connection import Connection
from bot.storage.sets import EVERY, SetRow
from tests.bot_harness import (
    Harness,
    board_thread_game,
    challenge_id,
    eventually,
    running_bot,
    timers_checked,
    until,
)
from tests.discord_standin import DiscordStandin, FakeChannel
from tests.discord_standin.model import SEND_MESSAGES
from tests.foreign_lock import busy_retries, foreign_write_lock

pytest_plugins = ["tests.discord_standin.fixtures"]

OPENING = ["d1-b1", "c4-c2"]
"""alice's and bob's first moves: a loss on time after them is rated."""


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


async def channel_game(table: Harness, sets: int = 1) -> None:
    """alice and bob play in #games and make a move each."""
    await table.challenge_accepted(table.alice, table.bob, sets=sets)
    for who, text in zip((table.alice, table.bob), OPENING, strict=True):
        await table.move(who, text)


def calls_to(table: Harness, channel: FakeChannel, since: int, method: str = "POST") -> int:
    """How many ``method`` requests the bot made to ``channel`` (its messages included) after
    the first ``since`` requests of the run."""
    prefix = f"/api/v10/channels/{channel.id}"
    return sum(
        1
        for call in table.standin.rest_log[since:]
        if call.method == method and (call.path == prefix or call.path.startswith(prefix + "/"))
    )


async def a_day_passes(table: Harness) -> None:
    """A day goes by on the bot's clock, in steps its timers see."""
    for _ in range(24):
        table.advance(timedelta(hours=1))
        await table.checks_run()


async def rated_players(table: Harness) -> int:
    """How many players the server's leaderboard rates."""
    assert table.bot is not None
    return (await table.bot.services.standings.leaderboard(table.guild.id)).total


def game_in(table: Harness, channel: FakeChannel) -> Callable[[], Awaitable[int | None]]:
    """A probe: the id of the game in progress in ``channel``, or None."""
    assert table.bot is not None
    games: GameService = table.bot.services.games

    async def probe() -> int | None:
        active = await games.in_channel(channel.id)
        return None if active is None else active.set_id

    return probe


async def carols_archived_game(table: Harness) -> FakeChannel:
    """carol starts a thread of #games and plays bob there; Discord archives it (discord.py
    forgets it). Returns the thread."""
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    line = await table.reply_text(
        table.carol, "challenge", {"opponent": table.bob, "sets": 1}, channel=corner
    )
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    await table.wait_board(channel=corner)
    for who, text in zip((table.carol, table.bob), OPENING, strict=True):
        await table.reply_text(who, "move", {"move": text}, channel=corner)
    await table.standin.edit_thread(corner, archived=True)
    assert table.bot is not None
    bot = table.bot
    await table.standin.wait_until(lambda: bot.get_channel(corner.id) is None, timeout=5)
    return corner


# -- a deleted thread or channel ---------------------------------------------------------------


async def test_a_thread_game_whose_thread_is_deleted_is_aborted_at_once(
    threaded: Harness,
) -> None:
    """A moderator deletes a game's thread: the game is aborted at once and the challenge line
    in #games says so, as after /abort."""
    table = threaded
    _, thread = await board_thread_game(table, opening=OPENING)
    line = table.thread_line(thread)
    await table.standin.delete_channel(thread)
    await eventually(game_in(table, thread), None)
    await table.standin.wait_until(lambda: "the match was aborted" in line.content, timeout=5)


async def test_a_deleted_thread_is_never_posted_to_nor_its_game_rated(threaded: Harness) -> None:
    """A day after its thread was deleted, nobody has lost on time there: no post was tried in
    the thread and nobody is rated."""
    table = threaded
    _, thread = await board_thread_game(table, opening=OPENING)
    since = len(table.standin.rest_log)
    await table.standin.delete_channel(thread)
    await a_day_passes(table)
    assert calls_to(table, thread, since) == 0
    assert await rated_players(table) == 0


async def test_a_game_whose_channel_is_deleted_is_aborted_and_left_alone(table: Harness) -> None:
    """Threads off: the game's channel is deleted. The game is aborted, /games no longer lists
    it, and a day later nothing was posted there and nobody is rated."""
    await channel_game(table)
    since = len(table.standin.rest_log)
    await table.standin.delete_channel(table.channel)
    await eventually(game_in(table, table.channel), None)
    listing = await table.reply_text(table.carol, "games", channel=table.guild.channel("side"))
    assert listing.embeds[0]["description"].startswith("No game in progress.")
    await a_day_passes(table)
    assert calls_to(table, table.channel, since) == 0
    assert await rated_players(table) == 0


async def test_a_channel_deleted_while_the_database_is_busy_still_aborts_its_game(
    table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Threads off: the game's channel is deleted while another program holds the write lock
    for 8 s (longer than a write waits): the abort is tried again and lands after the lock."""
    await channel_game(table)
    caplog.set_level(logging.INFO, logger="bot.flow.until_stored")
    async with foreign_write_lock(table.db_path, 8.0):
        await table.standin.delete_channel(table.channel)
        await until(lambda: busy_retries(caplog) >= 1)  # the first try has given up
        assert await game_in(table, table.channel)() is not None
    await eventually(game_in(table, table.channel), None)
    assert await rated_players(table) == 0


async def test_deleting_a_channel_aborts_the_games_in_its_threads(threaded: Harness) -> None:
    """#games is deleted, and with it the thread of a game (Discord sends no THREAD_DELETE for
    it): the game is aborted, and nothing is posted or edited in either."""
    table = threaded
    _, thread = await board_thread_game(table, opening=OPENING)
    since = len(table.standin.rest_log)
    await table.standin.delete_channel(table.channel)
    await eventually(game_in(table, thread), None)
    await a_day_passes(table)
    assert calls_to(table, thread, since) == 0
    assert calls_to(table, table.channel, since, "PATCH") == 0  # the line went with #games
    assert await rated_players(table) == 0


async def test_deleting_a_channel_aborts_the_game_in_a_members_archived_thread_of_it(
    threaded: Harness,
) -> None:
    """carol starts a thread of #games and plays bob there; Discord archives it (discord.py
    forgets it), then #games is deleted: the game is aborted too, nobody losing on time a day
    later (before, only the threads the bot held, and those it started, were found)."""
    table = threaded
    corner = await carols_archived_game(table)
    await table.standin.delete_channel(table.channel)
    await eventually(game_in(table, corner), None)
    await a_day_passes(table)
    assert await rated_players(table) == 0


async def test_each_game_aborted_for_a_deleted_thread_is_logged_with_why(
    threaded: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The log says, in one INFO line, which game was aborted and why."""
    table = threaded
    _, thread = await board_thread_game(table, opening=OPENING)
    caplog.set_level(logging.INFO, logger="bot.flow.vanished")
    await table.standin.delete_channel(thread)
    await eventually(game_in(table, thread), None)
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.flow.vanished"]
    assert line.startswith("Aborted game ")
    assert line.endswith(
        f"in channel {thread.id} of server {table.guild.id}: its thread was deleted"
    )


# -- deleted unseen: found missing at start-up, or the first post refused as Unknown Channel ----


async def test_a_channel_deleted_while_the_bot_was_away_aborts_its_game_once_it_is_back(
    table: Harness,
) -> None:
    """#games is deleted while the bot is stopped. Started, it finds the channel missing from
    the server's GUILD_CREATE and Discord confirms it is gone: the game is aborted then, before
    alice's half-time reminder is tried there (it was aborted only when Discord refused that
    post), so she does not lose on time a day later and nothing is tried there."""
    await channel_game(table)
    await table.stop()
    await table.standin.delete_channel(table.channel)  # nobody is connected to be told
    since = len(table.standin.rest_log)
    await table.start()
    await eventually(game_in(table, table.channel), None)
    table.advance(timedelta(hours=12, seconds=1))  # alice's reminder would fall due
    await a_day_passes(table)
    assert calls_to(table, table.channel, since) == 0
    assert await rated_players(table) == 0


async def test_a_game_whose_channel_was_deleted_unseen_is_not_lost_on_time(
    table: Harness,
) -> None:
    """#games is deleted while the bot is stopped, after alice's half-time reminder: nothing is
    posted there before her time runs out. The bot finds the channel gone before ending the
    game, which is aborted instead of lost on time (rated)."""
    await channel_game(table)
    table.advance(timedelta(hours=12, seconds=1))
    await table.standin.wait_for_message(table.channel, lambda m: "reminder" in m.content)
    await table.stop()
    await table.standin.delete_channel(table.channel)
    await table.start()
    await a_day_passes(table)
    await eventually(game_in(table, table.channel), None)
    assert await rated_players(table) == 0


async def test_a_timer_check_reads_the_games_out_of_time_once(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One check of the timers reads the games out of time once, both to make sure their
    places are there and to end them (it read them twice); alice's game still ends on time."""
    await channel_game(table)
    assert table.bot is not None
    await table.bot.timers.stop()
    reads: list[int] = []
    real = stored_sets.due_deadlines

    async def counted(db: Connection, now_us: int, shards: Shards = EVERY) -> list[SetRow]:
        reads.append(now_us)
        return await real(db, now_us, shards)

    monkeypatch.setattr(stored_sets, "due_deadlines", counted)
    table.advance(timedelta(days=1, seconds=1))
    await table.bot.timers.check(table.bot.clock())
    assert len(reads) == 1, reads
    assert await game_in(table, table.channel)() is None


async def test_a_board_owed_to_a_channel_deleted_unseen_is_dropped_and_the_match_aborted(
    table: Harness,
) -> None:
    """Set 1 of a match ends on time while the bot may not post in #games (its board is owed);
    then #games is deleted without the bot being told. The outbox's next try is refused as
    Unknown Channel: set 2 is aborted and the board is never tried again (it was, hourly)."""
    await channel_game(table, sets=2)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(days=1, seconds=1))  # alice loses set 1 on time; set 2 begins
    assert table.bot is not None
    games = table.bot.services.games
    await eventually(lambda: _set_number(games, table.channel.id), 2)
    table.standin.world.delete_channel(table.channel)  # the event never reaches the bot
    since = len(table.standin.rest_log)
    for _ in range(6):  # the outbox's pause after a refusal grows: it tries within minutes
        table.advance(timedelta(minutes=10))
        await table.checks_run()
    await eventually(game_in(table, table.channel), None)
    await a_day_passes(table)
    assert calls_to(table, table.channel, since) == 1


async def _set_number(games: GameService, channel_id: int) -> int | None:
    active = await games.in_channel(channel_id)
    return None if active is None else active.set_number


# -- challenges ------------------------------------------------------------------------------


async def waiting_total(challenges: ChallengeService, guild_id: int) -> int:
    """How many challenges open to anyone wait in server ``guild_id``."""
    return (await challenges.waiting_for_anyone(guild_id)).total


async def test_a_challenge_in_a_deleted_channel_no_longer_holds_its_challenger(
    table: Harness,
) -> None:
    """alice's challenge open to anyone in #lobby is closed with #lobby: she may open another in
    #side at once (one such challenge per member and server), and the deleted one is not
    marked expired ten minutes later (no edit is tried in #lobby)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.alice, "challenge", {"sets": 1}, channel=lobby)
    since = len(table.standin.rest_log)
    await table.standin.delete_channel(lobby)
    assert table.bot is not None
    challenges = table.bot.services.challenges
    await eventually(lambda: waiting_total(challenges, table.guild.id), 0)
    side = table.guild.channel("side")
    again = await table.reply_text(table.alice, "challenge", {"sets": 1}, channel=side)
    assert not again.ephemeral, again.content
    table.advance(timedelta(minutes=11))
    await timers_checked(table)
    assert calls_to(table, lobby, since, "PATCH") == 0


# -- Unknown Channel that is not a deletion ---------------------------------------------------


async def test_a_live_channel_refused_as_unknown_once_keeps_its_game(table: Harness) -> None:
    """Discord wrongly answers alice's half-time reminder with Unknown Channel (as in outages)
    while #games is there: asked again, Discord has the channel, so the game goes on."""
    await channel_game(table)
    path = f"/channels/{table.channel.id}/messages"
    refused = table.standin.fail_rest(
        404, seconds=60, matching=lambda method, p: method == "POST" and path in p, code=10003
    )
    table.advance(timedelta(hours=12, seconds=1))  # alice's reminder falls due
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=20)
    await timers_checked(table)
    assert await game_in(table, table.channel)() is not None


async def test_a_channel_unknown_while_its_server_is_unavailable_keeps_its_game(
    table: Harness,
) -> None:
    """The server is in an outage (Discord says it is unavailable) and every request about
    #games answers Unknown Channel: nothing is aborted on Discord's word then."""
    await channel_game(table)
    await table.standin.guild_unavailable(table.guild)
    channel = f"/channels/{table.channel.id}"
    refused = table.standin.fail_rest(
        404, seconds=60, matching=lambda method, p: channel in p, code=10003
    )
    table.advance(timedelta(hours=12, seconds=1))
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=20)
    await timers_checked(table)
    assert await game_in(table, table.channel)() is not None


# -- the bot removed from the server ---------------------------------------------------------


async def test_the_games_of_a_server_that_removed_the_bot_are_aborted_unrated(
    table: Harness,
) -> None:
    """The bot is kicked from the server: its game there is aborted at once, and a day later
    nobody has lost on time and nothing was posted (the bot cannot post there)."""
    await channel_game(table)
    since = len(table.standin.rest_log)
    await table.standin.remove_bot_from_guild(table.guild)
    await eventually(game_in(table, table.channel), None)
    await a_day_passes(table)
    assert sum(calls_to(table, ch, since) for ch in table.guild.channels) == 0
    assert await rated_players(table) == 0


async def test_a_server_that_removed_the_bot_while_it_was_away_has_its_games_aborted(
    table: Harness,
) -> None:
    """The bot is kicked while it is stopped: Discord no longer lists the server when it comes
    back, and once Discord confirms the bot cannot see it, its game is aborted (it timed out,
    rated, a day later)."""
    await channel_game(table)
    await table.stop()
    await table.standin.remove_bot_from_guild(table.guild)  # nobody is connected to be told
    await table.start()
    await eventually(game_in(table, table.channel), None)
    await a_day_passes(table)
    assert await rated_players(table) == 0


async def test_challenges_in_a_server_that_removed_the_bot_while_it_was_away_are_withdrawn(
    table: Harness,
) -> None:
    """alice has five challenges open in a server that kicks the bot while it is stopped: at
    the start, once Discord confirms the bot cannot see it, they are withdrawn, so her
    challenge in another server is not refused for five she could not withdraw."""
    elsewhere = table.standin.add_guild("Elsewhere", channels=["play"])
    alice = table.standin.add_member(elsewhere, table.alice.user)
    carol = table.standin.add_member(elsewhere, table.carol.user)
    for n in range(5):
        member = table.standin.add_member(table.guild, f"m{n}")
        posted = await table.reply_text(table.alice, "challenge", {"opponent": member})
        assert not posted.ephemeral, posted.content
    await table.stop()
    await table.standin.remove_bot_from_guild(table.guild)  # nobody is connected to be told
    await table.start()
    await eventually(lambda: open_challenges(table), 0)
    posted = await (
        await table.standin.slash(
            elsewhere, elsewhere.channel("play"), alice, "challenge", {"opponent": carol}
        )
    ).wait_original()
    assert not posted.ephemeral, posted.content


async def open_challenges(table: Harness) -> int:
    """How many challenges are open, in every server."""
    with sqlite3.connect(table.db_path, timeout=10) as raw:
        [(count,)] = raw.execute("SELECT count(*) FROM challenges WHERE status = 'open'")
    return int(count)


# -- the daily puzzle ------------------------------------------------------------------------


async def test_a_daily_puzzle_whose_channel_is_deleted_is_switched_off(table: Harness) -> None:
    """#lobby, where the daily puzzle is posted, is deleted: the daily puzzle is off (an
    admin sees so with /puzzle daily) and no post is tried there at the next hour."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    since = len(table.standin.rest_log)
    await table.standin.delete_channel(lobby)
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    await eventually(lambda: puzzles.daily_setting(table.guild.id), None)
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content == (
        "The daily puzzle was switched off when its channel was deleted: "
        "`/puzzle daily channel:#somewhere` switches it on in another."
    )
    await a_day_passes(table)
    assert sum(calls_to(table, lobby, since, method) for method in ("GET", "POST")) == 0


async def test_a_server_that_invites_the_bot_back_is_told_why_its_daily_puzzle_is_off(
    table: Harness,
) -> None:
    """The bot is kicked and invited back: /settings and /puzzle daily say the daily puzzle
    was switched off when it was removed (they said only "off"); once an admin switches it on
    and off again, they no longer do."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    await table.standin.remove_bot_from_guild(table.guild)
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    await eventually(lambda: puzzles.daily_setting(table.guild.id), None)
    await table.standin.invite_bot_back(table.guild)
    bot = table.bot
    await table.standin.wait_until(lambda: bot.get_guild(table.guild.id) is not None, timeout=5)
    why = (
        "The daily puzzle was switched off when I was removed from this server: "
        "`/puzzle daily channel:#somewhere` switches it on again."
    )
    settings = await table.reply_text(table.admin, "settings")
    assert f"\nDaily puzzle: **off**\n{why}\n" in settings.content, settings.content
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content == why
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby})
    await table.reply_text(table.admin, "puzzle daily", {"off": True})
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content.startswith("The daily puzzle is off: "), shown.content


async def test_a_daily_only_server_that_removed_the_bot_while_it_was_away_is_told_why(
    table: Harness,
) -> None:
    """A server with a daily puzzle and no game kicks the bot while it is stopped: at the
    start Discord no longer lists it, and once Discord confirms the bot cannot see it, the
    daily puzzle is switched off with why (its posts were refused and tried again every hour,
    and an admin inviting the bot back read only "off"). No post is tried there."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    await table.stop()
    await table.standin.remove_bot_from_guild(table.guild)  # nobody is connected to be told
    await table.start()
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    await eventually(lambda: puzzles.daily_setting(table.guild.id), None)
    since = len(table.standin.rest_log)
    await a_day_passes(table)
    assert sum(calls_to(table, ch, since) for ch in table.guild.channels) == 0
    await table.standin.invite_bot_back(table.guild)
    bot = table.bot
    await table.standin.wait_until(lambda: bot.get_guild(table.guild.id) is not None, timeout=5)
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content == (
        "The daily puzzle was switched off when I was removed from this server: "
        "`/puzzle daily channel:#somewhere` switches it on again."
    )


async def test_a_daily_puzzle_channel_deleted_unseen_is_switched_off_at_the_first_post(
    table: Harness,
) -> None:
    """#lobby is deleted while the bot is stopped: the daily post there is refused as Unknown
    Channel once, and the daily puzzle is switched off instead of being tried for ever."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    await table.stop()
    await table.standin.delete_channel(lobby)
    await table.start()
    since = len(table.standin.rest_log)
    table.advance(timedelta(hours=1, minutes=1))
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    await eventually(lambda: puzzles.daily_setting(table.guild.id), None)
    await a_day_passes(table)
    # Its history (read first, so that no day is posted twice) refused, the channel asked
    # for once to be sure, and nothing more.
    assert (calls_to(table, lobby, since, "GET"), calls_to(table, lobby, since)) == (2, 0)
