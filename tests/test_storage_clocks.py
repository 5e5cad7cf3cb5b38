"""The deadlines across the bot's absence: which timers' notes stand for a process's servers,
and the time given back at start-up to the challenges and takeback requests open then (both
backends; the move clocks' own tests are in tests/test_services_match.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from bot.services import ActiveGame, Services
from bot.services.absence import Expiring, MovedExpiry, owed
from bot.services.domain import Takeback
from bot.services.held import (
    BackLine,
    BackLineOwed,
    Held,
    Hold,
    HoldKind,
    PlayerHold,
    ShutOut,
)
from bot.shards import EVERY, Shards, Share
from bot.storage import clocks, takebacks
from bot.storage.clocks import (
    Deadline,
    Given,
    Running,
    covers,
    given_since,
    running,
    shards_key,
)
from bot.storage.connection import Dialect
from tests.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, OTHER_CHANNEL, FakeClock


def test_a_process_is_named_by_its_share_of_the_shards() -> None:
    """One process for every shard is 'every'; a share is written as the logs write it."""
    assert shards_key(EVERY) == "every"
    assert shards_key(Shards(4, (0, 1))) == "0-1 of 4"


def test_only_another_share_of_the_same_count_does_not_stand_for_ours() -> None:
    """Our own note, one process for all, or another count of shards may have driven our
    servers; the other share of the same count did not."""
    ours = Shards(2, (0,))
    assert covers("0 of 2", ours)
    assert covers("every", ours)
    assert covers("0-3 of 8", ours)
    assert not covers("1 of 2", ours)
    assert covers("1 of 2", EVERY)
    assert covers("unreadable", ours)


def test_a_share_keeps_the_servers_an_earlier_process_drove_last() -> None:
    """Of shards 2-3 of 4, those shards 3, 6 and 7 of 8 drove but not shard 7 (a newer note's):
    the servers of shards 3 and 6 of 8; the SQL condition keeps the same."""
    share = Share(4, (2, 3), Shards(8, (3, 6, 7)), (Shards(8, (7,)),))
    guilds = [shard << 22 for shard in range(16)]
    kept = [guild >> 22 for guild in guilds if share.owns(guild)]
    assert kept == [3, 6, 11, 14]
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE servers (guild_id INTEGER)")
        db.executemany("INSERT INTO servers VALUES (?)", [(guild,) for guild in guilds])
        rows = db.execute(
            f"SELECT guild_id >> 22 FROM servers WHERE {share.where('guild_id')} ORDER BY 1"
        )
        assert [row[0] for row in rows] == kept


async def start_set(services: Services, guild: int, channel: int) -> ActiveGame:
    """Alice challenges bob in ``channel``, he accepts, and she plays her first move."""
    challenge = await services.challenges.create(guild, channel, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    return (await services.games.play(channel, ALICE, "d1-c1")).game


async def ask(services: Services, channel: int) -> Takeback:
    """Alice asks bob to take her last move in ``channel`` back."""
    asked = await services.takebacks.ask(channel, ALICE)
    assert isinstance(asked, Takeback)
    return asked


async def test_a_restart_gives_open_challenges_back_the_time_the_bot_was_away(
    services: Services, clock: FakeClock
) -> None:
    """The timers last ran a minute after alice challenged bob, the bot came back an hour
    later: the challenge's expiry is moved on by that hour, so bob can still accept it. Her
    challenge to carol had expired before the timers last ran: it gets nothing and expires at
    the first check."""
    await services.clocks.resume_clocks()  # the first start
    stale = await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL)
    clock.advance(timedelta(minutes=11))
    fresh = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(fresh.challenge_id, 5001)
    clock.advance(timedelta(minutes=1))
    await services.clocks.timers_ran()
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.resume_clocks()
    new_expiry = fresh.expires_at + timedelta(hours=1)
    assert resumed.expiries == [
        MovedExpiry(Expiring.CHALLENGE, fresh.challenge_id, CHANNEL, 5001, new_expiry)
    ]
    assert (await services.challenges.get(fresh.challenge_id)).expires_at == new_expiry
    assert (await services.challenges.get(stale.challenge_id)).expires_at == stale.expires_at
    assert [c.challenge_id for c in await services.challenges.expire_due()] == [stale.challenge_id]
    clock.advance(timedelta(minutes=8))
    assert (await services.challenges.accept(fresh.challenge_id, BOB)).attacker_id == ALICE


async def test_a_restart_gives_open_takeback_requests_back_the_time_the_bot_was_away(
    services: Services, clock: FakeClock
) -> None:
    """Alice asked bob to take her move back a minute before the timers last ran, and the bot
    came back an hour later: the request's expiry is moved on by that hour (as the set's
    clock), so bob can still accept it. Her request in the other channel had lapsed before the
    timers last ran: it gets nothing and lapses at the first check."""
    await services.clocks.resume_clocks()  # the first start
    await start_set(services, GUILD, OTHER_CHANNEL)
    stale = await ask(services, OTHER_CHANNEL)
    clock.advance(timedelta(minutes=11))
    game = await start_set(services, GUILD, CHANNEL)
    fresh = await ask(services, CHANNEL)
    await services.takebacks.set_message(fresh.takeback_id, 6001)
    clock.advance(timedelta(minutes=1))
    await services.clocks.timers_ran()
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.resume_clocks()
    assert resumed.expiries == [
        MovedExpiry(
            Expiring.TAKEBACK,
            fresh.takeback_id,
            CHANNEL,
            6001,
            fresh.expires_at + timedelta(hours=1),
        )
    ]
    assert (game.set_id, CHANNEL, game.deadline + timedelta(hours=1)) in resumed.clocks
    assert [t.takeback_id for t in await services.takebacks.lapse_stale()] == [stale.takeback_id]
    clock.advance(timedelta(minutes=8))
    undone = await services.takebacks.answer(fresh.takeback_id, BOB, accept=True)
    assert (undone.ply, undone.player_to_move) == (0, ALICE)


async def test_a_stale_note_never_gives_a_request_more_than_it_had_been_open(
    services: Services, clock: FakeClock
) -> None:
    """The timers' last note is a week old (an earlier layout of the shards, say); alice asked
    a takeback and challenged carol four minutes before the bot came back: each gets back the
    four minutes it had been open — a full ten again — not the week."""
    await services.clocks.timers_ran()
    clock.advance(timedelta(days=7))
    await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    challenge = await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL)
    clock.advance(timedelta(minutes=4))
    resumed = await services.clocks.resume_clocks()
    ten_from_now = clock.now + timedelta(minutes=10)
    assert sorted((m.kind.value, m.row_id, m.expires_at) for m in resumed.expiries) == [
        ("challenge", challenge.challenge_id, ten_from_now),
        ("takeback request", takeback.takeback_id, ten_from_now),
    ]


async def test_each_process_gives_back_only_its_own_servers_requests(
    database: str, clock: FakeClock
) -> None:
    """The process of shard 0 of 2 moves on the challenge and takeback request of its own
    server; those of shard 1's server keep their expiry (and run out there, unless shard 1's
    own start-up gives them back their time)."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    opened = await Services.open(database, clock=clock)
    try:
        asked = {}
        challenged = {}
        for guild, game_channel, challenge_channel in (
            (guild_a, CHANNEL, CHANNEL + 10),
            (guild_b, OTHER_CHANNEL, OTHER_CHANNEL + 10),
        ):
            await start_set(opened, guild, game_channel)
            asked[guild] = await ask(opened, game_channel)
            challenged[guild] = await opened.challenges.create(
                guild, challenge_channel, ALICE, CAROL
            )
        await opened.clocks.timers_ran()
    finally:
        await opened.close()
    clock.advance(timedelta(hours=1))
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    shard_1 = await Services.open(database, clock=clock, shards=Shards(2, (1,)))
    try:
        resumed = await shard_0.clocks.resume_clocks()
        mine, theirs = asked[guild_a], asked[guild_b]
        assert sorted((m.kind.value, m.row_id) for m in resumed.expiries) == [
            ("challenge", challenged[guild_a].challenge_id),
            ("takeback request", mine.takeback_id),
        ]
        assert [c.challenge_id for c in await shard_1.challenges.expire_due()] == [
            challenged[guild_b].challenge_id
        ]
        assert [t.takeback_id for t in await shard_1.takebacks.lapse_stale()] == [
            theirs.takeback_id
        ]
        assert await shard_0.challenges.expire_due() == []
        assert await shard_0.takebacks.lapse_stale() == []
    finally:
        await shard_0.close()
        await shard_1.close()


async def test_a_new_layout_gives_each_server_the_absence_of_the_process_that_drove_it(
    database: str, clock: FakeClock
) -> None:
    """Shards 0 and 1 of 2 run; shard 1's process dies and, an hour later, both restart as 4
    shards, one process holding a server of each: the dead process's server is given its
    hour back (not only the minute since shard 0's last note), the living one's only that
    minute."""
    guild_0, guild_1 = 2 << 22, 3 << 22  # shards 0 and 1 of 2; both of shards 2-3 of 4
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    shard_1 = await Services.open(database, clock=clock, shards=Shards(2, (1,)))
    try:
        await shard_0.clocks.resume_clocks()  # first start of each
        await shard_1.clocks.resume_clocks()
        alive = await start_set(shard_0, guild_0, CHANNEL)
        dead = await start_set(shard_1, guild_1, OTHER_CHANNEL)
        await shard_1.clocks.timers_ran()  # shard 1's last note: it is killed now
        clock.advance(timedelta(hours=1))
        await shard_0.clocks.timers_ran()  # shard 0 runs on an hour
    finally:
        await shard_0.close()
        await shard_1.close()
    clock.advance(timedelta(minutes=1))
    relaid = await Services.open(database, clock=clock, shards=Shards(4, (2, 3)))
    try:
        resumed = await relaid.clocks.resume_clocks()
        assert sorted(resumed.clocks) == [
            (alive.set_id, CHANNEL, alive.deadline + timedelta(minutes=1)),
            (dead.set_id, OTHER_CHANNEL, dead.deadline + timedelta(hours=1, minutes=1)),
        ]
        assert resumed.away == timedelta(hours=1, minutes=1)
        assert await relaid.clocks.time_out_due() == []
    finally:
        await relaid.close()


async def test_a_server_outage_gives_back_only_that_servers_clocks_and_requests(
    services: Services, clock: FakeClock
) -> None:
    """Server GUILD was unavailable for an hour, the other server was not: the set, the
    takeback request and the challenge of GUILD are given the hour back; the other server's
    set and challenge keep their times (its players could play)."""
    other_guild = GUILD + 1
    game = await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    challenge = await services.challenges.create(GUILD, CHANNEL + 10, BOB, CAROL)
    elsewhere = await start_set(services, other_guild, OTHER_CHANNEL)
    other_challenge = await services.challenges.create(other_guild, OTHER_CHANNEL + 10, BOB, CAROL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(since, guild_id=GUILD)
    hour = timedelta(hours=1)
    assert resumed.clocks == [(game.set_id, CHANNEL, game.deadline + hour)]
    assert sorted((m.kind.value, m.row_id, m.expires_at) for m in resumed.expiries) == [
        ("challenge", challenge.challenge_id, challenge.expires_at + hour),
        ("takeback request", takeback.takeback_id, takeback.expires_at + hour),
    ]
    assert (await services.games.get(elsewhere.set_id)).deadline == elsewhere.deadline
    kept = await services.challenges.get(other_challenge.challenge_id)
    assert kept.expires_at == other_challenge.expires_at


async def test_a_closed_thread_gives_back_only_its_own_game_and_request(
    services: Services, clock: FakeClock
) -> None:
    """The thread CHANNEL was locked for an hour, OTHER_CHANNEL of the same server was not:
    only CHANNEL's set and takeback request are given the hour back."""
    game = await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    elsewhere = await start_set(services, GUILD, OTHER_CHANNEL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(since, channel_id=CHANNEL)
    hour = timedelta(hours=1)
    assert resumed.clocks == [(game.set_id, CHANNEL, game.deadline + hour)]
    assert [(m.kind, m.row_id, m.expires_at) for m in resumed.expiries] == [
        (Expiring.TAKEBACK, takeback.takeback_id, takeback.expires_at + hour)
    ]
    assert (await services.games.get(elsewhere.set_id)).deadline == elsewhere.deadline


async def test_holds_are_kept_once_and_each_process_takes_up_its_own(
    database: str, clock: FakeClock
) -> None:
    """A server's, a thread's and a shard's holds are kept (held again, a place keeps its
    first start); a process of shard 0 of 2 takes up its own server's and thread's holds and
    the shards', not shard 1's server's; a hold released is gone."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    opened = await Services.open(database, clock=clock)
    try:
        start = clock.now
        await opened.holds.hold(Hold(HoldKind.SERVER, guild_b, start, guild_b))
        await opened.holds.hold(Hold(HoldKind.THREAD, CHANNEL, start, guild_a))
        await opened.holds.hold(Hold(HoldKind.SHARD, 1, start, shard_count=2))
        later = start + timedelta(hours=1)
        await opened.holds.hold(Hold(HoldKind.THREAD, CHANNEL, later, guild_a))
    finally:
        await opened.close()
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    try:
        assert sorted(await shard_0.holds.kept(), key=lambda h: h.kind.value) == [
            Hold(HoldKind.SHARD, 1, start, shard_count=2),
            Hold(HoldKind.THREAD, CHANNEL, start, guild_a),
        ]
        await shard_0.holds.release(HoldKind.SHARD, 1)
        assert [h.kind for h in await shard_0.holds.kept()] == [HoldKind.THREAD]
    finally:
        await shard_0.close()


async def test_a_move_is_held_once_by_its_players_hold_alone(
    services: Services, clock: FakeClock
) -> None:
    """bob's move counts as held once (bot/player_holds.py) when a hold of his ended with its
    time given back — not when a locked thread's did, from his turn's start past his deadline;
    a takeback back to the same ply begins a turn not held yet."""
    game = await start_set(services, GUILD, CHANNEL)
    began = clock.now

    async def held(since: datetime) -> bool:
        return await services.holds.held_this_move(game.set_id, game.ply, since)

    assert not await held(began)
    clock.advance(game.time_per_move + timedelta(hours=1))
    thread = (HoldKind.THREAD, CHANNEL)
    await services.clocks.give_back_closed(began, channel_id=CHANNEL, releasing=thread)
    assert not await held(began), "a locked thread's hold counts as bob's"
    clock.advance(timedelta(hours=1))
    player = (HoldKind.PLAYER, CHANNEL)
    await services.clocks.give_back_closed(began, channel_id=CHANNEL, releasing=player)
    assert await held(began)
    assert not await held(clock.now), "a turn begun since (a takeback to this ply) was held"


async def test_a_players_hold_is_kept_until_its_time_is_given_back(
    database: str, clock: FakeClock
) -> None:
    """bob's hold (bot/player_holds.py) is kept once (held again, it keeps its start) and read
    back by the process of its server's shard alone; it ends in the transaction that gives
    its time back."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    opened = await Services.open(database, clock=clock)
    try:
        holds = []
        for guild, channel in ((guild_a, CHANNEL), (guild_b, OTHER_CHANNEL)):
            game = await start_set(opened, guild, channel)
            hold = PlayerHold(channel, game.set_id, game.ply, guild, BOB, clock.now)
            await opened.holds.hold_player(hold)
            holds.append(hold)
        later = replace(holds[0], since=clock.now + timedelta(hours=1))
        await opened.holds.hold_player(later)
        assert await opened.holds.players_held() == holds
    finally:
        await opened.close()
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    try:
        assert await shard_0.holds.players_held() == holds[:1]
        clock.advance(timedelta(hours=1))
        await shard_0.clocks.give_back_closed(
            holds[0].since, channel_id=CHANNEL, releasing=(HoldKind.PLAYER, CHANNEL)
        )
        assert await shard_0.holds.players_held() == []
        assert await shard_0.holds.held_this_move(holds[0].set_id, holds[0].ply, holds[0].since)
    finally:
        await shard_0.close()


async def test_a_players_hold_keeps_its_line_owed_until_posted(
    database: str, clock: FakeClock
) -> None:
    """bob's hold is stored with the line saying why he is held owed; read back after a
    restart it is still owed, and once noted posted it is owed no more."""
    opened = await Services.open(database, clock=clock)
    try:
        game = await start_set(opened, GUILD, CHANNEL)
        hold = PlayerHold(
            CHANNEL, game.set_id, game.ply, GUILD, BOB, clock.now, line_owed=ShutOut.TIMED_OUT
        )
        await opened.holds.hold_player(hold)
    finally:
        await opened.close()
    opened = await Services.open(database, clock=clock)
    try:
        assert await opened.holds.players_held() == [hold]
        await opened.holds.player_line_posted(CHANNEL)
        assert await opened.holds.players_held() == [replace(hold, line_owed=None)]
    finally:
        await opened.close()


async def test_a_players_hold_given_back_keeps_its_line_owed_until_posted(
    database: str, clock: FakeClock
) -> None:
    """bob's hold gives his time back owing the line that says his clock runs again, in the
    same transaction: read back after a restart (by his server's process alone) it is still
    owed, and once noted posted it is owed no more; a give-back owing none owes none."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    opened = await Services.open(database, clock=clock)
    try:
        game = await start_set(opened, guild_a, CHANNEL)
        other = await start_set(opened, guild_b, OTHER_CHANNEL)
        clock.advance(timedelta(hours=1))
        for channel, line in ((CHANNEL, BackLine.HELD_A_DAY), (OTHER_CHANNEL, None)):
            await opened.clocks.give_back_closed(
                clock.now - timedelta(hours=1),
                channel_id=channel,
                releasing=(HoldKind.PLAYER, channel),
                line_owed=None if line is None else line.value,
            )
        assert other.set_id != game.set_id
    finally:
        await opened.close()
    shard_0 = await Services.open(database, clock=clock, shards=Shards(2, (0,)))
    try:
        owed = BackLineOwed(game.set_id, game.ply, CHANNEL, BackLine.HELD_A_DAY)
        assert await shard_0.holds.back_lines_owed() == [owed]
        await shard_0.holds.back_line_posted(game.set_id, game.ply)
        assert await shard_0.holds.back_lines_owed() == []
    finally:
        await shard_0.close()


async def test_a_hold_ends_with_its_time_given_back(services: Services, clock: FakeClock) -> None:
    """The thread CHANNEL's hold is released in the same transaction as its hour is given
    back (a restart after it takes up no hold to give the hour again)."""
    game = await start_set(services, GUILD, CHANNEL)
    since = clock.now
    await services.holds.hold(Hold(HoldKind.THREAD, CHANNEL, since, GUILD))
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(
        since, channel_id=CHANNEL, releasing=(HoldKind.THREAD, CHANNEL)
    )
    assert resumed.clocks == [(game.set_id, CHANNEL, game.deadline + timedelta(hours=1))]
    assert await services.holds.kept() == []


async def test_a_dropped_shard_gives_back_only_its_own_servers_clocks(
    services: Services, clock: FakeClock
) -> None:
    """Shard 1 of 2 was dropped for an hour: its server's set is given the hour back, the
    set in shard 0's server is not (its players could play)."""
    guild_a, guild_b = 4 << 22, 5 << 22  # shards 0 and 1 of 2
    kept = await start_set(services, guild_a, CHANNEL)
    held = await start_set(services, guild_b, OTHER_CHANNEL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(since, shard=Shards(2, (1,)))
    assert resumed.clocks == [(held.set_id, OTHER_CHANNEL, held.deadline + timedelta(hours=1))]
    assert (await services.games.get(kept.set_id)).deadline == kept.deadline


async def test_what_is_held_neither_expires_nor_lapses(
    services: Services, clock: FakeClock
) -> None:
    """A challenge and a takeback request past their expiry in a held server are left open;
    the same past their expiry elsewhere expire and lapse."""
    other_guild = GUILD + 1
    await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    challenge = await services.challenges.create(GUILD, CHANNEL + 10, BOB, CAROL)
    await start_set(services, other_guild, OTHER_CHANNEL)
    other_takeback = await ask(services, OTHER_CHANNEL)
    other_challenge = await services.challenges.create(other_guild, OTHER_CHANNEL + 10, BOB, CAROL)
    clock.advance(timedelta(minutes=11))
    held = Held(frozenset({GUILD}))
    expired = await services.challenges.expire_due(held=held)
    assert [c.challenge_id for c in expired] == [other_challenge.challenge_id]
    lapsed = await services.takebacks.lapse_stale(held=held)
    assert [t.takeback_id for t in lapsed] == [other_takeback.takeback_id]
    assert [c.challenge_id for c in await services.challenges.expire_due()] == [
        challenge.challenge_id
    ]
    assert [t.takeback_id for t in await services.takebacks.lapse_stale()] == [takeback.takeback_id]


async def test_a_restart_during_a_servers_outage_is_given_back_once(
    services: Services, clock: FakeClock
) -> None:
    """Two hours into alice's clock GUILD is unavailable for three hours; an hour in, the bot
    is stopped for an hour. The
    restart gives alice's clock that hour; the outage's end gives it the two hours left, not
    the restart's hour again. Her challenge had expired when the restart began (held, not
    expired): the restart gives it nothing and the outage all three hours."""
    game = await start_set(services, GUILD, CHANNEL)
    clock.advance(timedelta(hours=2))  # her clock has run two hours
    challenge = await services.challenges.create(GUILD, CHANNEL + 10, ALICE, CAROL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    await services.clocks.timers_ran()
    clock.advance(timedelta(hours=1))
    restarted = await services.clocks.resume_clocks()
    assert restarted.clocks == [(game.set_id, CHANNEL, game.deadline + timedelta(hours=1))]
    assert restarted.expiries == []
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(since, guild_id=GUILD)
    three_hours = timedelta(hours=3)
    assert resumed.clocks == [(game.set_id, CHANNEL, game.deadline + three_hours)]
    assert [(m.row_id, m.expires_at) for m in resumed.expiries] == [
        (challenge.challenge_id, challenge.expires_at + three_hours)
    ]


async def test_a_thread_opened_during_its_servers_outage_is_given_the_overlap_once(
    services: Services, clock: FakeClock
) -> None:
    """Two hours into alice's clock thread CHANNEL is locked; an hour later its server is
    unavailable; an hour on the
    thread is opened, and an hour after that the server is available. The thread's end gives
    alice's clock two hours, the server's one more (not the hour both covered again); the set
    in OTHER_CHANNEL, held by the server only, is given its two hours."""
    game = await start_set(services, GUILD, CHANNEL)
    other = await start_set(services, GUILD, OTHER_CHANNEL)
    clock.advance(timedelta(hours=2))  # the clocks have run two hours
    locked = clock.now
    clock.advance(timedelta(hours=1))
    outage = clock.now
    clock.advance(timedelta(hours=1))
    opened = await services.clocks.give_back_closed(locked, channel_id=CHANNEL)
    assert opened.clocks == [(game.set_id, CHANNEL, game.deadline + timedelta(hours=2))]
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.give_back_closed(outage, guild_id=GUILD)
    assert sorted(resumed.clocks) == [
        (game.set_id, CHANNEL, game.deadline + timedelta(hours=3)),
        (other.set_id, OTHER_CHANNEL, other.deadline + timedelta(hours=2)),
    ]


async def test_two_holds_ending_at_once_give_their_overlap_once(
    services: Services, clock: FakeClock
) -> None:
    """The thread CHANNEL and its server were both held for the same hour, and both holds end
    at once (two processes, say, on PostgreSQL): alice's clock is given the hour once."""
    game = await start_set(services, GUILD, CHANNEL)
    clock.advance(timedelta(hours=2))  # her clock has run two hours
    since = clock.now
    clock.advance(timedelta(hours=1))
    await asyncio.gather(
        services.clocks.give_back_closed(since, channel_id=CHANNEL),
        services.clocks.give_back_closed(since, guild_id=GUILD),
    )
    assert (await services.games.get(game.set_id)).deadline == game.deadline + timedelta(hours=1)


async def test_the_time_given_back_is_forgotten_once_its_clock_moves_on(
    services: Services, clock: FakeClock
) -> None:
    """A server's outage notes the hour it gave alice's clock, her challenge and takeback
    request; once she has moved, the challenge is accepted and the request answered, the
    sweep forgets those notes (the table holds only the deadlines still running)."""
    await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    challenge = await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    await services.clocks.give_back_closed(since, guild_id=GUILD)
    async with services.database.transaction() as db:
        held = await running(db, since_us=0)
        noted = await given_since(db, 0, held)
    assert sorted(given.key[0] for given in noted) == ["challenge", "set", "takeback"]
    await services.takebacks.answer(takeback.takeback_id, BOB, accept=False)
    await services.games.play(CHANNEL, BOB, "c4-c3")
    await services.challenges.accept(challenge.challenge_id, CAROL)
    await services.clocks.forget_given_back()
    async with services.database.snapshot() as db:
        assert await given_since(db, 0, held) == []


async def test_the_sweep_forgets_only_what_no_longer_runs_a_batch_at_a_time(
    services: Services, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three sets are given two separate hours each (two rows a clock); then the first
    set's player moves and the second set ends. The sweep, two rows per transaction,
    forgets the first set's old clock and the second set's, and keeps the two hours of the
    third's clock still running — the ones its next give-back must not give again."""
    monkeypatch.setattr(clocks, "FORGET_BATCH", 2)
    moved = await start_set(services, GUILD, CHANNEL)
    ended = await start_set(services, GUILD, OTHER_CHANNEL)
    kept = await start_set(services, GUILD, CHANNEL + 10)
    for _ in range(2):
        since = clock.now
        clock.advance(timedelta(hours=1))
        await services.clocks.give_back_closed(since, guild_id=GUILD)
        clock.advance(timedelta(minutes=5))
    await services.games.play(CHANNEL, BOB, "c4-c3")
    await services.games.resign(OTHER_CHANNEL, BOB)
    await services.clocks.forget_given_back()
    async with services.database.snapshot() as db:
        rows = await db.fetch_all("SELECT kind, target_id, ply FROM given_back")
    assert sorted((str(r[0]), int(r[1]), int(r[2])) for r in rows) == [
        ("set", kept.set_id, 1),
        ("set", kept.set_id, 1),
    ]
    assert moved.set_id < ended.set_id < kept.set_id


async def stop_running(
    services: Services, guild: int, channel: int, other: int
) -> list[tuple[str, int]]:
    """In ``guild``: a set in ``channel`` with a takeback request, and a challenge in
    ``other``, are given an hour (the server held); then the request is declined, the set's
    player moves and the challenge is accepted: none of the three runs any more. Returns
    their ``given_back`` kinds and ids."""
    game = await start_set(services, guild, channel)
    takeback = await ask(services, channel)
    challenge = await services.challenges.create(guild, other, ALICE, CAROL)
    since = services.clock()
    await services.clocks.give_back_closed(since, since + timedelta(hours=1), guild_id=guild)
    await services.takebacks.answer(takeback.takeback_id, BOB, accept=False)
    await services.games.play(channel, BOB, "c4-c3")
    await services.challenges.accept(challenge.challenge_id, CAROL)
    return [
        ("challenge", challenge.challenge_id),
        ("set", game.set_id),
        ("takeback", takeback.takeback_id),
    ]


async def test_each_process_forgets_the_time_given_in_the_servers_of_its_own_shards(
    services: Services, clock: FakeClock
) -> None:
    """Two processes share the database, one running shard 0 of two, one shard 1: the sweep
    of shard 1's forgets the notes of its server's set, request and challenge, not those of
    shard 0's server nor one tied to no server; then shard 0's forgets those two."""
    guild_1 = GUILD + (1 << 22)
    assert Shards(2, (1,)).shard_of(guild_1) == 1
    assert Shards(2, (0,)).shard_of(GUILD) == 0
    in_guild_0 = await stop_running(services, GUILD, CHANNEL, OTHER_CHANNEL)
    in_guild_1 = await stop_running(services, guild_1, CHANNEL + 10, CHANNEL + 11)
    async with services.database.transaction() as db:
        await db.execute("INSERT INTO given_back VALUES ('challenge', 9999, 0, 1, 2)")

    async def noted() -> list[tuple[str, int]]:
        async with services.database.snapshot() as db:
            rows = await db.fetch_all("SELECT kind, target_id FROM given_back")
        return sorted((str(r[0]), int(r[1])) for r in rows)

    assert await noted() == sorted([*in_guild_0, *in_guild_1, ("challenge", 9999)])
    await Services(services.database, clock, Shards(2, (1,))).clocks.forget_given_back()
    assert await noted() == sorted([*in_guild_0, ("challenge", 9999)])
    await Services(services.database, clock, Shards(2, (0,))).clocks.forget_given_back()
    assert await noted() == []


def test_a_give_back_is_owed_what_its_clock_ran_even_after_a_later_one_came_first() -> None:
    """A set's clock began at 10 (its set at 0); a give-back of 20 to 40 came first, then
    one of 0 to 30 whose end was read before it: that one owes the clock 10 to 20 (not the
    time before it began, nor 20 to 30 again); one of 35 to 50 owes it 40 to 50."""
    clock = Running(Deadline.SET, 1, 3, CHANNEL, None, opened_us=0, ran_from_us=30, deadline_us=130)
    assert owed(0, 30, clock, [Given(clock.key, 20, 40)]) == 10
    assert owed(35, 50, clock, [Given(clock.key, 20, 40)]) == 10


async def test_a_give_back_waits_for_a_takeback_being_accepted_rather_than_deadlock(
    services: Services, clock: FakeClock
) -> None:
    """Bob accepts alice's takeback request while the server's outage is being given back:
    the acceptance closes the request, then steps the set back (takebacks' row, then sets').
    The give-back locks the rows it moves on in the same order, so it waits for the
    acceptance instead of deadlocking with it (on PostgreSQL, one of them was ended: the
    acceptance failed, or the give-back was lost until the next check)."""
    game = await start_set(services, GUILD, CHANNEL)
    takeback = await ask(services, CHANNEL)
    since = clock.now
    clock.advance(timedelta(hours=1))
    async with services.database.transaction() as db:
        await takebacks.close(db, takeback.takeback_id, "accepted", 0, BOB)
        giving = asyncio.ensure_future(services.clocks.give_back_closed(since, guild_id=GUILD))
        await _waiting_for_a_lock(services)
        await db.execute("UPDATE sets SET reminded = 0 WHERE set_id = ?", (game.set_id,))
    resumed = await giving
    assert [set_id for set_id, _, _ in resumed.clocks] == [game.set_id]


async def _waiting_for_a_lock(services: Services) -> None:
    """Return once another transaction waits for a row this one locked (PostgreSQL; SQLite,
    which runs one write transaction at a time, gets half a second to start the other)."""
    if services.database.dialect is not Dialect.POSTGRESQL:
        await asyncio.sleep(0.5)
        return
    for _ in range(200):
        async with services.database.snapshot() as db:
            row = await db.fetch_one(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            )
        if row is not None and int(str(row[0])) > 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the give-back never waited for the acceptance's lock")
