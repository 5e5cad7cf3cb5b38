"""Reminders: at half time, and on timers of an hour or more a last one shortly before the loss."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.services.domain import ActiveGame, SetEnd
from tests.bot_harness import Harness, running_bot, timers_checked
from tests.discord_standin import DiscordStandin, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def last_reminders(table: Harness) -> list[str]:
    """The last reminders posted in the game's channel, oldest first."""
    return [m.content for m in table.public_messages() if "last reminder" in m.content]


async def test_a_last_reminder_when_a_tenth_of_an_hour_is_left(table: Harness) -> None:
    """An hour per move: reminded at half time, and again with 6 minutes left — not before —
    pinging the player to move, once; bob's own move gets its own."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    deadline = table.now + timedelta(minutes=60)
    table.advance(timedelta(minutes=31))
    await table.standin.wait_for_message(table.channel, lambda m: "reminder" in m.content)
    table.advance(timedelta(minutes=22))  # 7 minutes left
    await timers_checked(table)  # and 33 s more
    assert last_reminders(table) == []
    table.advance(timedelta(minutes=2))  # under 5 minutes left
    last = await table.standin.wait_for_message(
        table.channel, lambda m: "last reminder" in m.content
    )
    assert last.content == (
        f"<@{table.alice.id}>, last reminder: it is your move as the attackers, and your time "
        f"runs out <t:{int(deadline.timestamp())}:R>."
    )
    assert last.pinged_user_ids() == {table.alice.id}
    await timers_checked(table)
    assert len(last_reminders(table)) == 1
    await table.move(table.alice, "d1-b1")
    table.advance(timedelta(minutes=55))
    bobs = await table.standin.wait_for_message(
        table.channel, lambda m: "last reminder" in m.content and "defenders" in m.content
    )
    assert bobs.pinged_user_ids() == {table.bob.id}


async def test_a_day_per_move_is_reminded_an_hour_before(table: Harness) -> None:
    """A day per move: the last reminder comes with an hour left (a tenth would be 2.4 h)."""
    await table.challenge_accepted(table.alice, table.bob, time=24 * 60)
    table.advance(timedelta(hours=22, minutes=58))
    await timers_checked(table)  # and 33 s more: over an hour left
    assert last_reminders(table) == []
    table.advance(timedelta(minutes=3))
    await table.standin.wait_for_message(table.channel, lambda m: "last reminder" in m.content)


async def test_a_short_timer_has_only_the_half_time_reminder(table: Harness) -> None:
    """Five minutes per move: the half-time reminder only, no second one a minute later."""
    await table.challenge_accepted(table.alice, table.bob, time=5)
    table.advance(timedelta(minutes=2, seconds=31))
    await table.standin.wait_for_message(table.channel, lambda m: "reminder" in m.content)
    table.advance(timedelta(minutes=2))  # 29 seconds left
    await timers_checked(table)  # checked then, and with 18 and 7 seconds left
    assert last_reminders(table) == []


async def test_the_last_reminder_is_not_posted_again_after_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The last reminder is noted in the database: a restart does not post it a second time."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob, time=60)
        table.advance(timedelta(minutes=55))
        await table.standin.wait_for_message(table.channel, lambda m: "last reminder" in m.content)
        await table.restart()
        table.advance(timedelta(seconds=30))
        await timers_checked(table)
        assert len(last_reminders(table)) == 1
    finally:
        await table.stop()


async def test_the_last_reminder_in_french(discord_standin: DiscordStandin, tmp_path: Path) -> None:
    """In a French server the last reminder reads in French."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.reply_text(table.admin, "settings", {"language": "fr"})
        await table.challenge_accepted(table.alice, table.bob, time=60)
        table.advance(timedelta(minutes=55))
        last = await table.standin.wait_for_message(
            table.channel, lambda m: "dernier rappel" in m.content
        )
        assert last.content.startswith(
            f"<@{table.alice.id}>, dernier rappel : c'est à vous de jouer avec les attaquants, "
            "et votre temps expire <t:"
        )


def reminders(table: Harness) -> list[StoredMessage]:
    """Every reminder posted in the game's channel, deleted ones too, oldest first."""
    posted = table.standin.messages(table.channel, include_deleted=True)
    return [m for m in posted if not m.ephemeral and "reminder" in m.content]


async def test_a_move_landing_while_a_reminder_is_prepared_stops_it(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice moves while the bot asks Discord whether she is still a member, before her
    half-time reminder: it is not posted (it would ping her about a move she has made)."""
    assert table.bot is not None
    await table.challenge_accepted(table.alice, table.bob, time=60)
    departures = table.bot.flow.departures
    ask = departures.forfeit_if_left

    async def alice_moves_meanwhile(
        active: ActiveGame, *, to_move_left: bool | None = None
    ) -> SetEnd | None:
        monkeypatch.setattr(departures, "forfeit_if_left", ask)
        await table.move(table.alice, "d1-b1")
        return await ask(active, to_move_left=to_move_left)

    monkeypatch.setattr(departures, "forfeit_if_left", alice_moves_meanwhile)
    table.advance(timedelta(minutes=31))
    await table.wait_board(lambda m: "d1-b1" in m.content)
    await timers_checked(table)
    assert reminders(table) == []


async def test_a_reminder_out_after_the_move_landed_is_deleted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's move lands while her half-time reminder is being posted: the reminder, out
    after it, is deleted (a moot ping), and bob's own reminder comes as usual."""
    assert table.bot is not None
    await table.challenge_accepted(table.alice, table.bob, time=60)
    timers = table.bot.timers
    post = timers._post

    async def alice_moves_first(channel_id: int, content: str, *, ping: int, nonce: str) -> Any:
        monkeypatch.setattr(timers, "_post", post)
        await table.move(table.alice, "d1-b1")
        return await post(channel_id, content, ping=ping, nonce=nonce)

    monkeypatch.setattr(timers, "_post", alice_moves_first)
    table.advance(timedelta(minutes=31))
    await table.standin.wait_until(lambda: any(m.deleted for m in reminders(table)), timeout=10)
    [moot] = reminders(table)
    assert moot.pinged_user_ids() == {table.alice.id}
    table.advance(timedelta(minutes=31))
    bobs = await table.standin.wait_for_message(
        table.channel, lambda m: "reminder" in m.content and not m.deleted
    )
    assert bobs.pinged_user_ids() == {table.bob.id}
