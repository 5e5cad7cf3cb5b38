"""A moderator deletes the bot's messages while games and challenges are on (an attack run,
stop 36): a challenge nobody can answer any more does not hold its members, and the game goes
on whatever became of its boards.

Discord does not tell the bot of a deleted message (it would need the GUILD_MESSAGES intent):
it learns of one when it asks for it. Each test failed before its fix.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.bot_harness import Harness, board_thread_game, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.discord_standin.model import READ_MESSAGE_HISTORY

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread (the bot's default)."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, ai_seconds=0.02
    ) as harness:
        yield harness


def is_challenge(message: StoredMessage) -> bool:
    """Whether ``message`` is a challenge one can still accept."""
    return any(c.startswith("challenge:accept:") for c in message.custom_ids())


async def test_a_challenge_whose_message_was_deleted_does_not_hold_the_pair(
    table: Harness,
) -> None:
    """A moderator deletes alice's challenge to bob: nobody can accept or withdraw it, so her
    next challenge to him is posted (before, it was refused for ten minutes with a link to
    the deleted message, "wait for the answer, or withdraw it first")."""
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert is_challenge(first)
    assert first.pinged_user_ids() == {table.bob.id}
    table.standin.delete_message(first)
    record = await table.slash(table.alice, "challenge", {"opponent": table.bob})
    second = await record.wait_original()
    assert not second.ephemeral, second.content
    assert is_challenge(second)
    # The first pinged bob: the second does not (her challenges ping him once in 15 minutes,
    # whoever deleted them), and alice is told so privately.
    assert second.pinged_user_ids() == set()
    told = await record.wait_followup()
    assert told.ephemeral
    assert told.content.startswith(f"Your challenge is posted without pinging <@{table.bob.id}>")
    # The first no longer counts for anything: the second is the one bob accepts.
    await table.standin.click(second, f"challenge:accept:{challenge_id(second)}", table.bob)
    assert second.thread is not None
    await table.wait_board(channel=second.thread)


async def test_the_opponent_of_a_deleted_challenge_may_challenge_back(table: Harness) -> None:
    """alice's challenge to bob is deleted: bob, who could not accept it, may challenge her
    (before: "alice has already challenged you (link): accept or decline that one")."""
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    table.standin.delete_message(first)
    back = await table.reply_text(table.bob, "challenge", {"opponent": table.alice})
    assert not back.ephemeral, back.content
    assert is_challenge(back)


async def test_an_open_challenge_whose_message_was_deleted_gives_way(table: Harness) -> None:
    """alice's challenge open to anyone is deleted: her next one is posted (before, it was
    refused: "withdraw it first to post another", with no message left to withdraw it on)."""
    first = await table.reply_text(table.alice, "challenge", {})
    assert is_challenge(first)
    table.standin.delete_message(first)
    second = await table.reply_text(table.alice, "challenge", {})
    assert not second.ephemeral, second.content
    assert is_challenge(second)


async def test_a_challenge_still_shown_still_holds_the_pair(table: Harness) -> None:
    """The near miss: alice's challenge to bob is still there, so her second is refused with
    a link to it, and nothing more is posted."""
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    before = len(table.public_messages())
    second = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert second.ephemeral
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{first.id}"
    assert second.content == (
        f"Your challenge to <@{table.bob.id}> is still open ({link}): wait for the answer, or "
        "withdraw it first."
    )
    assert len(table.public_messages()) == before
    # Seen a moment ago, it is taken to be still there for a minute (a member refused again
    # and again costs Discord one request a minute), then asked about again.
    table.standin.delete_message(first)
    third = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert third.ephemeral
    table.advance(timedelta(minutes=1))
    fourth = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert not fourth.ephemeral, fourth.content


async def finished_thread_match(table: Harness) -> tuple[FakeChannel, StoredMessage]:
    """alice (attacking) beats bob in one set in a thread of #games: the thread and the post
    of the match's end, with its Rematch button."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    thread = line.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    last = None
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        last = await table.reply_text(who, "move", {"move": text}, channel=thread)
    assert last is not None
    assert "wins the game" in last.content
    return thread, last


async def test_a_rematch_whose_offer_was_deleted_may_be_asked_again(table: Harness) -> None:
    """bob's rematch offer in #games is deleted by a moderator: his next press of Rematch
    offers it again (before, it was refused with a link to the deleted offer)."""
    _, last = await finished_thread_match(table)
    [rematch] = [c for c in last.custom_ids() if c.startswith("rematch:")]
    pressed = await (await table.standin.click(last, rematch, table.bob)).wait_original()
    assert pressed.content.startswith("Rematch offered in"), pressed.content
    [offer] = [m for m in table.public_messages() if is_challenge(m)]
    table.standin.delete_message(offer)
    again = await (await table.standin.click(last, rematch, table.bob)).wait_original()
    assert again.content.startswith("Rematch offered in"), again.content
    assert [m for m in table.public_messages() if is_challenge(m)] != []


async def test_a_takeback_request_whose_message_was_deleted_may_be_asked_again(
    table: Harness,
) -> None:
    """A moderator deletes alice's takeback request: bob can no longer answer it, so her next
    /takeback asks him again (before, she was refused for ten minutes: "A takeback is already
    waiting for an answer in this game."). It pinged him once: the new one names him
    unpinged. He accepts it, and her move is taken back."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    first = await table.reply_text(table.alice, "takeback", channel=thread)
    assert first.pinged_user_ids() == {table.bob.id}
    table.standin.delete_message(first)
    again = await table.reply_text(table.alice, "takeback", channel=thread)
    assert not again.ephemeral, again.content
    assert again.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> asks to take back")
    assert again.pinged_user_ids() == set()
    [accept] = [c for c in again.custom_ids() if c.startswith("takeback-answer:") and "accept" in c]
    await table.standin.click(again, accept, table.bob)
    assert again.content == "bob accepted the takeback."
    await table.wait_board(lambda m: "taken back" in m.content, channel=thread)


async def test_a_takeback_request_still_shown_still_waits(table: Harness) -> None:
    """The near miss: alice's request is still there, so asking again is refused, and
    nothing more is posted."""
    _, thread = await board_thread_game(table, opening=["d1-b1"])
    await table.reply_text(table.alice, "takeback", channel=thread)
    before = len(table.public_messages(thread))
    again = await table.reply_text(table.alice, "takeback", channel=thread)
    assert again.ephemeral
    assert again.content == "A takeback is already waiting for an answer in this game."
    assert len(table.public_messages(thread)) == before


async def test_a_deleted_challenge_is_not_guessed_where_i_cannot_read_messages(
    table: Harness,
) -> None:
    """Where I may not read the message history, Discord will not say whether a challenge's
    message is still there: the challenge still holds the pair until it expires (a refusal
    rather than a second challenge pinging bob while the first may be on show)."""
    await table.standin.set_overwrite(table.channel, table.me, deny=READ_MESSAGE_HISTORY)
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    table.standin.delete_message(first)
    second = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert second.ephemeral
    assert second.content.startswith(f"Your challenge to <@{table.bob.id}> is still open (")


async def test_five_deleted_challenges_do_not_hold_the_sixth(table: Harness) -> None:
    """alice has her five challenges open when a moderator clears the channel: her sixth is
    posted (before: "You already have 5 open challenges: … withdraw one", with none left to
    withdraw, for ten minutes)."""
    dave = table.standin.add_member(table.guild, "dave")
    erin = table.standin.add_member(table.guild, "erin")
    posted = []
    for opponent in (table.bob, table.carol, table.admin, dave, erin):
        posted.append(await table.reply_text(table.alice, "challenge", {"opponent": opponent}))
    assert all(is_challenge(message) for message in posted)
    refused = await table.reply_text(table.alice, "challenge", {})
    assert refused.ephemeral
    assert refused.content.startswith("You already have 5 open challenges")
    for message in posted:
        table.standin.delete_message(message)
    table.advance(timedelta(minutes=1))  # the refusal saw them a moment ago
    sixth = await table.reply_text(table.alice, "challenge", {})
    assert not sixth.ephemeral, sixth.content
    assert is_challenge(sixth)
