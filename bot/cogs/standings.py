"""/leaderboard (paged) and /stats."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.cogs.challenge import RULESET_CHOICES
from bot.names import escaped
from bot.services.domain import GameSummary, HeadToHead, PlayerStats
from bot.views.common import answer
from bot.views.leaderboard import (
    PAGE_SIZE,
    counted,
    leaderboard_embed,
    leaderboard_view,
    matches_won_text,
    rating_text,
)
from engine import get_ruleset


def game_line(game: GameSummary, user_id: int, computer_name: str = "Brandubh") -> str:
    """ "Won as attackers vs <@bob> in 23 moves (king captured)"."""
    side = "attackers" if game.attacker_id == user_id else "defenders"
    opponent = game.defender_id if game.attacker_id == user_id else game.attacker_id
    if game.computer_id == opponent:
        against = f"{escaped(computer_name)} (level {game.computer_level})"
    else:
        against = f"<@{opponent}>"
    if game.no_show:
        result = "Aborted (unrated: no move made)"
    elif game.outcome is None:
        result = "In progress"
    elif game.winner_id is None:
        result = "No result"
    else:
        result = "Won" if game.winner_id == user_id else "Lost"
    why = f" ({game.outcome.explanation})" if game.outcome is not None else ""
    return f"{result} as {side} vs {against} in {counted(game.moves, 'move')}{why}"


def stats_embed(
    stats: PlayerStats,
    head: HeadToHead | None,
    viewer_id: int,
    computer_name: str = "Brandubh",
) -> discord.Embed:
    """A player's rating, record, recent games and head-to-head with the viewer."""
    title = get_ruleset(stats.ruleset).title
    embed = discord.Embed(title=f"{escaped(stats.display_name)} at {title}")
    row = stats.standing
    if row is None:
        embed.description = f"No rated game of {title} finished yet."
    else:
        embed.add_field(name="Rating", value=rating_text(row.rating, row.deviation))
        embed.add_field(name="Rank", value=f"#{row.rank}")
        embed.add_field(
            name="Record",
            value=f"{row.wins} won, {row.losses} lost"
            + (f", {row.draws} drawn" if row.draws else "")
            + f"; {matches_won_text(row.matches_won)}",
            inline=False,
        )
    if stats.recent_games:
        lines = [game_line(game, stats.user_id, computer_name) for game in stats.recent_games[:5]]
        embed.add_field(name="Recent games", value="\n".join(lines), inline=False)
    if head is not None and head.games:
        mine = head.player_ids.index(viewer_id)
        theirs = 1 - mine
        embed.add_field(
            name="Head to head with you",
            value=f"You won {head.wins[mine]}, they won {head.wins[theirs]}"
            + (f", {head.draws} drawn" if head.draws else "")
            + f" ({counted(head.games, 'set')}, {counted(head.matches, 'match')})",
            inline=False,
        )
    return embed


class Standings(commands.Cog):
    """Ratings and records."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard")
    @app_commands.guild_only()
    @app_commands.describe(ruleset="Which ratings (default: the server's ruleset)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction[BrandubhBot], ruleset: str | None = None
    ) -> None:
        """This server's best players, for one ruleset (each ruleset has its own ratings)."""
        assert interaction.guild_id is not None
        pool = ruleset or await self._default_ruleset(interaction.guild_id)
        page = await self.bot.services.standings.leaderboard(
            interaction.guild_id, 0, PAGE_SIZE, ruleset=pool
        )
        name = interaction.guild.name if interaction.guild else "this server"
        view = leaderboard_view(page)
        await answer(
            interaction,
            embed=leaderboard_embed(page, name),
            view=view if view is not None else None,
        )

    @app_commands.command(name="stats")
    @app_commands.guild_only()
    @app_commands.describe(
        player="Whose record to show (default: yours)",
        ruleset="Which rating (default: the server's ruleset)",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction[BrandubhBot],
        player: discord.Member | None = None,
        ruleset: str | None = None,
    ) -> None:
        """Rating, record, recent games and head-to-head."""
        assert interaction.guild_id is not None
        await self.bot.remember(interaction.user)
        who = player or interaction.user
        if player is not None:
            await self.bot.remember(player)
        pool = ruleset or await self._default_ruleset(interaction.guild_id)
        stats = await self.bot.services.standings.player_stats(
            interaction.guild_id, who.id, ruleset=pool
        )
        head = None
        if who.id != interaction.user.id:
            head = await self.bot.services.standings.head_to_head(
                interaction.guild_id, interaction.user.id, who.id
            )
        me = self.bot.user.display_name if self.bot.user else "Brandubh"
        await answer(
            interaction,
            embed=stats_embed(stats, head, interaction.user.id, me),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _default_ruleset(self, guild_id: int) -> str:
        return (await self.bot.services.settings.get(guild_id)).default_ruleset


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Standings(bot))
