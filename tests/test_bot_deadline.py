"""Discord's 3 seconds: every interaction of a burst is acknowledged in time."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.views import common
from tests.bot_harness import Harness, challenge_id, eventually, running_bot, timers_checked
from tests.discord_standin import DiscordStandin, InteractionRecord
from tests.discord_standin.recorder import CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

CHANNELS = [f"table-{n}" for n in range(6)]


async def test_a_burst_of_commands_is_answered_within_three_seconds(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Sixty commands at once across six games (boards, moves, rules, stats) all get answers."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", channels=CHANNELS)
    await table.start()
    try:
        for name in CHANNELS:
            channel = table.guild.channel(name)
            challenge = await table.slash(
                table.alice, "challenge", {"opponent": table.bob}, channel=channel
            )
            message = await challenge.wait_original()
            await discord_standin.click(
                message, f"challenge:accept:{challenge_id(message)}", table.bob
            )
        sent: list[InteractionRecord] = []
        for name in CHANNELS:
            channel = table.guild.channel(name)
            for command, who, options in (
                ("move", table.alice, {"move": "d1-b1"}),
                ("board", table.carol, {}),
                ("rules", table.carol, {}),
                ("leaderboard", table.bob, {}),
                ("stats", table.carol, {"player": table.alice}),
                ("move", table.bob, {"move": "d3-a3"}),
                ("board", table.bob, {}),
                ("resign", table.carol, {}),
                ("export", table.alice, {}),
                ("move", table.carol, {"move": "d1-d2"}),
            ):
                sent.append(
                    await discord_standin.slash(
                        table.guild, channel, who, command, options, wait=False
                    )
                )
        # The stand-in refuses a callback later than Discord's 3 seconds (10062), as Discord
        # does; wait_answered raises for a refused or missing answer. How fast the answers are is
        # measured by benchmarks/bot_latency.py, not asserted here.
        await asyncio.gather(*(discord_standin.wait_answered(r, timeout=10) for r in sent))
        assert all(r.answered for r in sent)
    finally:
        await table.stop()


async def test_a_busy_process_defers_at_once_and_the_board_follows(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With BUSY interactions already at work, a move is deferred at once (privately: it
    could still be refused), then the board follows in public and the private "thinking..."
    goes; a process that is not busy answers directly."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        direct = await table.slash(table.alice, "move", {"move": "d1-b1"})
        await direct.wait_original()
        assert direct.response_type == CHANNEL_MESSAGE
        monkeypatch.setattr(common, "BUSY", 0)  # every interaction finds the process busy
        deferred = await table.slash(table.bob, "move", {"move": "d3-a3"})
        await deferred_board_follows(table, deferred, "played d3-a3")


async def test_an_interaction_that_arrives_late_is_deferred_at_once(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deferral counts from the interaction's creation, not from when the bot got to it:
    one already ANSWER_BEFORE old (slow to arrive, or waiting for a busy event loop) is
    deferred at once, and its board follows."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        late = timedelta(seconds=common.ANSWER_BEFORE)
        monkeypatch.setattr(common, "utcnow", lambda: datetime.now(UTC) + late)
        deferred = await table.slash(table.alice, "move", {"move": "d1-b1"})
        await deferred_board_follows(table, deferred, "played d1-b1")


async def deferred_board_follows(table: Harness, deferred: InteractionRecord, played: str) -> None:
    """``deferred`` (a /move) was deferred privately; its board (saying ``played``) is posted
    for everyone and the private "thinking..." is taken away."""
    assert deferred.response_type == DEFERRED_CHANNEL_MESSAGE
    assert deferred.ephemeral
    board = await table.wait_board(lambda m: played in m.content)
    assert any(a.filename.endswith(".png") for a in board.attachments)
    await table.standin.wait_until(
        lambda: deferred.original is not None and deferred.original.deleted,
        waiting_for="the private thinking... to go",
    )


async def test_an_interaction_discord_refuses_as_too_old_is_not_answered_again(
    discord_standin: DiscordStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A move whose answer Discord refuses as too late (a process too busy to acknowledge it in
    3 s; here the stand-in finds every callback late) is one WARNING line without a traceback,
    and no second answer that Discord would refuse too; the move, stored meanwhile, is posted
    by the outbox with its board."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob)
        caplog.set_level(logging.WARNING, logger="bot")
        discord_standin._rest._deadline = 0.0  # every callback from now on is late
        late = await discord_standin.slash(
            table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
        )
        assert table.bot is not None
        services = table.bot.services
        await discord_standin.wait_until(lambda: late.rejected is not None, waiting_for="refusal")

        async def ply() -> int | None:
            active = await services.games.in_channel(table.channel.id)
            return None if active is None else active.ply

        await eventually(ply, 1)  # the move is stored
        table.advance(timedelta(minutes=1))  # the board is due: the outbox's timer posts it

        def boards() -> list[StoredMessage]:
            return [
                m
                for m in table.public_messages()
                if "move 2 ·" in m.content
                and any(a.filename.endswith(".png") for a in m.attachments)
            ]

        await discord_standin.wait_until(lambda: bool(boards()), waiting_for="the owed board")
        await timers_checked(table)  # a second posting would have come by now
        callbacks = [c for c in discord_standin.rest_log if f"/interactions/{late.id}/" in c.path]
        assert [c.status for c in callbacks] == [404]
        refused = [r for r in caplog.records if r.name == "bot.errors"]
        assert [(r.levelno, r.exc_info) for r in refused] == [(logging.WARNING, None)]
        assert "not acknowledged within Discord's 3 seconds" in refused[0].getMessage()
        assert len(boards()) == 1
