"""/rules: the channel's ruleset, briefly, with a picture; /help: a first-timer's guide."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.views.common import answer, within_deadline
from engine import Escape, get_ruleset
from renderer import render_rules_card

_BASICS = (
    "Attackers move first. Every piece moves like a chess rook, any distance along a rank or "
    "file, never jumping. Capture a piece by trapping it between two of yours on a rank or file "
    "(moving into a trap is safe). A move that repeats a position for the third time loses, and "
    "a player with no legal move loses."
)


def rules_text(ruleset_name: str) -> str:
    """A few lines explaining ``ruleset_name`` to a newcomer."""
    rules = get_ruleset(ruleset_name)
    goal = "a corner" if rules.escape is Escape.CORNERS else "any edge square"
    size = f"{rules.size}x{rules.size}"
    heading = rules.title if size in rules.title else f"{rules.title} — {size}"
    return (
        f"**{heading}**\n"
        f"The defenders win when the king reaches {goal}; the attackers win by capturing the "
        f"king or surrounding every defender.\n{_BASICS}\n{rules.summary}\n"
        "Play with `/move` (for example `/move d1-d3`) or the **Move** button under a board. "
        "A match is two sets with sides swapped: two wins, or at one each the faster win, "
        "takes it."
    )


HELP_TEXT = (
    "**Brandubh for Discord: how to play**\n"
    "**Start a game.** `/challenge opponent:@someone` posts a challenge with **Accept**; once "
    "accepted, the game gets a thread of its own (or the channel, if the server turned threads "
    "off). Challenge me (`/challenge opponent:@Brandubh level:1-5`) to play the computer at "
    "once. A match is two sets with sides swapped.\n"
    "**Move** in any of three ways: `/move d1-d3` (also `d1 d3`, `d1 to d3`, or just `d3` "
    "when only one of your pieces can go there); `/move` and pick from the suggestions; or "
    "press **Move** under the newest board, then choose a piece and where it goes.\n"
    "**Read the picture.** Attackers are dark with a pale ring, defenders ivory with a dot, the "
    "king wears a crown. The last move is tinted with its path and taken pieces stay as faint "
    "crossed-out marks; a red frame means the king can be captured next move, blue brackets "
    "that he has an open road to an escape square.\n"
    "**Counting moves.** Every piece moved counts as one move, both sides together: move 9 is "
    'the ninth move of the set, and the match rule\'s "fewer moves" counts the same way.\n'
    "**Commands.** `/board` shows the game again · `/resign` gives up the set · `/games` lists "
    "the games in progress and where they are · `/export` gives the record and a replay · "
    "`/leaderboard` and `/stats` show ratings · `/rules` explains the rules of this game."
)


class Info(commands.Cog):
    """Explaining the game."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules")
    @app_commands.guild_only()
    async def rules(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """How to play the ruleset of this channel's game (or of this server)."""
        assert interaction.channel_id is not None
        assert interaction.guild_id is not None
        active = await self.bot.services.games.in_channel(interaction.channel_id)
        if active is not None:
            name = active.ruleset
        else:
            name = (await self.bot.services.settings.get(interaction.guild_id)).default_ruleset
        rules = get_ruleset(name)
        picture = await within_deadline(
            interaction, asyncio.to_thread(render_rules_card, rules), ephemeral=True
        )
        card = discord.File(
            io.BytesIO(picture),
            filename="rules.png",
            description=f"The starting position of {rules.title}, with its special squares.",
        )
        await answer(interaction, rules_text(name), file=card, ephemeral=True)

    @app_commands.command(name="help")
    @app_commands.guild_only()
    async def help(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """A short guide: starting a game, moving, reading the picture, the commands."""
        await interaction.response.send_message(HELP_TEXT, ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Info(bot))
