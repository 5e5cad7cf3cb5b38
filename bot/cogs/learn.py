"""Learning from the engine: /analyse a finished set, and /puzzle."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.errors import require_channel_permissions


class Learn(commands.Cog):
    """Post-game analysis and puzzles."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="analyse")
    @app_commands.guild_only()
    @app_commands.describe(game="A finished game's number (default: this channel's latest set)")
    async def analyse(
        self,
        interaction: discord.Interaction[BrandubhBot],
        game: app_commands.Range[int, 1, 2**53 - 1] | None = None,
    ) -> None:
        """See where a finished set turned: a win-chance graph, the worst moves, better ones."""
        require_channel_permissions(interaction)
        await self.bot.analysis.analyse(interaction, game)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Learn(bot))
