"""Rematch, end to end: against a member (a new challenge, a new thread) and the computer."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.services.matches import MatchService
from bot.storage.errors import StorageError
from bot.views import common
from tests.bot_harness import Harness, challenge_id, eventually, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.discord_standin.faults import RestFault
from tests.discord_standin.model import VIEW_CHANNEL

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


async def accepted_in_thread(
    table: Harness, challenger: FakeMember, opponent: FakeMember, line: StoredMessage | None = None
) -> FakeChannel:
    """Challenge (or take ``line``, a posted challenge), accept it, and return the thread."""
    if line is None:
        line = await table.reply_text(challenger, "challenge", {"opponent": opponent, "sets": 1})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", opponent)
    assert line.thread is not None
    await table.wait_board(channel=line.thread)
    return line.thread


async def attackers_win(table: Harness, thread: FakeChannel) -> StoredMessage:
    """alice (attacking) and bob play ATTACKERS_WIN in ``thread``; returns the last answer,
    the match's end."""
    last = None
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        last = await table.reply_text(who, "move", {"move": text}, channel=thread)
    assert last is not None
    return last


async def resigned_against_the_computer(table: Harness) -> StoredMessage:
    """alice challenges the computer (level 1, one set) in a thread of her own and resigns at
    once: the post of the match's end, with its Rematch button."""
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.me, "sets": 1, "level": 1}
    )
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    ask = await table.reply_text(table.alice, "resign", channel=thread)
    await (await table.standin.click(ask, ask.custom_ids()[0], table.alice)).wait_original()
    return await table.standin.wait_for_message(
        thread, lambda m: "wins the game" in m.content, timeout=10
    )


def rematch_id(message: StoredMessage) -> str:
    """The Rematch button's custom_id."""
    [found] = [c for c in message.custom_ids() if c.startswith("rematch:")]
    return found


async def test_rematch_against_a_member_posts_a_challenge_that_opens_a_new_thread(
    table: Harness,
) -> None:
    """bob asks for a rematch in the thread; the challenge appears in #games, sides swapped."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    assert "wins the game" in last.content
    pressed = await table.standin.click(last, rematch_id(last), table.bob)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.alice.id}> can accept it there."
    )
    offer = table.public_messages()[-1]
    assert offer.channel is table.channel
    assert offer.content.startswith(f"<@{table.alice.id}>, <@{table.bob.id}> challenges you")
    assert f"<@{table.bob.id}> plays the attackers, " in offer.content
    assert offer.pinged_user_ids() == {table.alice.id}
    second = await accepted_in_thread(table, table.bob, table.alice, line=offer)
    assert second is not thread
    board = await table.wait_board(channel=second)
    assert f"<@{table.bob.id}> attacks, <@{table.alice.id}> defends" in board.content


async def test_rematch_pressed_by_both_players_at_once_offers_one(table: Harness) -> None:
    """alice and bob press Rematch at the same moment, bob twice: one challenge is posted and
    pings once; the other presses are told, privately, where it is."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    before = len(table.public_messages())
    presses = [
        await table.standin.click(last, rematch_id(last), who, wait=False)
        for who in (table.alice, table.bob, table.bob)
    ]
    for pressed in presses:
        await table.standin.wait_answered(pressed, timeout=10)
    answers = [await pressed.wait_original() for pressed in presses]
    offers = [m for m in table.public_messages()[before:] if "challenges you" in m.content]
    assert len(offers) == 1
    assert all(answer.ephemeral for answer in answers)
    offered = [a for a in answers if a.content.startswith("Rematch offered in")]
    refused = [a for a in answers if a not in offered]
    assert len(offered) == 1
    assert len(refused) == 2
    # Where the offer is: a link to it, or its channel while its message is being posted.
    where = rf"(https://discord\.com/channels/\d+/{table.channel.id}/\d+|<#{table.channel.id}>)"
    for a in refused:
        assert re.fullmatch(
            rf"(Your challenge to <@\d+> is still open \({where}\): wait for the answer, or "
            rf"withdraw it first\.|<@\d+> has already challenged you \({where}\): accept or "
            r"decline that one\.)",
            a.content,
        ), a.content


async def test_a_rematch_withdrawn_and_asked_again_pings_once(table: Harness) -> None:
    """bob asks for a rematch, withdraws it and asks again: alice is pinged by the first
    only, and bob is told privately why the second did not ping her."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    pinged = []
    for _ in range(2):
        answer = await (
            await table.standin.click(last, rematch_id(last), table.bob)
        ).wait_original()
        offer = table.public_messages()[-1]
        pinged.append(offer.pinged_user_ids())
        await table.standin.click(offer, f"challenge:withdraw:{challenge_id(offer)}", table.bob)
    assert pinged == [{table.alice.id}, set()]
    assert answer.ephemeral
    assert answer.content.startswith(
        f"Rematch offered in <#{table.channel.id}> without pinging <@{table.alice.id}>: your "
        "challenges ping them at most once every 15 minutes (next <t:"
    )


async def test_a_rematch_discord_would_not_post_does_not_hold_the_pair(table: Harness) -> None:
    """The channel refuses the rematch's post (403): bob is told, and once the channel takes
    posts again his next press offers the rematch (the unshown challenge was withdrawn)."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    refused = table.standin.fail_rest(
        403,
        seconds=60,
        matching=lambda method, path: (
            method == "POST" and path == f"/channels/{table.channel.id}/messages"
        ),
    )
    first = await table.standin.click(last, rematch_id(last), table.bob)
    assert (await first.wait_original()).ephemeral
    assert refused.hits == 1
    table.standin.end_faults()
    again = await table.standin.click(last, rematch_id(last), table.bob)
    answer = await again.wait_original()
    assert answer.content.startswith("Rematch offered in"), answer.content


async def test_only_the_players_may_ask_for_a_rematch(table: Harness) -> None:
    """carol pressing Rematch on alice and bob's match is told she did not play it."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    pressed = await table.standin.click(last, rematch_id(last), table.carol)
    answer = await pressed.wait_original()
    assert answer.content == "Only the two players of that match can ask for a rematch."


async def test_rematch_against_the_computer_starts_at_once_with_sides_swapped(
    table: Harness,
) -> None:
    """alice resigns a one-set game against the computer in its thread; Rematch starts her as
    the defenders in the same thread."""
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.me, "sets": 1, "level": 1}
    )
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.wait_board(lambda m: "(defenders) played" in m.content, channel=thread)
    ask = await table.reply_text(table.alice, "resign", channel=thread)
    confirmed = await table.standin.click(ask, ask.custom_ids()[0], table.alice)
    await confirmed.wait_original()
    over = await table.standin.wait_for_message(
        thread, lambda m: "wins the game" in m.content, timeout=10
    )
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=10)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    started = await pressed.wait_original()
    assert started.channel is thread
    assert started.content.startswith(
        f"Rematch: <@{table.alice.id}> plays **Brandubh (World Tafl Federation)** against the "
        "computer (level 1), as the defenders."
    )
    board = await table.wait_board(
        lambda m: m.id > started.id and "(attackers) played" in m.content,
        channel=thread,
        timeout=10,
    )
    assert f"<@{table.alice.id}>, your move as the defenders" in board.content
    # The line in the channel, which showed the first match's result, shows the rematch on.
    assert line.content == (
        f"**{table.alice.name}** vs **{table.me.name} (level 1)** · Brandubh (World Tafl "
        f"Federation) — the game is on in <#{thread.id}>."
    )


async def test_a_rematch_challenge_survives_a_restart(table: Harness) -> None:
    """The rematch offer posted before a restart is accepted after it and opens a thread."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    await (await table.standin.click(last, rematch_id(last), table.alice)).wait_original()
    offer = table.public_messages()[-1]
    await table.restart()
    second = await accepted_in_thread(table, table.alice, table.bob, line=offer)
    assert second is not thread


async def finished_in_thread(table: Harness) -> StoredMessage:
    """alice beats bob in a one-set match in its thread; the match-over message."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    assert "wins the game" in last.content, last.content
    return last


async def test_a_rematch_pressed_in_a_locked_thread_is_offered_in_the_channel(
    table: Harness,
) -> None:
    """A moderator locked the finished match's thread (I lack Manage Threads): alice's Rematch
    is offered in #games all the same, as nothing but her private answer is shown in the
    thread (she was told the thread was locked, and no rematch)."""
    over = await finished_in_thread(table)
    assert over.channel.is_thread
    await table.standin.edit_thread(over.channel, locked=True)
    await table.standin.wait_until(lambda: _locked_in_cache(table, over.channel), timeout=5)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.bob.id}> can accept it there."
    )
    offer = table.public_messages()[-1]
    assert offer.channel is table.channel
    assert offer.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> challenges you")


async def test_a_rematch_press_in_an_archived_thread_archives_it_again(table: Harness) -> None:
    """I archived the finished match's thread; bob's client opens it to press Rematch (and
    carol's, whose press is refused): the thread is archived again a little later, not left in
    everyone's list of open threads until Discord archives it a week on."""
    over = await finished_in_thread(table)
    thread = over.channel
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=5)
    for who in (table.carol, table.bob):
        await (await table.standin.click(over, rematch_id(over), who)).wait_original()
    assert not thread.archived  # opened by the client to press
    offer = table.public_messages()[-1]
    assert offer.content.startswith(f"<@{table.alice.id}>, <@{table.bob.id}> challenges you")
    assert table.bot is not None
    boards = table.bot.services.boards
    await eventually(  # armed apart from the answers
        lambda: boards.archives_due(table.now + timedelta(minutes=11)), [(1, thread.id)]
    )
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=5)


async def test_a_rematch_against_the_computer_in_a_locked_thread_is_refused(
    table: Harness,
) -> None:
    """The near miss: a rematch against the computer would be played in the locked thread,
    so alice's press is refused, saying the thread is locked, and no game starts."""
    over = await resigned_against_the_computer(table)
    await table.standin.edit_thread(over.channel, locked=True)
    await table.standin.wait_until(lambda: _locked_in_cache(table, over.channel), timeout=5)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        "A moderator locked this thread: Discord takes nothing from me here until one unlocks it."
    )
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(over.channel.id) is None


def _locked_in_cache(table: Harness, thread: FakeChannel) -> bool:
    """Whether the bot has heard that ``thread`` was locked."""
    assert table.bot is not None
    known = table.bot.get_channel(thread.id)
    return isinstance(known, discord.Thread) and known.locked


async def test_a_rematch_with_a_member_who_left_is_refused(table: Harness) -> None:
    """bob has left the server when alice presses Rematch: she is told so, and no challenge
    pinging bob is posted (one was, which nobody could ever accept)."""
    over = await finished_in_thread(table)
    await table.standin.remove_member(table.bob)
    before = len(table.public_messages())
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert table.public_messages()[before:] == []
    assert answer.ephemeral
    assert answer.content == f"<@{table.bob.id}> has left the server, so there can be no rematch."


async def test_a_rematch_is_offered_when_discord_fails_otherwise(table: Harness) -> None:
    """Discord answers the lookup of bob with a 404 that is not Unknown Member (10004 Unknown
    Guild): no proof he left, so alice's Rematch is offered (any 404 used to refuse it)."""
    over = await finished_in_thread(table)
    asked = table.standin.fail_rest(
        404,
        seconds=60,
        code=10004,
        matching=lambda method, path: method == "GET" and "/members/" in path,
    )
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert asked.hits >= 1
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.bob.id}> can accept it there."
    )


async def test_a_rematch_is_offered_with_my_member_not_cached(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """My own member has left discord.py's cache as alice presses Rematch in the match's thread
    (my permissions in #games are then not known): the rematch is offered there, where
    reading them failed and she got an apology."""
    over = await finished_in_thread(table)
    assert table.bot is not None
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    members = table.bot.flow.members
    member_now = members.member_now

    async def looked_up_with_my_member_gone(guild_id: int, user_id: int) -> Any:
        if guild.me is not None:
            guild._remove_member(guild.me)  # the press brings my member; it is gone meanwhile
        return await member_now(guild_id, user_id)

    monkeypatch.setattr(members, "member_now", looked_up_with_my_member_gone)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert guild.me is None
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.bob.id}> can accept it there."
    )
    offer = table.public_messages()[-1]
    assert offer.channel is table.channel
    assert offer.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> challenges you")


async def test_a_rematch_with_a_member_who_cannot_see_the_channel_is_refused(
    table: Harness,
) -> None:
    """#games was made private after the match and bob cannot see it: alice's Rematch says so
    instead of posting a challenge there that he could never answer."""
    over = await finished_in_thread(table)
    await table.standin.set_overwrite(table.channel, table.guild, deny=VIEW_CHANNEL)
    for member in (table.alice, table.me):
        await table.standin.set_overwrite(table.channel, member, allow=VIEW_CHANNEL)
    before = len(table.public_messages())
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert table.public_messages()[before:] == []
    assert answer.ephemeral
    assert answer.content == (
        f"<@{table.bob.id}> cannot see <#{table.channel.id}>, where the rematch would be "
        "offered, so they could not answer it."
    )


async def test_a_second_rematch_press_against_the_computer_says_it_is_on(table: Harness) -> None:
    """alice presses Rematch again after her rematch against the computer began: she is told
    it is on (she was told to challenge from the channel)."""
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.me, "sets": 1, "level": 1}
    )
    await table.standin.wait_until(lambda: line.thread is not None, timeout=5)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.wait_board(lambda m: "(defenders) played" in m.content, channel=thread)
    ask = await table.reply_text(table.alice, "resign", channel=thread)
    await (await table.standin.click(ask, ask.custom_ids()[0], table.alice)).wait_original()
    over = await table.standin.wait_for_message(
        thread, lambda m: "wins the game" in m.content, timeout=10
    )
    first = await table.standin.click(over, rematch_id(over), table.alice)
    assert (await first.wait_original()).content.startswith("Rematch:")
    second = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await second.wait_original()
    assert answer.ephemeral
    assert answer.content == "Your rematch is already on: play it here."


async def test_rematch_pressed_twice_at_once_against_the_computer_says_it_is_on(
    table: Harness,
) -> None:
    """alice presses Rematch twice at the same moment: one match starts, and the other press
    is told it is on (it was told to challenge from the channel)."""
    over = await resigned_against_the_computer(table)
    presses = await asyncio.gather(
        *(table.standin.click(over, rematch_id(over), table.alice, wait=False) for _ in "ab")
    )
    answers = []
    for press in presses:
        await table.standin.wait_answered(press, timeout=10)
        answers.append(await press.wait_original())
    assert sorted(a.ephemeral for a in answers) == [False, True]
    [refused] = [a for a in answers if a.ephemeral]
    assert refused.content == "Your rematch is already on: play it here."


async def test_a_rematch_right_after_a_quick_match_pings_the_opponent(table: Harness) -> None:
    """alice challenged bob and won within minutes; her Rematch pings bob (a match was played:
    the pause on pings is for challenges withdrawn and asked again)."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    answer = await (await table.standin.click(last, rematch_id(last), table.alice)).wait_original()
    assert answer.content.startswith("Rematch offered in ")
    offer = table.public_messages()[-1]
    assert offer.pinged_user_ids() == {table.bob.id}


async def test_a_rematch_after_a_match_pings_even_when_an_earlier_challenge_was_withdrawn(
    table: Harness,
) -> None:
    """alice challenged bob, withdrew and challenged again (unpinged); bob accepted and lost
    within minutes: her Rematch pings him (the match played since ends the pause)."""
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    assert first.pinged_user_ids() == {table.bob.id}
    await table.standin.click(first, f"challenge:withdraw:{challenge_id(first)}", table.alice)
    second = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    assert second.pinged_user_ids() == set()
    thread = await accepted_in_thread(table, table.alice, table.bob, second)
    last = await attackers_win(table, thread)
    answer = await (await table.standin.click(last, rematch_id(last), table.alice)).wait_original()
    assert answer.content.startswith("Rematch offered in ")
    offer = table.public_messages()[-1]
    assert offer.pinged_user_ids() == {table.bob.id}


@pytest.mark.parametrize(
    ("threads", "why"),
    [
        ("off", "Threads are off on this server, so the game is played in this channel."),
        ("refused", "The last match was played here, so the rematch is too."),
    ],
)
async def test_a_rematch_against_the_computer_in_the_channel_says_why(
    table: Harness, threads: str, why: str
) -> None:
    """alice's match against the computer was played in #games (threads off, or Discord
    refused its thread); her Rematch is played there too, and its first board says why, as
    her /challenge's did (it said nothing)."""
    if threads == "off":
        await table.reply_text(table.admin, "settings", {"threads": "off"})
    else:
        table.standin.world.thread_creation_error = (403, 50013, "Missing Permissions")
    await table.reply_text(table.alice, "challenge", {"opponent": table.me, "sets": 1, "level": 1})
    await table.wait_board()
    ask = await table.reply_text(table.alice, "resign")
    await (await table.standin.click(ask, ask.custom_ids()[0], table.alice)).wait_original()
    over = await table.wait_board(lambda m: "wins the game" in m.content)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    started = await pressed.wait_original()
    assert started.channel is table.channel
    assert started.content.split("\n")[:2] == [
        f"Rematch: <@{table.alice.id}> plays **Brandubh (World Tafl Federation)** against the "
        "computer (level 1), as the defenders.",
        why,
    ], started.content


def posts_lost(table: Harness, status: int, requests: int) -> RestFault:
    """The next ``requests`` posts in #games are made, but their answers are lost (``status``)."""
    return table.standin.lose_answers(
        status,
        requests=requests,
        matching=lambda method, path: (
            method == "POST" and path == f"/channels/{table.channel.id}/messages"
        ),
    )


@pytest.mark.parametrize("status", [500, 503])
async def test_a_rematch_made_but_its_answer_lost_is_offered_once(
    table: Harness, status: int
) -> None:
    """Discord makes bob's rematch challenge in #games but its answer is lost (a 500, which
    discord.py tries again itself, or a 503, which it does not): one challenge is shown,
    pinging alice once, bob is told it is offered, and alice can accept it (before, after a
    503 the challenge shown was withdrawn as never shown, and bob read an apology)."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    before = len(table.public_messages())
    lost = posts_lost(table, status, 1)
    pressed = await table.standin.click(last, rematch_id(last), table.bob)
    answer = await pressed.wait_original()
    assert lost.hits == 1
    offers = [m for m in table.public_messages()[before:] if "challenges you" in m.content]
    assert len(offers) == 1
    assert offers[0].pinged_user_ids() == {table.alice.id}
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.alice.id}> can accept it there."
    )
    accepted = await accepted_in_thread(table, table.bob, table.alice, line=offers[0])
    assert accepted is not thread


async def test_a_rematch_whose_second_try_loses_its_answer_too_is_still_offered(
    table: Harness,
) -> None:
    """Discord makes bob's rematch challenge, and both tries at it (the second under the same
    nonce) have their answers lost (503): it is found in the channel, bob is told it is
    offered, and alice can accept it (before, it was withdrawn as never shown while alice saw
    it, and bob read an apology)."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    before = len(table.public_messages())
    lost = posts_lost(table, 503, 2)
    pressed = await table.standin.click(last, rematch_id(last), table.bob)
    answer = await pressed.wait_original()
    assert lost.hits == 2
    offers = [m for m in table.public_messages()[before:] if "challenges you" in m.content]
    assert len(offers) == 1
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.alice.id}> can accept it there."
    )
    accepted = await accepted_in_thread(table, table.bob, table.alice, line=offers[0])
    assert accepted is not thread


async def test_a_rematch_posted_whose_message_cannot_be_noted_is_still_told_offered(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's rematch challenge is posted, pinging alice, but the database cannot note its
    message: bob is told it is offered (before, he read an apology for a challenge alice sees
    and can accept)."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    before = len(table.public_messages())
    assert table.bot is not None

    async def unwritable(challenge_id: int, message_id: int) -> None:
        raise StorageError("database is locked")

    monkeypatch.setattr(table.bot.services.challenges, "set_message", unwritable)
    pressed = await table.standin.click(last, rematch_id(last), table.bob)
    answer = await pressed.wait_original()
    assert answer.content == (
        f"Rematch offered in <#{table.channel.id}>: <@{table.alice.id}> can accept it there."
    )
    offers = [m for m in table.public_messages()[before:] if "challenges you" in m.content]
    assert len(offers) == 1
    monkeypatch.undo()
    accepted = await accepted_in_thread(table, table.bob, table.alice, line=offers[0])
    assert accepted is not thread


async def test_a_rematch_against_the_computer_whose_press_cannot_be_deferred_begins(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's Rematch against the computer is slow to store, and Discord cannot be reached
    for its deferral: the rematch, stored, begins all the same: the computer, attacking now,
    opens it, and the line in the channel says the game is on."""
    over = await resigned_against_the_computer(table)
    line = await table.standin.wait_for_message(
        table.channel, lambda m: " won. " in m.content, timeout=10
    )
    table.expect_apology = True  # the press's error, its answer unknown to Discord
    storing = asyncio.Event()
    real_defer = discord.InteractionResponse.defer
    real_start = MatchService.start_computer_match

    async def slow_start(self: MatchService, *args: Any, **kwargs: Any) -> Any:
        storing.set()
        await asyncio.sleep(common.ANSWER_BEFORE + 0.5)  # deferred meanwhile
        return await real_start(self, *args, **kwargs)

    async def unreachable(response: discord.InteractionResponse[Any], **kwargs: Any) -> Any:
        if not storing.is_set():  # the checks before, slow under load, may defer
            return await real_defer(response, **kwargs)
        raise ConnectionResetError("Discord cannot be reached")

    monkeypatch.setattr(MatchService, "start_computer_match", slow_start)
    monkeypatch.setattr(discord.InteractionResponse, "defer", unreachable)
    # Never answered: the stand-in's wait for its answer is left behind.
    pressed = asyncio.create_task(table.standin.click(over, rematch_id(over), table.alice))
    thread = over.channel
    await table.wait_board(
        lambda m: m.id > over.id and "(attackers) played" in m.content, channel=thread, timeout=20
    )
    await table.standin.wait_until(lambda: "the game is on" in line.content, timeout=10)
    pressed.cancel()


async def test_a_rematch_against_the_computer_in_a_private_thread_i_left_is_refused(
    table: Harness,
) -> None:
    """alice's match against the computer in her private thread, over, and a moderator then
    removes me from the thread: her Rematch, which would be played there, is refused as
    /challenge there is, and no game starts (before, it began where nothing I post on my own
    reaches)."""
    games = table.guild.channel("games")
    secret = await table.standin.start_member_thread(games, "secret", table.alice, private=True)
    await table.standin.add_to_thread(secret, table.me, by=table.alice)
    await table.reply_text(
        table.alice, "challenge", {"opponent": table.me, "sets": 1, "level": 1}, channel=secret
    )
    await table.wait_board(channel=secret)
    ask = await table.reply_text(table.alice, "resign", channel=secret)
    await (await table.standin.click(ask, ask.custom_ids()[0], table.alice)).wait_original()
    over = await table.standin.wait_for_message(
        secret, lambda m: "wins the game" in m.content, timeout=10
    )
    await table.standin.remove_from_thread(secret, table.me)
    assert table.bot is not None
    await table.standin.wait_until(lambda: _out_of(table, secret), timeout=5)
    pressed = await table.standin.click(over, rematch_id(over), table.alice)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        "I am not a member of this private thread, so nothing I post on my own (reminders, "
        "results on time) would reach it: add me to the thread, or start the game in another "
        "channel."
    )
    assert await table.bot.services.games.in_channel(secret.id) is None


def _out_of(table: Harness, thread: FakeChannel) -> bool:
    """Whether the bot has heard that it was removed from ``thread``."""
    assert table.bot is not None
    known = table.bot.get_channel(thread.id)
    return not isinstance(known, discord.Thread) or known.me is None


async def test_a_rematch_into_a_channel_discord_asks_to_wait_says_why(table: Harness) -> None:
    """Discord answers posts in #games with 429, to wait ten minutes: bob's Rematch press is
    told, in one sentence, that Discord asks the bot to wait and when to try again (before: the
    apology for something gone wrong, and an error logged), and nothing more is sent into the
    wait; his presses after it, in each language, are refused alike without a request."""
    thread = await accepted_in_thread(table, table.alice, table.bob)
    last = await attackers_win(table, thread)
    limited = table.standin.rate_limit(
        retry_after=600,
        requests=1000,
        matching=lambda method, path: (
            method == "POST" and path == f"/channels/{table.channel.id}/messages"
        ),
    )
    told = {  # ten minutes, not "600 seconds" (before)
        "en-US": "Discord asks me to wait before posting in that channel: try again in 10 minutes.",
        "de": "Discord bittet mich, mit Beiträgen in diesem Kanal zu warten: Versuch es in 10 "
        "Minuten noch einmal.",
        "es-ES": "Discord me pide que espere antes de publicar en ese canal: inténtalo de nuevo "
        "en 10 minutos.",
        "fr": "Discord me demande d'attendre avant de publier dans ce salon : réessayez dans 10 "
        "minutes.",
        "pt-BR": "O Discord me pede para esperar antes de postar nesse canal: tente de novo em 10 "
        "minutos.",
    }
    for locale, sentence in told.items():  # each press his own language: all after the first
        table.bob.user.locale = locale  # are refused without a request
        pressed = await table.standin.click(last, rematch_id(last), table.bob)
        answer = await pressed.wait_original()
        assert answer.ephemeral
        assert answer.content == sentence
    assert limited.hits == 1
