"""A game's channel, thread or server gone, through the services on both backends: its games
are aborted as /abort aborts them, and nothing there is owed or waited for any more."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from bot.services import ActiveGame, ChallengeStatus, Services
from bot.services.domain import Takeback
from bot.shards import Shards
from bot.storage import vanished
from bot.storage.errors import DatabaseBusy
from tests.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, OTHER_CHANNEL, FakeClock

THREAD = 9_000_000_001
"""A thread of CHANNEL started from a challenge message."""
OTHER_GUILD = 1001
LATER = timedelta(minutes=11)
"""Past the outbox's grace, a challenge's ten minutes and a finished thread's archiving."""


async def game_in(
    services: Services, channel_id: int = CHANNEL, challenger: int = ALICE
) -> ActiveGame:
    """``challenger`` (attackers) and bob start a match in ``channel_id``."""
    challenge = await services.challenges.create(GUILD, channel_id, challenger, BOB)
    return await services.challenges.accept(challenge.challenge_id, BOB)


async def thread_game(services: Services) -> ActiveGame:
    """alice and bob start a match in THREAD, started from their challenge in CHANNEL."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(challenge.challenge_id, 5_000)
    return await services.challenges.accept(challenge.challenge_id, BOB, thread_id=THREAD)


async def test_a_game_whose_channel_is_gone_is_aborted_unrated(services: Services) -> None:
    """The channel's game ends as /abort ends it: no winner, the match aborted, unrated."""
    await game_in(services)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    [end] = await services.vanished.channel_gone(CHANNEL)
    assert (end.winner_id, end.rating_changes) == (None, ())
    assert end.match_end is not None
    assert end.match_end.aborted
    assert await services.games.in_channel(CHANNEL) is None


async def test_the_aborted_set_is_returned_even_when_the_rest_must_wait(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database is busy after the abort is stored: the ended set still comes back (its
    line must say the match was aborted; a second call would end nothing), the rest waits."""
    await game_in(services)

    async def busy(*_args: object) -> None:
        raise DatabaseBusy("the write lock could not be had")

    monkeypatch.setattr(vanished, "close_in_channels", busy)
    [end] = await services.vanished.channel_gone(CHANNEL)
    assert end.match_end is not None
    assert end.match_end.aborted
    assert await services.games.in_channel(CHANNEL) is None


async def test_no_board_is_owed_to_a_channel_that_is_gone(
    services: Services, clock: FakeClock
) -> None:
    """Neither the board of the last move nor the aborted set's final board is owed."""
    await game_in(services)
    await services.games.play(CHANNEL, ALICE, "d1-c1")  # its board never went out
    await services.vanished.channel_gone(CHANNEL)
    clock.advance(LATER)
    assert await services.announcements.due() == []


async def test_a_challenge_in_a_channel_that_is_gone_no_longer_holds_its_challenger(
    services: Services,
) -> None:
    """alice's challenge open to anyone is withdrawn with its channel: she may open another."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, None)
    await services.vanished.channel_gone(CHANNEL)
    assert (await services.challenges.get(first.challenge_id)).status is ChallengeStatus.WITHDRAWN
    await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, None)


async def test_a_takeback_request_in_a_channel_that_is_gone_is_lapsed(
    services: Services, clock: FakeClock
) -> None:
    """An open takeback request is closed with its game: nothing is left to edit later."""
    await game_in(services)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    await services.vanished.channel_gone(CHANNEL)
    clock.advance(LATER)
    assert await services.takebacks.lapse_stale() == []


async def test_a_thread_game_is_aborted_with_the_channel_its_thread_is_in(
    services: Services,
) -> None:
    """Deleting a channel deletes its threads: the game in one of them is aborted too."""
    await thread_game(services)
    [end] = await services.vanished.channel_gone(CHANNEL)
    assert end.game.channel_id == THREAD
    assert await services.games.in_channel(THREAD) is None


async def test_a_deleted_thread_is_not_archived_later(services: Services, clock: FakeClock) -> None:
    """The aborted match's thread is gone: it is not due to be archived."""
    await thread_game(services)
    await services.vanished.channel_gone(THREAD)
    clock.advance(LATER)
    assert await services.boards.archives_due() == []


async def test_a_place_reported_gone_twice_ends_nothing_more(services: Services) -> None:
    """A second report (the event, then a refused post) finds nothing left to abort."""
    await game_in(services)
    await services.vanished.channel_gone(CHANNEL)
    assert await services.vanished.channel_gone(CHANNEL) == []


async def test_another_channels_game_goes_on(services: Services) -> None:
    """Only the games of the place that is gone are aborted."""
    await game_in(services)
    await game_in(services, OTHER_CHANNEL, CAROL)
    await services.vanished.channel_gone(CHANNEL)
    assert await services.games.in_channel(OTHER_CHANNEL) is not None


async def test_every_game_of_a_server_the_bot_left_is_aborted(services: Services) -> None:
    """Removed from a server, the bot aborts each of its games; another server's goes on."""
    await game_in(services)
    await game_in(services, OTHER_CHANNEL, CAROL)
    other = await services.challenges.create(OTHER_GUILD, 3000, ALICE, BOB)
    await services.challenges.accept(other.challenge_id, BOB)
    ended = await services.vanished.guild_gone(GUILD)
    assert sorted(end.game.channel_id for end in ended) == [CHANNEL, OTHER_CHANNEL]
    assert await services.games.in_channel(3000) is not None


async def test_no_challenge_of_a_server_the_bot_left_stays_open(services: Services) -> None:
    """Removed from a server, its challenges are withdrawn."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.vanished.guild_gone(GUILD)
    assert (await services.challenges.get(challenge.challenge_id)).status is (
        ChallengeStatus.WITHDRAWN
    )


async def test_no_match_line_is_owed_in_a_server_the_bot_left(
    services: Services, clock: FakeClock
) -> None:
    """Removed from a server, the result owed on a match's line there is owed no more: Discord
    refuses every edit there (403), which would be tried hourly for ever."""
    ended = await thread_game(services)
    await services.games.resign(THREAD, ALICE)
    await services.announcements.line_owed(ended.set_id)
    await services.vanished.guild_gone(GUILD)
    clock.advance(LATER)
    assert await services.announcements.lines_due() == []


async def test_the_challenges_withdrawn_with_a_server_are_logged(
    services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    """Removed from a server (an event, or found at start-up), the log says how many open
    challenges of that server were withdrawn; told again, it withdraws and logs nothing."""
    await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, None)
    with caplog.at_level(logging.INFO, logger="bot.services.vanished"):
        await services.vanished.guild_gone(GUILD)
        await services.vanished.guild_gone(GUILD)
    lines = [r.getMessage() for r in caplog.records if "challenge" in r.getMessage()]
    assert lines == [f"Withdrew 2 open challenge(s) of server {GUILD}: the bot was removed"]


async def test_the_challenges_withdrawn_with_a_channel_are_logged(
    services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    """A deleted channel's open challenges are withdrawn with a log line saying how many, of
    which channel and server (as a removed server's are); another channel's stay open, and
    told again, it withdraws and logs nothing."""
    await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.create(GUILD, CHANNEL, CAROL, None)
    elsewhere = await services.challenges.create(GUILD, OTHER_CHANNEL, BOB, CAROL)
    with caplog.at_level(logging.INFO, logger="bot.services.vanished"):
        await services.vanished.channel_gone(CHANNEL)
        await services.vanished.channel_gone(CHANNEL)
    lines = [r.getMessage() for r in caplog.records if "challenge" in r.getMessage()]
    assert lines == [
        f"Withdrew 2 open challenge(s) of channel {CHANNEL} of server {GUILD}: it is gone"
    ]
    assert (await services.challenges.get(elsewhere.challenge_id)).status is ChallengeStatus.OPEN


async def test_only_the_channels_of_games_out_of_time_are_named(
    services: Services, clock: FakeClock
) -> None:
    """Before games are lost on time, the channel of each one out of time is named (to check
    it is still there); a game with time left is not."""
    await game_in(services)
    clock.advance(timedelta(hours=12))
    await game_in(services, OTHER_CHANNEL, CAROL)
    clock.advance(timedelta(hours=12))
    assert (await services.clocks.out_of_time()).channel_ids == [CHANNEL]


async def test_a_daily_puzzle_whose_channel_is_gone_is_switched_off(services: Services) -> None:
    """The daily puzzle posted in a deleted channel is switched off (it was tried hourly for
    ever); another server's, posted elsewhere, goes on."""
    await services.puzzles.set_daily(GUILD, CHANNEL, 12)
    await services.puzzles.set_daily(OTHER_GUILD, OTHER_CHANNEL, 12)
    await services.vanished.channel_gone(CHANNEL)
    assert await services.puzzles.daily_setting(GUILD) is None
    assert await services.puzzles.daily_setting(OTHER_GUILD) is not None


async def test_the_daily_puzzle_of_a_server_the_bot_left_is_switched_off(
    services: Services,
) -> None:
    """Removed from a server, the bot no longer tries to post its daily puzzle."""
    await services.puzzles.set_daily(GUILD, CHANNEL, 12)
    await services.vanished.guild_gone(GUILD)
    assert await services.puzzles.daily_setting(GUILD) is None


async def test_the_servers_served_are_those_with_a_game_in_progress(services: Services) -> None:
    """Each server with a game in progress is named once (to look for one that removed the
    bot while it was away); a server whose games are over is not."""
    await game_in(services)
    await game_in(services, OTHER_CHANNEL, CAROL)
    finished = await services.challenges.create(OTHER_GUILD, 3000, ALICE, BOB)
    await services.challenges.accept(finished.challenge_id, BOB)
    await services.games.abort(3000)
    assert await services.vanished.guilds_served() == [GUILD]


async def test_a_server_with_only_a_daily_puzzle_is_served(services: Services) -> None:
    """A server whose daily puzzle is on is named too, without a game (one that removed the
    bot while it was away would be tried every day, in vain); once off, it is not."""
    await game_in(services)
    await services.puzzles.set_daily(OTHER_GUILD, OTHER_CHANNEL, 12)
    await services.puzzles.set_daily(GUILD, CHANNEL, 12)
    assert await services.vanished.guilds_served() == [GUILD, OTHER_GUILD]
    await services.puzzles.stop_daily(OTHER_GUILD)
    assert await services.vanished.guilds_served() == [GUILD]


async def test_a_server_with_only_an_open_challenge_is_served(services: Services) -> None:
    """A server where only a challenge is open is named too (removed while the bot was away,
    its challenge would count towards alice's five in every server, and nobody could withdraw
    it); once it is withdrawn, it is not."""
    await game_in(services)
    waiting = await services.challenges.create(OTHER_GUILD, OTHER_CHANNEL, ALICE, CAROL)
    assert await services.vanished.guilds_served() == [GUILD, OTHER_GUILD]
    await services.challenges.withdraw(waiting.challenge_id, ALICE)
    assert await services.vanished.guilds_served() == [GUILD]


async def test_a_shard_process_names_only_the_servers_of_its_shards(
    database: str, clock: FakeClock
) -> None:
    """With two shard processes, each names only its own shards' servers with a daily puzzle:
    a server of the other shard is missing from its READY, but not gone."""
    ours, theirs = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    try:
        await shard_0.puzzles.set_daily(ours, CHANNEL, 12)
        await shard_0.puzzles.set_daily(theirs, OTHER_CHANNEL, 12)
        assert await shard_0.vanished.guilds_served() == [ours]
    finally:
        await shard_0.close()
