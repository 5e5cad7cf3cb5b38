"""An open challenge that never went out (its deferral or its post refused by Discord) gives
back the claim on the server's open-challenge role ping it took: nobody heard it, so the
challenger's next open challenge pings the role (bot/flow/challenge_posts.py); one the
database could not close then gives way to the next. The first test pins behaviour that
already works (bot/services/challenges.py ``forget_unshown``)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage.errors import StorageError
from tests.bot_harness import Harness, challenge_id, running_bot, until
from tests.discord_standin import DiscordStandin, FakeRole
from tests.foreign_lock import foreign_write_lock
from tests.test_bot_open_challenges import open_challenge
from tests.test_bot_slow_first_reads import settings_read_anew
from tests.test_bot_slow_refusals import SLOW_WRITE_SECONDS, private_answer_gone, slow_reads
from tests.test_bot_stored_answers import _channel_posts, _first_answers

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server whose open challenges ping the role "Tafl players"."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def role_pinged(table: Harness) -> FakeRole:
    """The role "Tafl players", made the server's open-challenge role by its admin."""
    players = await table.standin.add_role(table.guild, "Tafl players", mentionable=True)
    await table.reply_text(table.admin, "settings", {"open_challenge_role": players})
    return players


def challenge_rows(table: Harness) -> list[tuple[str, int | None]]:
    """Each challenge's status and message id, oldest first."""
    with contextlib.closing(sqlite3.connect(table.db_path)) as raw:
        rows = raw.execute("SELECT status, message_id FROM challenges ORDER BY challenge_id")
        return [(str(status), message_id) for status, message_id in rows]


def challenge_statuses(table: Harness) -> list[str]:
    """Each challenge's status, oldest first."""
    return [status for status, _message_id in challenge_rows(table)]


@pytest.mark.parametrize("refused", ["deferral", "post"])
async def test_an_open_challenge_never_shown_gives_its_role_ping_back(
    table: Harness, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """alice's open challenge claims the role's ping, then Discord refuses the interaction as
    unknown (10062): its deferral (another program took the write lock as the claim began,
    so the claim waited past 1.5 s), or its post. Her next open challenge pings the role."""
    players = await role_pinged(table)
    assert table.bot is not None
    challenges = table.bot.services.challenges
    claim = challenges.claim_role_ping
    claimed: list[object] = []
    locked = contextlib.AsyncExitStack()

    async def claimed_behind_a_lock(challenge_id: int) -> object:
        if refused == "deferral":
            lock = foreign_write_lock(table.db_path, SLOW_WRITE_SECONDS)
            await locked.enter_async_context(lock)
        claimed.append(await claim(challenge_id))
        return claimed[-1]

    monkeypatch.setattr(challenges, "claim_role_ping", claimed_behind_a_lock)
    fault = table.standin.fail_rest(404, seconds=60, code=10062, matching=_first_answers)
    async with locked:
        await table.standin.slash(
            table.guild, table.channel, table.alice, "challenge", {"sets": 1}, wait=False
        )
        await until(lambda: fault.hits == 1)
    await until(lambda: claimed == [None])  # the claim was the role's ping
    table.standin.end_faults()
    monkeypatch.setattr(challenges, "claim_role_ping", claim)
    await until(lambda: challenge_statuses(table) == ["withdrawn"])  # forgotten, as unshown
    posted = await open_challenge(table)
    assert posted.pinged_role_ids() == {players.id}, posted.content


async def test_an_open_challenge_posted_though_its_answer_was_lost_stands(
    table: Harness,
) -> None:
    """alice's open challenge is posted, pinging the role, but Discord's answer is lost (a 502;
    discord.py's second try is refused as answered already): it stands with its role ping
    used, and bob's Accept takes it (before: it was closed while shown and its ping given back
    — bob read that it was withdrawn, and alice's next one pinged the role again)."""
    players = await role_pinged(table)
    lost = table.standin.lose_answers(502, requests=1, matching=_first_answers)
    await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"sets": 1}, wait=False
    )
    posted = await table.standin.wait_for_message(
        table.channel, lambda m: not m.ephemeral and "is looking for" in m.content
    )
    assert posted.pinged_role_ids() == {players.id}
    await until(lambda: lost.hits == 1)
    await until(lambda: challenge_rows(table) != [("open", None)])  # the post's failure met
    assert challenge_rows(table) == [("open", posted.id)]
    pressed = await table.standin.click(
        posted, f"challenge:accept:{challenge_id(posted)}", table.bob
    )
    await table.standin.wait_until(lambda: "accepted" in posted.content, timeout=10)
    assert pressed.rejected is None
    assert challenge_statuses(table) == ["accepted"]


@pytest.mark.parametrize("lost", [1, 2])
async def test_an_open_challenge_posted_apart_though_its_answer_was_lost_stands(
    table: Harness, lost: int
) -> None:
    """alice's open challenge, posted apart after a slow read deferred /challenge privately,
    is made by Discord but its answer is lost (a 503, which discord.py does not try again):
    tried again under its nonce, Discord returns it, so it stands with its role ping used and
    bob's Accept takes it (before: posted without a nonce, it was closed while shown and its
    ping given back — bob read that it was withdrawn). The answer of that second try lost
    too, it is looked for among the channel's messages, as a rematch's is, and found (before:
    taken for never shown, as above). Either way alice's "thinking…" is taken away."""
    players = await role_pinged(table)
    lost_answers = table.standin.lose_answers(503, requests=lost, matching=_channel_posts)
    settings_read_anew(table)
    async with slow_reads(table):
        record = await table.standin.slash(
            table.guild, table.channel, table.alice, "challenge", {"sets": 1}, wait=False
        )
        posted = await table.standin.wait_for_message(
            table.channel, lambda m: not m.ephemeral and "is looking for" in m.content
        )
    assert posted.pinged_role_ids() == {players.id}
    await until(lambda: lost_answers.hits == lost)
    await until(lambda: challenge_rows(table) != [("open", None)], timeout=10)
    assert challenge_rows(table) == [("open", posted.id)]
    assert [m for m in table.public_messages() if "is looking for" in m.content] == [posted]
    await private_answer_gone(table, record)
    pressed = await table.standin.click(
        posted, f"challenge:accept:{challenge_id(posted)}", table.bob
    )
    await table.standin.wait_until(lambda: "accepted" in posted.content, timeout=10)
    assert pressed.rejected is None
    assert challenge_statuses(table) == ["accepted"]


async def test_an_open_challenge_never_shown_that_cannot_be_closed_gives_way_to_the_next(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's open challenge is refused by Discord (10062) and the database fails to close
    it (locked): it stays open, unseen. Her next open challenge is not refused for it (before:
    "already open" for up to an hour, this process taking it for its own post under way): the
    bot asks Discord, finds it never posted, closes it, and the next one pings the role."""
    players = await role_pinged(table)
    assert table.bot is not None
    challenges = table.bot.services.challenges
    forget = challenges.forget_unshown
    failed: list[int] = []

    async def fails_once(challenge_id: int) -> None:
        if not failed:
            failed.append(challenge_id)
            raise StorageError("database is locked")
        await forget(challenge_id)

    monkeypatch.setattr(challenges, "forget_unshown", fails_once)
    fault = table.standin.fail_rest(404, seconds=60, code=10062, matching=_first_answers)
    await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"sets": 1}, wait=False
    )
    await until(lambda: fault.hits == 1 and failed != [])
    table.standin.end_faults()
    assert challenge_statuses(table) == ["open"]  # unseen, not closed
    posted = await open_challenge(table)
    assert posted.pinged_role_ids() == {players.id}, posted.content
    assert challenge_statuses(table) == ["withdrawn", "open"]
