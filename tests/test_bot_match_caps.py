"""A member plays at most 20 matches against members at once in a server, end to end: each
accepted challenge opens a public thread, and Discord caps a server's active threads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.services.domain import MAX_MEMBER_MATCHES
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


def accept_id(line: StoredMessage) -> str:
    """The Accept button's custom_id of a challenge message."""
    return f"challenge:accept:{challenge_id(line)}"


async def accepted(table: Harness, challenger: FakeMember, opponent: FakeMember) -> FakeChannel:
    """A one-set challenge from ``challenger``, accepted by ``opponent``: its thread."""
    line = await table.reply_text(challenger, "challenge", {"opponent": opponent, "sets": 1})
    await table.standin.click(line, accept_id(line), opponent)
    assert line.thread is not None, line.content
    await table.wait_board(channel=line.thread)
    return line.thread


async def resign(table: Harness, who: FakeMember, thread: FakeChannel) -> StoredMessage:
    """``who`` resigns the one-set match of ``thread``; its result, with Rematch."""
    asked = await table.reply_text(who, "resign", channel=thread)
    await (await table.standin.click(asked, asked.custom_ids()[0], who)).wait_original()
    return await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)


async def refused(table: Harness, line: StoredMessage, who: FakeMember) -> str:
    """``who`` presses Accept on ``line``: the private refusal's text."""
    answer = await (await table.standin.click(line, accept_id(line), who)).wait_original()
    assert answer.ephemeral, answer.content
    return answer.content


async def test_a_member_playing_twenty_matches_against_members_starts_no_other(
    table: Harness,
) -> None:
    """alice, playing 20 matches against members, may neither challenge, nor ask for a rematch,
    nor accept ada's earlier challenge; nor may carol accept alice's earlier challenge, which
    stays open, refused without a thread, until alice has resigned one."""
    assert MAX_MEMBER_MATCHES == 20
    threads = [await accepted(table, table.alice, table.bob) for _ in range(19)]
    waiting = await table.reply_text(table.alice, "challenge", {"opponent": table.carol})
    by_ada = await table.reply_text(table.admin, "challenge", {"opponent": table.alice})
    threads.append(await accepted(table, table.alice, table.bob))
    full = (
        "You are already playing 20 matches against members in this server: finish one, or "
        f"resign it, before you start another ({table.mention('games')} lists them)."
    )
    again = await table.reply_text(table.alice, "challenge", {"sets": 1})
    assert again.ephemeral
    assert again.content == full
    assert await refused(table, waiting, table.carol) == (
        f"<@{table.alice.id}> is already playing 20 matches against members in this server: "
        f"this challenge can be accepted once they finish one ({table.mention('games')} lists "
        "them)."
    )
    assert waiting.thread is None
    assert accept_id(waiting) in waiting.custom_ids()
    assert await refused(table, by_ada, table.alice) == full
    assert len(table.standin.world.threads_of(table.channel)) == 20
    result = await resign(table, table.alice, threads[0])
    await table.standin.click(waiting, accept_id(waiting), table.carol)
    assert waiting.thread is not None
    rematch = next(c for c in result.custom_ids() if c.startswith("rematch:"))
    asked = await (await table.standin.click(result, rematch, table.alice)).wait_original()
    assert asked.ephemeral
    assert asked.content == full
    assert len(table.standin.world.threads_of(table.channel)) == 21


async def test_a_member_at_the_limit_is_named_to_whoever_accepts_an_open_challenge(
    table: Harness,
) -> None:
    """bob, playing 20 matches against members, is refused privately when he accepts carol's
    challenge open to anyone; the challenge stays open, and alice may take it."""
    for _ in range(20):
        await accepted(table, table.bob, table.alice if _ % 2 else table.admin)
    anyone = await table.reply_text(table.carol, "challenge", {"sets": 1})
    assert await refused(table, anyone, table.bob) == (
        "You are already playing 20 matches against members in this server: finish one, or "
        f"resign it, before you start another ({table.mention('games')} lists them)."
    )
    assert anyone.thread is None
    await table.standin.click(anyone, accept_id(anyone), table.alice)
    assert anyone.thread is not None


async def test_a_member_at_the_limit_is_not_challenged_by_name_until_they_finish_one(
    table: Harness,
) -> None:
    """carol's challenge to alice, who plays 20 matches against members, and bob's Rematch of
    his match against her are refused privately, naming her: neither is posted nor pings her,
    and once she has resigned one both go out."""
    first = await accepted(table, table.bob, table.alice)
    result = await resign(table, table.bob, first)
    threads = [await accepted(table, table.alice, table.admin) for _ in range(MAX_MEMBER_MATCHES)]
    posted = len(table.public_messages()), len(table.public_messages(first))
    later = (
        f"<@{table.alice.id}> is already playing 20 matches against members in this server: "
        f"challenge them once they finish one ({table.mention('games')} lists them)."
    )
    by_carol = await table.reply_text(table.carol, "challenge", {"opponent": table.alice})
    assert by_carol.ephemeral
    assert by_carol.content == later
    rematch = next(c for c in result.custom_ids() if c.startswith("rematch:"))
    by_bob = await (await table.standin.click(result, rematch, table.bob)).wait_original()
    assert by_bob.ephemeral
    assert by_bob.content == (
        f"<@{table.alice.id}> is already playing 20 matches against members in this server: "
        f"ask for the rematch again once they finish one ({table.mention('games')} lists them)."
    )
    assert (len(table.public_messages()), len(table.public_messages(first))) == posted
    await resign(table, table.alice, threads[0])
    by_carol = await table.reply_text(table.carol, "challenge", {"opponent": table.alice})
    assert not by_carol.ephemeral
    assert by_carol.pinged_user_ids() == {table.alice.id}
    by_bob = await (await table.standin.click(result, rematch, table.bob)).wait_original()
    assert by_bob.content.startswith("Rematch offered in"), by_bob.content
