"""Challenges, server settings, and the move timers, as players and admins meet them."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest

from bot.services import ChallengeStatus, Services
from bot.services.domain import MAX_MEMBER_MATCHES
from bot.services.errors import (
    CannotChallengeBot,
    CannotChallengeSelf,
    ChallengeAlreadyOpen,
    ChallengeExpired,
    ChallengeNotFound,
    ChannelBusy,
    ChannelNotAllowed,
    InvalidOption,
    NotYourChallenge,
    OpenChallengeWaiting,
    TooManyChallenges,
    TooManyMatches,
)
from bot.services.settings import SettingsService
from bot.storage import challenges as storage_challenges
from bot.storage.challenges import ChallengeRow
from bot.storage.connection import Dialect
from engine import Side
from tests.conftest import ALICE, BOB, CAROL, CHANNEL, COMPUTER, GUILD, OTHER_CHANNEL, FakeClock

THREAD = 9_000_000_001
"""A thread started from a challenge message."""
DAVE = 14


async def test_challenge_expires_ten_minutes_after_it_is_made(
    services: Services, clock: FakeClock
) -> None:
    """A challenge carries its expiry: ten minutes from now."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    assert challenge.expires_at - challenge.created_at == timedelta(minutes=10)
    assert challenge.created_at == clock.now


async def test_only_the_opponent_can_accept(services: Services) -> None:
    """The challenger or a bystander pressing Accept is refused; the opponent starts the game."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    for intruder in (ALICE, CAROL):
        with pytest.raises(NotYourChallenge):
            await services.challenges.accept(challenge.challenge_id, intruder)
    game = await services.challenges.accept(challenge.challenge_id, BOB)
    assert (game.attacker_id, game.defender_id) == (ALICE, BOB)
    accepted = await services.challenges.get(challenge.challenge_id)
    assert accepted.status is ChallengeStatus.ACCEPTED


async def test_a_match_knows_the_challenge_it_was_accepted_from(services: Services) -> None:
    """The challenge bob accepted is found by the match it started (whose message a restart
    may have kept from showing it); another match finds none."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    game = await services.challenges.accept(challenge.challenge_id, BOB)
    found = await services.challenges.of_match(game.match_id)
    assert found is not None
    assert (found.challenge_id, found.status) == (challenge.challenge_id, ChallengeStatus.ACCEPTED)
    assert await services.challenges.of_match(game.match_id + 1) is None


async def test_challenger_side_sets_who_attacks_first(services: Services) -> None:
    """A challenger who picks the defenders defends in set 1."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, challenger_side=Side.DEFENDERS, sets_total=1
    )
    game = await services.challenges.accept(challenge.challenge_id, BOB)
    assert (game.attacker_id, game.defender_id, game.sets_total) == (BOB, ALICE, 1)


async def test_an_expired_challenge_cannot_be_accepted(
    services: Services, clock: FakeClock
) -> None:
    """Accepting after ten minutes is refused and the challenge is closed as expired."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    clock.advance(timedelta(minutes=10))
    with pytest.raises(ChallengeExpired):
        await services.challenges.accept(challenge.challenge_id, BOB)
    assert (await services.challenges.get(challenge.challenge_id)).status is (
        ChallengeStatus.EXPIRED
    )


async def test_expire_due_returns_each_lapsed_challenge_once(
    services: Services, clock: FakeClock
) -> None:
    """The expiry sweep returns lapsed challenges once and leaves fresh ones pending."""
    old = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    clock.advance(timedelta(minutes=6))
    fresh = await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, BOB)
    clock.advance(timedelta(minutes=5))
    assert [c.challenge_id for c in await services.challenges.expire_due()] == [old.challenge_id]
    assert await services.challenges.expire_due() == []
    assert [c.challenge_id for c in await services.challenges.pending()] == [fresh.challenge_id]


async def test_decline_and_withdraw_close_the_challenge(services: Services) -> None:
    """Only the opponent declines and only the challenger withdraws; then it is gone."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    with pytest.raises(NotYourChallenge):
        await services.challenges.decline(first.challenge_id, ALICE)
    assert (await services.challenges.decline(first.challenge_id, BOB)).status is (
        ChallengeStatus.DECLINED
    )
    with pytest.raises(ChallengeNotFound):
        await services.challenges.accept(first.challenge_id, BOB)
    second = await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)
    with pytest.raises(NotYourChallenge):
        await services.challenges.withdraw(second.challenge_id, CAROL)
    assert (await services.challenges.withdraw(second.challenge_id, ALICE)).status is (
        ChallengeStatus.WITHDRAWN
    )
    assert await services.challenges.pending() == []


async def test_self_and_bot_challenges_are_refused(services: Services) -> None:
    """A member cannot challenge themself, nor another bot."""
    with pytest.raises(CannotChallengeSelf):
        await services.challenges.create(GUILD, CHANNEL, ALICE, ALICE)
    with pytest.raises(CannotChallengeBot):
        await services.challenges.create(GUILD, CHANNEL, ALICE, 555, opponent_is_bot=True)


async def test_a_busy_channel_refuses_challenges_and_second_acceptances(
    services: Services,
) -> None:
    """Threads off: two open challenges in one channel, the second accepted finds it busy."""
    await services.settings.change(GUILD, threads=False)
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    second = await services.challenges.create(GUILD, CHANNEL, CAROL, ALICE)
    await services.challenges.accept(first.challenge_id, BOB)
    with pytest.raises(ChannelBusy, match="thread"):
        await services.challenges.accept(second.challenge_id, ALICE)
    with pytest.raises(ChannelBusy):
        await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)
    with pytest.raises(ChannelBusy):
        await services.matches.start_computer_match(GUILD, CHANNEL, CAROL, COMPUTER)
    assert (await services.challenges.get(second.challenge_id)).status is ChallengeStatus.OPEN


async def test_with_threads_a_busy_channel_still_takes_challenges(services: Services) -> None:
    """Threads on (the default): games go to threads, so a busy channel still takes challenges."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(first.challenge_id, BOB)
    second = await services.challenges.create(GUILD, CHANNEL, CAROL, BOB)
    game = await services.challenges.accept(second.challenge_id, BOB, thread_id=THREAD)
    assert game.channel_id == THREAD
    assert game.parent_channel_id is None  # no challenge message was recorded for it


async def test_threads_turned_off_lapse_only_the_challenges_in_a_busy_channel(
    services: Services,
) -> None:
    """alice and bob play in the channel itself (threads off); with threads on, carol
    challenges dave there and in another channel; threads off again: the one in the busy
    channel lapses, the other stays open, and with threads on nothing lapses."""
    await services.settings.change(GUILD, threads=False)
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(first.challenge_id, BOB)
    await services.settings.change(GUILD, threads=True)
    beside = await services.challenges.create(GUILD, CHANNEL, CAROL, DAVE)
    elsewhere = await services.challenges.create(GUILD, OTHER_CHANNEL, DAVE, ALICE)
    assert await services.challenges.lapse_busy(GUILD) == []
    await services.settings.change(GUILD, threads=False)
    lapsed = await services.challenges.lapse_busy(GUILD)
    assert [challenge.challenge_id for challenge in lapsed] == [beside.challenge_id]
    assert (await services.challenges.get(beside.challenge_id)).status is ChallengeStatus.EXPIRED
    assert (await services.challenges.get(elsewhere.challenge_id)).status is ChallengeStatus.OPEN


async def test_a_member_may_have_at_most_five_open_challenges(services: Services) -> None:
    """The sixth open challenge is refused with a sentence; an answered one frees a place."""
    opened = [
        await services.challenges.create(GUILD, CHANNEL, ALICE, opponent)
        for opponent in range(21, 26)
    ]
    with pytest.raises(TooManyChallenges, match="5 open challenges"):
        await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)
    await services.challenges.withdraw(opened[0].challenge_id, ALICE)
    await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)


async def test_two_challenges_at_once_never_pass_the_five_open(services: Services) -> None:
    """With four open, two more sent at the same moment to different members: one opens,
    the other is refused (the count and the insert hold a lock on the challenger)."""
    for opponent in range(21, 25):
        await services.challenges.create(GUILD, CHANNEL, ALICE, opponent)
    # A busy bot's connections are open already: two reads at once open a second one.
    await asyncio.gather(services.challenges.pending(), services.challenges.pending())
    results = await asyncio.gather(
        services.challenges.create(GUILD, CHANNEL, ALICE, BOB),
        services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, CAROL),
        return_exceptions=True,
    )
    refused = [type(result) for result in results if isinstance(result, BaseException)]
    assert refused == [TooManyChallenges], results
    assert len(await services.challenges.pending()) == 5


async def test_two_members_have_one_open_challenge_between_them(services: Services) -> None:
    """A second challenge between the same two members, either way round, is refused with
    where the first one is; once it is answered they may challenge again."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(first.challenge_id, 4242)
    link = f"https://discord.com/channels/{GUILD}/{CHANNEL}/4242"
    with pytest.raises(ChallengeAlreadyOpen) as again:
        await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, BOB, ruleset="tablut")
    assert str(again.value) == (
        f"Your challenge to <@{BOB}> is still open ({link}): wait for the answer, or withdraw "
        "it first."
    )
    with pytest.raises(ChallengeAlreadyOpen) as back:
        await services.challenges.create(GUILD, CHANNEL, BOB, ALICE)
    assert str(back.value) == (
        f"<@{ALICE}> has already challenged you ({link}): accept or decline that one."
    )
    await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)  # others are not held up
    await services.challenges.create(GUILD + 1, CHANNEL + 10, ALICE, BOB)  # another server
    await services.challenges.decline(first.challenge_id, BOB)
    await services.challenges.create(GUILD, CHANNEL, BOB, ALICE)


async def test_two_challenges_at_once_between_two_members_open_one(services: Services) -> None:
    """Each challenging the other at the same moment: one challenge opens, the other is
    refused (the check and the insert hold a lock on the pair)."""
    results = await asyncio.gather(
        services.challenges.create(GUILD, CHANNEL, ALICE, BOB),
        services.challenges.create(GUILD, CHANNEL, BOB, ALICE),
        return_exceptions=True,
    )
    assert sorted(type(result).__name__ for result in results) == [
        "Challenge",
        "ChallengeAlreadyOpen",
    ]


async def test_an_accepted_thread_game_remembers_its_channel_and_line(services: Services) -> None:
    """Accepted into a thread: the game knows the parent channel and the challenge's message."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(challenge.challenge_id, 4242)
    game = await services.challenges.accept(challenge.challenge_id, BOB, thread_id=THREAD)
    assert (game.channel_id, game.parent_channel_id, game.line_message_id) == (
        THREAD,
        CHANNEL,
        4242,
    )
    assert await services.games.in_channel(THREAD) == game
    assert await services.games.in_channel(CHANNEL) is None


async def test_a_player_may_play_in_several_channels(services: Services) -> None:
    """Alice can have games in two channels at once."""
    for channel, opponent in ((CHANNEL, BOB), (OTHER_CHANNEL, CAROL)):
        challenge = await services.challenges.create(GUILD, channel, ALICE, opponent)
        await services.challenges.accept(challenge.challenge_id, opponent)
    assert len(await services.games.active()) == 2


async def test_settings_restrict_channels_and_set_defaults(services: Services) -> None:
    """An admin's settings decide where games may be played, the ruleset and time per move."""
    await services.settings.change(
        GUILD,
        default_ruleset="ard-ri",
        time_per_move=timedelta(hours=2),
        allowed_channel_ids=[OTHER_CHANNEL],
    )
    with pytest.raises(ChannelNotAllowed) as refused:
        await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    assert f"<#{OTHER_CHANNEL}>" in str(refused.value)
    challenge = await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, BOB)
    assert (challenge.ruleset, challenge.time_per_move) == ("ard-ri", timedelta(hours=2))
    await services.settings.change(GUILD, allowed_channel_ids=[])
    assert (await services.settings.get(GUILD)).allows(CHANNEL)


async def test_bad_options_are_refused_with_a_reason(services: Services) -> None:
    """Unknown rulesets, three sets, a level of 9 and a 10-second clock are refused."""
    with pytest.raises(InvalidOption, match="ruleset"):
        await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, ruleset="chess")
    with pytest.raises(InvalidOption, match="sets"):
        await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=3)
    with pytest.raises(InvalidOption, match="level"):
        await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER, level=9)
    with pytest.raises(InvalidOption, match="time per move"):
        await services.settings.change(GUILD, time_per_move=timedelta(seconds=10))


async def test_reminder_once_at_half_time_then_again_after_the_next_move(
    services: Services, clock: FakeClock
) -> None:
    """Half-way through a move's time the player is reminded once; a move re-arms it."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(hours=2)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    clock.advance(timedelta(minutes=59))
    assert await services.clocks.reminders_due() == []
    clock.advance(timedelta(minutes=1))
    (due,) = await services.clocks.reminders_due()
    assert due.player_to_move == ALICE
    assert await services.clocks.reminders_due() == []
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    clock.advance(timedelta(hours=1))
    (again,) = await services.clocks.reminders_due()
    assert again.player_to_move == BOB


async def test_a_move_resets_the_deadline(services: Services, clock: FakeClock) -> None:
    """Moving in time pushes the deadline a full time-per-move ahead: no loss on time."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(hours=1)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    clock.advance(timedelta(minutes=50))
    result = await services.games.play(CHANNEL, ALICE, "d1-c1")
    assert result.game.deadline == clock.now + timedelta(hours=1)
    clock.advance(timedelta(minutes=50))
    assert await services.clocks.time_out_due() == []
    clock.advance(timedelta(minutes=10))
    (ended,) = await services.clocks.time_out_due()
    assert ended.loser_id == BOB


async def test_a_double_click_on_accept_starts_one_game(services: Services) -> None:
    """Two Accepts racing: one match starts, the other is told the challenge is closed."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    first, second = await asyncio.gather(
        services.challenges.accept(challenge.challenge_id, BOB),
        services.challenges.accept(challenge.challenge_id, BOB),
        return_exceptions=True,
    )
    outcomes = sorted(type(r).__name__ for r in (first, second))
    assert outcomes == ["ActiveGame", "ChallengeNotFound"]
    assert len(await services.games.active()) == 1


async def test_an_unknown_ruleset_is_repeated_cut_short(services: Services) -> None:
    """A forged ruleset of 3,000 characters is refused in a sentence that repeats only its
    start (a reply must stay under Discord's 2,000 characters)."""
    with pytest.raises(InvalidOption) as refused:
        await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, ruleset="z" * 3000)
    assert str(refused.value).startswith("There is no ruleset called '" + "z" * 23 + "…': ")
    assert len(str(refused.value)) < 300


async def test_a_challenge_open_to_anyone_is_taken_by_whoever_accepts(
    services: Services,
) -> None:
    """With no opponent, anyone but the challenger may accept, and becomes the opponent; it
    cannot be declined, and the match is the challenger's against them."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, None, challenger_side=Side.DEFENDERS
    )
    assert challenge.opponent_id is None
    with pytest.raises(NotYourChallenge, match="your own challenge"):
        await services.challenges.accept(challenge.challenge_id, ALICE)
    with pytest.raises(NotYourChallenge):
        await services.challenges.decline(challenge.challenge_id, BOB)
    assert (await services.challenges.check_accept(challenge.challenge_id, CAROL)).opponent_id == (
        CAROL
    )
    game = await services.challenges.accept(challenge.challenge_id, CAROL)
    assert (game.attacker_id, game.defender_id) == (CAROL, ALICE)
    taken = await services.challenges.get(challenge.challenge_id)
    assert (taken.status, taken.opponent_id) == (ChallengeStatus.ACCEPTED, CAROL)
    with pytest.raises(ChallengeNotFound):
        await services.challenges.accept(challenge.challenge_id, BOB)


async def test_two_members_taking_one_open_challenge_at_once_start_one_game(
    services: Services,
) -> None:
    """Bob and Carol press Accept together: one of them plays Alice, the other is told the
    challenge is closed (the claim is one conditional update)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, None)
    results = await asyncio.gather(
        services.challenges.accept(challenge.challenge_id, BOB),
        services.challenges.accept(challenge.challenge_id, CAROL),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["ActiveGame", "ChallengeNotFound"]
    [active] = await services.games.active()
    taken = await services.challenges.get(challenge.challenge_id)
    assert taken.opponent_id in (BOB, CAROL)
    assert {active.attacker_id, active.defender_id} == {ALICE, taken.opponent_id}


async def test_a_member_has_one_challenge_open_to_anyone_at_a_time(
    services: Services, clock: FakeClock
) -> None:
    """A second open challenge is refused with a link to the first (in any channel of the
    server); direct challenges are not held by it, and once it is gone another may follow."""
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, None)
    with pytest.raises(OpenChallengeWaiting, match="withdraw it first"):
        await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, None)
    await services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, BOB)  # a direct one is fine
    await services.challenges.create(GUILD + 1, CHANNEL + 10, ALICE, None)  # another server
    await services.challenges.create(GUILD, CHANNEL, BOB, None)  # bob's own
    await services.challenges.withdraw(first.challenge_id, ALICE)
    second = await services.challenges.create(GUILD, CHANNEL, ALICE, None)
    clock.advance(timedelta(minutes=10))
    assert second.challenge_id in [c.challenge_id for c in await services.challenges.expire_due()]
    await services.challenges.create(GUILD, CHANNEL, ALICE, None)


async def test_two_open_challenges_at_once_by_one_member_open_one(services: Services) -> None:
    """Two at the same moment (a double press of Enter): one opens, the other is refused."""
    results = await asyncio.gather(
        services.challenges.create(GUILD, CHANNEL, ALICE, None),
        services.challenges.create(GUILD, OTHER_CHANNEL, ALICE, None),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["Challenge", "OpenChallengeWaiting"]


async def test_the_open_challenge_role_is_kept_until_an_admin_stops_it(
    services: Services,
) -> None:
    """The role setting is stored with the others, survives other changes, and is cleared by
    ``no_open_challenge_role`` (read back from the database, not the settings kept in memory)."""
    role = 4_000_000_001
    assert (await services.settings.get(GUILD)).open_challenge_role_id is None
    await services.settings.change(GUILD, open_challenge_role_id=role)
    await services.settings.change(GUILD, threads=False)
    fresh = SettingsService(services.database)
    assert (await fresh.get(GUILD)).open_challenge_role_id == role
    await services.settings.change(GUILD, no_open_challenge_role=True)
    assert (await SettingsService(services.database).get(GUILD)).open_challenge_role_id is None


async def test_the_games_list_leaves_out_hidden_channels_and_their_threads(
    services: Services,
) -> None:
    """Games in a hidden channel, or in a thread started in one, are neither listed nor
    counted; the others are."""
    in_thread = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(in_thread.challenge_id, 4242)
    await services.challenges.accept(in_thread.challenge_id, BOB, thread_id=THREAD)
    elsewhere = await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, BOB)
    await services.challenges.accept(elsewhere.challenge_id, BOB)
    everything = await services.records.in_progress(GUILD)
    assert [g.channel_id for g in everything.games] == [THREAD, OTHER_CHANNEL]
    page = await services.records.in_progress(GUILD, hidden_channel_ids=frozenset({CHANNEL}))
    assert (page.total, [g.channel_id for g in page.games]) == (1, [OTHER_CHANNEL])
    page = await services.records.in_progress(
        GUILD, player_id=BOB, hidden_channel_ids=frozenset({OTHER_CHANNEL, 1})
    )
    assert (page.total, [g.channel_id for g in page.games]) == (1, [THREAD])


async def test_a_challenge_in_a_busy_game_thread_points_to_the_channel_only_with_threads_on(
    services: Services,
) -> None:
    """Inside a busy game thread a challenge is refused pointing to the channel, where each
    game gets a thread; once threads are off that would be untrue, so the usual sentence."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.set_message(challenge.challenge_id, 5_000)
    await services.challenges.accept(challenge.challenge_id, BOB, thread_id=THREAD)
    with pytest.raises(ChannelBusy, match="challenge from the channel"):
        await services.challenges.create(GUILD, THREAD, CAROL, ALICE, plays_here=True)
    await services.settings.change(GUILD, threads=False)
    with pytest.raises(ChannelBusy, match="start yours in another channel"):
        await services.challenges.create(GUILD, THREAD, CAROL, ALICE, plays_here=True)


async def test_a_members_open_challenges_ping_the_role_once_in_15_minutes(
    services: Services, clock: FakeClock
) -> None:
    """After alice's open challenge claimed the role's ping, hers do not until 15 minutes
    later (the refusal says when); bob's are not held back by hers, nor hers in another
    server."""
    challenges = services.challenges

    async def claim(guild_id: int, challenger_id: int) -> datetime | None:
        """Post an open challenge as ``challenger_id``, claim its ping, and withdraw it."""
        challenge = await challenges.create(guild_id, CHANNEL, challenger_id, None)
        paused_until = await challenges.claim_role_ping(challenge.challenge_id)
        await challenges.withdraw(challenge.challenge_id, challenger_id)
        return paused_until

    assert await claim(GUILD, ALICE) is None
    pinged_at = clock.now
    clock.advance(timedelta(minutes=14, seconds=59))
    assert await claim(GUILD, ALICE) == pinged_at + timedelta(minutes=15)
    assert await claim(GUILD, BOB) is None
    assert await claim(GUILD + 1, ALICE) is None
    clock.advance(timedelta(seconds=2))
    assert await claim(GUILD, ALICE) is None


async def test_two_claims_of_the_role_ping_at_once_ping_once(services: Services) -> None:
    """Two claims of alice's role ping at the same moment: one pings, the other is told
    when (both read no earlier ping, then both pinged)."""
    challenges = services.challenges
    challenge = await challenges.create(GUILD, CHANNEL, ALICE, None)
    results = await asyncio.gather(
        challenges.claim_role_ping(challenge.challenge_id),
        challenges.claim_role_ping(challenge.challenge_id),
    )
    assert sorted(result is None for result in results) == [False, True]


async def test_a_challenge_never_shown_gives_its_role_ping_back(services: Services) -> None:
    """alice's open challenge claimed the role's ping but its post failed: her next one
    pings the role (nobody heard the first)."""
    challenges = services.challenges
    unshown = await challenges.create(GUILD, CHANNEL, ALICE, None)
    assert await challenges.claim_role_ping(unshown.challenge_id) is None
    await challenges.forget_unshown(unshown.challenge_id)
    again = await challenges.create(GUILD, CHANNEL, ALICE, None)
    assert await challenges.claim_role_ping(again.challenge_id) is None


async def test_a_members_challenges_ping_the_same_member_once_in_15_minutes(
    services: Services, clock: FakeClock
) -> None:
    """After alice's challenge claimed bob's ping, hers to bob do not ping him until 15 minutes
    later (the refusal says when); hers to carol, carol's to bob and hers in another server
    still ping."""
    challenges = services.challenges

    async def claim(guild_id: int, challenger_id: int, opponent_id: int) -> datetime | None:
        """Challenge, claim the opponent's ping, and withdraw."""
        challenge = await challenges.create(guild_id, CHANNEL, challenger_id, opponent_id)
        paused_until = await challenges.claim_opponent_ping(challenge.challenge_id)
        await challenges.withdraw(challenge.challenge_id, challenger_id)
        return paused_until

    assert await claim(GUILD, ALICE, BOB) is None
    pinged_at = clock.now
    clock.advance(timedelta(minutes=14, seconds=59))
    assert await claim(GUILD, ALICE, BOB) == pinged_at + timedelta(minutes=15)
    assert await claim(GUILD, ALICE, CAROL) is None
    assert await claim(GUILD, CAROL, BOB) is None
    assert await claim(GUILD + 1, ALICE, BOB) is None
    clock.advance(timedelta(seconds=2))
    assert await claim(GUILD, ALICE, BOB) is None


async def test_two_challenges_of_a_pair_claiming_at_once_ping_once(services: Services) -> None:
    """Two of alice's challenges to bob (the first withdrawn before its claim landed) claim
    his ping at the same moment: one pings him, the other is told when (both would read no
    earlier ping, then both ping him)."""
    challenges = services.challenges
    first = await challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await challenges.withdraw(first.challenge_id, ALICE)
    second = await challenges.create(GUILD, CHANNEL, ALICE, BOB)
    results = await asyncio.gather(
        challenges.claim_opponent_ping(first.challenge_id),
        challenges.claim_opponent_ping(second.challenge_id),
    )
    assert sorted(result is None for result in results) == [False, True]


async def test_a_challenge_never_shown_gives_its_opponents_ping_back(services: Services) -> None:
    """alice's challenge to bob claimed his ping but its post failed: her next one pings him
    (he never heard the first)."""
    challenges = services.challenges
    unshown = await challenges.create(GUILD, CHANNEL, ALICE, BOB)
    assert await challenges.claim_opponent_ping(unshown.challenge_id) is None
    await challenges.forget_unshown(unshown.challenge_id)
    again = await challenges.create(GUILD, CHANNEL, ALICE, BOB)
    assert await challenges.claim_opponent_ping(again.challenge_id) is None


async def test_a_challenge_naming_a_member_at_the_limit_is_not_stored(services: Services) -> None:
    """alice plays 20 matches against members: dave's challenge naming her is refused, naming
    her, and not stored (none is open between them); his challenge open to anyone is not."""
    challenges = services.challenges
    for channel in range(CHANNEL, CHANNEL + MAX_MEMBER_MATCHES):
        asked = await challenges.create(GUILD, channel, ALICE, BOB)
        await challenges.accept(asked.challenge_id, BOB)
    with pytest.raises(TooManyMatches) as refused:
        await challenges.create(GUILD, THREAD, DAVE, ALICE)
    assert str(refused.value).startswith(f"<@{ALICE}> is already playing 20 matches")
    assert "challenge them once they finish one" in str(refused.value)
    async with services.database.snapshot() as db:
        assert await storage_challenges.open_between(db, GUILD, DAVE, ALICE, 0) is None
    await challenges.create(GUILD, THREAD, DAVE, None)


async def test_two_accepts_at_once_never_pass_the_limit_of_matches(services: Services) -> None:
    """alice plays 19 matches against members; bob and carol accept her two challenges at the
    same moment: one match starts, the other is refused and its challenge stays open. She may
    challenge nobody then, nor accept dave's; in another server she may."""
    challenges = services.challenges
    for channel in range(CHANNEL, CHANNEL + MAX_MEMBER_MATCHES - 1):
        asked = await challenges.create(GUILD, channel, ALICE, BOB)
        await challenges.accept(asked.challenge_id, BOB)
    to_bob = await challenges.create(GUILD, THREAD, ALICE, BOB)
    to_carol = await challenges.create(GUILD, THREAD + 1, ALICE, CAROL)
    by_dave = await challenges.create(GUILD, THREAD + 2, DAVE, ALICE)
    started = await asyncio.gather(
        challenges.accept(to_bob.challenge_id, BOB),
        challenges.accept(to_carol.challenge_id, CAROL),
        return_exceptions=True,
    )
    assert sorted(type(each).__name__ for each in started) == ["ActiveGame", "TooManyMatches"]
    [refused] = [each for each in started if isinstance(each, TooManyMatches)]
    assert str(refused).startswith(f"<@{ALICE}> is already playing 20 matches")
    still_open = [to_bob, to_carol][started.index(refused)]
    assert (await challenges.get(still_open.challenge_id)).status is ChallengeStatus.OPEN
    with pytest.raises(TooManyMatches):
        await challenges.create(GUILD, THREAD + 2, ALICE, None)
    with pytest.raises(TooManyMatches):
        await challenges.check_accept(by_dave.challenge_id, ALICE)
    elsewhere = await challenges.create(GUILD + 1, THREAD + 3, ALICE, DAVE)
    await challenges.accept(elsewhere.challenge_id, DAVE)


async def test_a_challenge_withdrawn_as_the_channel_fills_is_not_called_lapsed(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads off: bob's acceptance makes the channel busy, and carol withdraws her own
    challenge there at that moment: it stays withdrawn and is not returned as lapsed (its
    message would say "lapsed" over "withdrew")."""
    if services.database.dialect is Dialect.SQLITE:
        pytest.skip("SQLite runs one write transaction at a time: nothing comes in between")
    await services.settings.change(GUILD, threads=False)
    first = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    second = await services.challenges.create(GUILD, CHANNEL, CAROL, DAVE)
    await services.challenges.accept(first.challenge_id, BOB)
    read = storage_challenges.open_in_channel

    async def read_then_carol_withdraws(*args: Any, **kwargs: Any) -> list[ChallengeRow]:
        found = await read(*args, **kwargs)
        await services.challenges.withdraw(second.challenge_id, CAROL)
        return found

    monkeypatch.setattr(storage_challenges, "open_in_channel", read_then_carol_withdraws)
    assert await services.challenges.close_others_in_channel(CHANNEL) == []
    assert (await services.challenges.get(second.challenge_id)).status is (
        ChallengeStatus.WITHDRAWN
    )
