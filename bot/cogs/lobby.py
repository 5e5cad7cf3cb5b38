"""/games: the server's games in progress, and where to watch them."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.views.common import answer, within_deadline
from bot.views.games import games_message


class Lobby(commands.Cog):
    """Finding games."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="games")
    @app_commands.guild_only()
    @app_commands.describe(player="Only the games of this member")
    async def games(
        self,
        interaction: discord.Interaction[BrandubhBot],
        player: discord.Member | None = None,
    ) -> None:
        """The games being played in this server, with a link to each."""
        assert interaction.guild_id is not None
        if player is not None:
            await self.bot.remember(player)  # the title names them, played before or not
        embed, view = await within_deadline(
            interaction,
            games_message(
                interaction, interaction.guild_id, None if player is None else player.id, 0
            ),
        )
        await answer(
            interaction, embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none()
        )


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Lobby(bot))
