"""Discord's 3 seconds: every interaction of a burst is acknowledged in time."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.bot_harness import Harness, challenge_id
from tests.discord_standin import DiscordStandin, InteractionRecord

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
