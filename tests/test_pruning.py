"""Rows nobody reads again are deleted a week on; what players can still ask for is kept."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from bot.services import Services
from bot.services.domain import Challenge
from bot.services.errors import ChallengeNotFound
from bot.services.pruning import BATCH, KEPT_FOR, PruningService
from bot.shards import Shards
from tests.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, OTHER_CHANNEL, FakeClock
from tests.days_of_play import count_rows, play_day
from tests.older_schemas import step_back

DAYS = 30
MATCHES_A_DAY = 2


async def test_a_month_of_play_keeps_a_week_of_boards_out_and_of_challenges_closed(
    services: Services, clock: FakeClock
) -> None:
    """After a month of daily play and daily sweeps, the delivered boards and the challenges
    (declined, withdrawn, or accepted for a match) are those of the last week; every move, set
    and match stays, and the first game still exports."""
    await play_day(services, clock, matches=MATCHES_A_DAY)
    a_day = await count_rows(services)
    for _ in range(DAYS - 1):
        await play_day(services, clock, matches=MATCHES_A_DAY)
        await services.pruning.prune()
    kept = await count_rows(services)
    days_kept = KEPT_FOR // timedelta(days=1)
    assert kept["announcements"] <= days_kept * a_day["announcements"]
    assert kept["challenges"] <= (days_kept + 1) * (MATCHES_A_DAY + 2)
    assert kept["moves"] == DAYS * a_day["moves"]
    assert kept["sets"] == DAYS * a_day["sets"]
    assert kept["matches"] == DAYS * MATCHES_A_DAY
    exported = await services.records.export(set_id=1, unnamed="a player")
    assert len(exported.game.records) == 6


async def test_boards_still_owed_and_sets_still_played_keep_their_rows(
    services: Services, clock: FakeClock
) -> None:
    """A board never delivered of a set ended long ago is still owed, and a set played for
    weeks keeps its boards: only boards out of sets ended a week ago go."""
    await services.settings.change(GUILD, threads=False)
    ended = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=1)
    first = await services.challenges.accept(ended.challenge_id, BOB)
    await services.announcements.delivered(first.set_id, 0, None)
    await services.games.resign(CHANNEL, ALICE)  # its board is never delivered
    playing = await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, BOB, sets_total=1)
    second = await services.challenges.accept(playing.challenge_id, BOB)
    await services.announcements.delivered(second.set_id, 0, None)
    clock.advance(KEPT_FOR * 3)
    assert (await services.pruning.prune()).deleted == 0
    assert await services.announcements.out(second.set_id, 0)
    assert [row.set_id for row in await services.announcements.due()] == [first.set_id]


async def test_a_board_owed_long_after_its_set_ended_keeps_the_board_before_it(
    services: Services, clock: FakeClock
) -> None:
    """The last board of a set ended weeks ago is still owed (Discord refusing): the board
    before it, which it replies to, is kept until it is out; then both go."""
    await services.settings.change(GUILD, threads=False)
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=1)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, 10)
    move = str(active.game.legal_moves()[0])
    played = (await services.games.play(CHANNEL, ALICE, move)).game  # its board never goes
    await services.games.resign(CHANNEL, BOB)
    clock.advance(KEPT_FOR * 3)
    assert (await services.pruning.prune()).deleted == 0
    assert await services.announcements.message_of(active.set_id, 0) == 10
    await services.announcements.delivered(active.set_id, played.ply, 11)
    assert (await services.pruning.prune()).deleted == 2


async def test_more_than_a_batch_is_deleted_in_one_sweep(
    services: Services, clock: FakeClock
) -> None:
    """A backlog larger than one batch (a first sweep after an upgrade) goes in one sweep."""
    await play_day(services, clock, matches=BATCH // 20, moves=10)
    clock.advance(KEPT_FOR)
    before = (await count_rows(services))["announcements"]
    assert before > BATCH
    # and the challenge declined (the one withdrawn after it is the newest: kept), and those
    # accepted (their matches ended)
    assert (await services.pruning.prune()).deleted == before + 1 + BATCH // 20
    assert (await count_rows(services))["announcements"] == 0


async def test_a_sweep_stops_after_its_batches_and_the_next_goes_on(
    services: Services, clock: FakeClock
) -> None:
    """A backlog past a sweep's batches (the first after an upgrade, inside the timers' check)
    is left for the next sweeps, each deleting that many batches, until nothing is left."""
    await play_day(services, clock, matches=1, moves=5)
    clock.advance(KEPT_FOR)
    # The announcements alone: the sweeps below delete a challenge declined and one accepted
    # besides (13 rows in all).
    assert (await count_rows(services))["announcements"] == 11
    sweep = PruningService(services.database, clock, batch=2, batches=2)
    swept = [await sweep.prune() for _ in range(3)]
    assert [(s.deleted, s.more_left) for s in swept] == [(4, True), (4, True), (5, False)]
    assert (await count_rows(services))["announcements"] == 0


async def test_challenges_withdrawn_as_their_channel_went_are_deleted_a_week_on(
    services: Services, clock: FakeClock
) -> None:
    """A challenge withdrawn because its channel was deleted is closed then, and goes a week
    later like any other withdrawn one."""
    await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, BOB)
    await services.vanished.channel_gone(OTHER_CHANNEL)
    newest = await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)
    await services.challenges.withdraw(newest.challenge_id, ALICE)
    clock.advance(KEPT_FOR * 2)
    assert (await services.pruning.prune()).deleted == 1
    assert (await count_rows(services))["challenges"] == 1  # the newest is kept


SHARD_1_OF_2 = 1 << 22
"""A server of shard 1 of 2 (GUILD's is shard 0)."""


async def test_a_shards_process_deletes_the_rows_of_its_own_servers_only(
    services: Services, clock: FakeClock
) -> None:
    """The process of shard 1 of 2 sweeps the boards and challenges of its servers; those of
    shard 0's stay for its own process (which may be down, or sweeping at the same time)."""
    sets = {}
    for guild, channel in ((GUILD, CHANNEL), (SHARD_1_OF_2, OTHER_CHANNEL)):
        await services.settings.change(guild, threads=False)
        challenge = await services.challenges.create(guild, channel, ALICE, BOB, sets_total=1)
        active = await services.challenges.accept(challenge.challenge_id, BOB)
        await services.announcements.delivered(active.set_id, 0, None)
        ended = await services.games.resign(channel, ALICE)
        await services.announcements.delivered(ended.game.set_id, ended.game.ply, None)
        declined = await services.challenges.create(guild, channel, ALICE, CAROL)
        await services.challenges.decline(declined.challenge_id, CAROL)
        sets[guild] = active.set_id
    await services.challenges.create(GUILD, CHANNEL, BOB, CAROL)  # the newest (kept)
    clock.advance(KEPT_FOR * 2)
    shard_1 = PruningService(services.database, clock, Shards(2, (1,)))
    # its set's board (resigned at ply 0), its declined and its accepted one
    assert (await shard_1.prune()).deleted == 3
    assert await services.announcements.out(sets[GUILD], 0)
    assert not await services.announcements.out(sets[SHARD_1_OF_2], 0)
    assert (await count_rows(services))["challenges"] == 3


async def test_a_challenge_made_after_the_sweep_never_takes_a_deleted_ones_id(
    services: Services, clock: FakeClock
) -> None:
    """The newest challenge, declined a week ago, is kept by the sweep: SQLite would give its
    id to the next challenge, whose buttons would then be those of the old post."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.decline(first.challenge_id, BOB)
    last = await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)
    await services.challenges.decline(last.challenge_id, CAROL)
    clock.advance(KEPT_FOR * 2)
    assert (await services.pruning.prune()).deleted == 1
    again = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    assert again.challenge_id > last.challenge_id


async def test_challenges_closed_before_schema_17_get_a_close_time_and_go_a_week_on(
    database: str, clock: FakeClock
) -> None:
    """Challenges declined, withdrawn and expired without a close time (as before schema 17)
    get one on the upgrade to schema 46 (their creation; an expired one its expiry), and the
    sweep deletes them a week later; the accepted one and the newest stay."""
    services = await Services.open(database, clock=clock)
    try:
        closed = []
        for opponent in (BOB, CAROL):
            made = await services.challenges.create(GUILD, CHANNEL, ALICE, opponent)
            await services.challenges.decline(made.challenge_id, opponent)
            closed.append(made)
            clock.advance(timedelta(minutes=1))
        expired = await services.challenges.create(GUILD, OTHER_CHANNEL, BOB, ALICE)
        accepted = await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)
        await services.challenges.accept(accepted.challenge_id, BOB)
        newest = await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, ALICE)
        await services.challenges.withdraw(newest.challenge_id, CAROL)
        async with services.database.transaction() as db:  # as a release before schema 17
            await db.execute("UPDATE challenges SET closed_us = NULL")
            await db.execute(
                "UPDATE challenges SET status = 'withdrawn' WHERE challenge_id = ?",
                (closed[1].challenge_id,),
            )
            await db.execute(
                "UPDATE challenges SET status = 'expired' WHERE challenge_id = ?",
                (expired.challenge_id,),
            )
    finally:
        await services.close()
    async with _upgraded(database, clock, 45) as services:
        rows = await _read(
            services,
            "SELECT closed_us, created_us, expires_us FROM challenges ORDER BY challenge_id",
        )
        # declined, withdrawn, expired, accepted (its match's start, schema 48's: made and
        # accepted at once here; the match is played, so it stays), withdrawn (newest)
        closed_at = [row[0] for row in rows]
        assert closed_at == [rows[0][1], rows[1][1], rows[2][2], rows[3][1], rows[4][1]]
        clock.advance(KEPT_FOR * 2)
        assert (await services.pruning.prune()).deleted == 3
        assert (await count_rows(services))["challenges"] == 2


@contextlib.asynccontextmanager
async def _upgraded(database: str, clock: FakeClock, version: int) -> AsyncIterator[Services]:
    """The services of ``database`` stepped back to schema ``version``, then upgraded again
    (as an operator's upgrade from that release)."""
    await step_back(database, version)
    services = await Services.open(database, clock=clock)
    try:
        yield services
    finally:
        await services.close()


async def _read(services: Services, sql: str) -> list[Any]:
    async with services.database.snapshot() as db:
        return await db.fetch_all(sql)


async def _challenge_ids(services: Services) -> list[int]:
    rows = await _read(services, "SELECT challenge_id FROM challenges ORDER BY challenge_id")
    return [int(row[0]) for row in rows]


async def _accepted_3_minutes_on_and_resigned(services: Services, clock: FakeClock) -> Challenge:
    """alice challenges bob to one set in CHANNEL (threads off), he accepts 3 minutes on, she
    resigns at once: the match is over and its boards out."""
    await services.settings.change(GUILD, threads=False)
    made = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=1)
    clock.advance(timedelta(minutes=3))
    active = await services.challenges.accept(made.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)
    end = await services.games.resign(CHANNEL, ALICE)
    await services.announcements.delivered(end.game.set_id, end.game.ply, None)
    return made


async def test_an_accepted_challenge_goes_a_week_after_its_match_ended(
    services: Services, clock: FakeClock
) -> None:
    """An accepted challenge is closed as it is accepted and deleted a week after its match
    ended; one whose match is still played, and one whose match still owes a board (its first
    board, late, reads it), stay until a week after that."""
    ended = await _accepted_3_minutes_on_and_resigned(services, clock)
    owing = await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL, sets_total=1)
    owed = await services.challenges.accept(owing.challenge_id, CAROL)  # no board delivered
    await services.games.resign(OTHER_CHANNEL, ALICE)
    playing = await services.challenges.create(GUILD, CHANNEL, CAROL, BOB, sets_total=1)
    await services.challenges.accept(playing.challenge_id, BOB)
    async with services.database.snapshot() as db:
        row = await db.fetch_one(
            "SELECT closed_us - created_us FROM challenges WHERE challenge_id = ?",
            (ended.challenge_id,),
        )
    assert row is not None
    assert timedelta(microseconds=int(row[0])) == timedelta(minutes=3)
    clock.advance(KEPT_FOR * 2)
    newest = await services.challenges.create(GUILD, OTHER_CHANNEL, BOB, ALICE)
    await services.pruning.prune()
    assert await _challenge_ids(services) == [
        owing.challenge_id,
        playing.challenge_id,
        newest.challenge_id,
    ]
    await services.announcements.delivered(owed.set_id, 0, None)  # resigned at ply 0
    end = await services.games.resign(CHANNEL, BOB)
    await services.announcements.delivered(end.game.set_id, end.game.ply, None)
    clock.advance(KEPT_FOR * 2)
    await services.pruning.prune()
    assert await _challenge_ids(services) == [newest.challenge_id]


async def test_the_newest_challenge_stays_though_it_was_accepted_for_a_match_long_over(
    services: Services, clock: FakeClock
) -> None:
    """The newest challenge of all, accepted for a match that ended two weeks ago, stays
    (deleted, SQLite would give its id, and its post's buttons, to the next challenge); once a
    challenge is made after it, the next sweep deletes it."""
    accepted = await _accepted_3_minutes_on_and_resigned(services, clock)
    clock.advance(KEPT_FOR * 2)
    await services.pruning.prune()
    assert await _challenge_ids(services) == [accepted.challenge_id]
    newer = await services.challenges.create(GUILD, OTHER_CHANNEL, BOB, ALICE)
    await services.pruning.prune()
    assert await _challenge_ids(services) == [newer.challenge_id]


async def test_challenges_accepted_before_schema_48_get_their_match_start_and_go_with_it(
    database: str, clock: FakeClock
) -> None:
    """A challenge accepted without a close time (as before schema 48) gets its match's start
    on the upgrade, and the sweep deletes it a week after its match ended."""
    services = await Services.open(database, clock=clock)
    try:
        await _accepted_3_minutes_on_and_resigned(services, clock)
        await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)  # the newest (kept)
        async with services.database.transaction() as db:  # as a release before schema 48
            await db.execute("UPDATE challenges SET closed_us = NULL")
    finally:
        await services.close()
    async with _upgraded(database, clock, 47) as services:
        rows = await _read(
            services,
            "SELECT c.closed_us, m.started_us FROM challenges c "
            "LEFT JOIN matches m ON m.match_id = c.match_id ORDER BY c.challenge_id",
        )
        assert [row[0] for row in rows] == [rows[0][1], None]  # the open one has none
        assert rows[0][0] is not None
        clock.advance(KEPT_FOR * 2)
        await services.pruning.prune()
        assert len(await _challenge_ids(services)) == 1


async def test_a_challenge_that_lapsed_early_goes_a_week_after_it_lapsed(
    services: Services, clock: FakeClock
) -> None:
    """A challenge that lapsed before its expiry (a game began in its channel) notes when it
    lapsed, and goes a week after that, not a week after its expiry. Pins what works."""
    await services.settings.change(GUILD, threads=False)
    lapsing = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    taken = await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)
    clock.advance(timedelta(minutes=1))
    await services.challenges.accept(taken.challenge_id, BOB)
    lapsed = await services.challenges.close_others_in_channel(CHANNEL)
    assert [challenge.challenge_id for challenge in lapsed] == [lapsing.challenge_id]
    await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL)  # the newest (kept)
    clock.advance(KEPT_FOR + (lapsing.expires_at - clock()) / 2)  # before a week after expiry
    await services.pruning.prune()
    assert lapsing.challenge_id not in await _challenge_ids(services)


async def test_a_press_on_a_challenge_that_lapsed_early_before_schema_17_says_no_longer_open(
    database: str, clock: FakeClock
) -> None:
    """A challenge that lapsed before its expiry (a game began in its channel) under a release
    before schema 17 reads as expired on time once schema 46 gives it its expiry as its close
    time; yet a press on its old Accept still says it is no longer open, not that it expired:
    every press checks first (bot/views/challenge.py, check_accept), which refuses any closed
    challenge so, and "expired on time" is read only of one closed during the press. Pins what
    works."""
    services = await Services.open(database, clock=clock)
    try:
        await services.settings.change(GUILD, threads=False)
        lapsing = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
        taken = await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)
        clock.advance(timedelta(minutes=1))
        await services.challenges.accept(taken.challenge_id, BOB)
        await services.challenges.close_others_in_channel(CHANNEL)
        async with services.database.transaction() as db:  # as a release before schema 17
            await db.execute("UPDATE challenges SET closed_us = NULL")
    finally:
        await services.close()
    async with _upgraded(database, clock, 45) as services:
        [(closed_us, expires_us)] = await _read(
            services,
            "SELECT closed_us, expires_us FROM challenges WHERE status = 'expired'",
        )
        assert closed_us == expires_us  # schema 46's guess: "expired on time"
        with pytest.raises(ChallengeNotFound) as refused:
            await services.challenges.check_accept(lapsing.challenge_id, BOB)
        assert type(refused.value) is ChallengeNotFound
        assert str(refused.value) == "That challenge is no longer open."
