"""/rules: the channel's ruleset, briefly, with a picture; /help: a first-timer's guide."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.i18n import ENGLISH, Language, _
from bot.i18n.audience import reader
from bot.rules_page import page_name, rules_page
from bot.views.common import answer, within_deadline
from engine import Escape, get_ruleset
from renderer import render_rules_card

_BASICS = _(
    "Attackers move first. Every piece moves like a chess rook, any distance along a rank or "
    "file, never jumping. Capture a piece by trapping it between two of yours on a rank or file "
    "(moving into a trap is safe). A move that repeats a position for the third time loses, and "
    "a player with no legal move loses."
)


def rules_text(ruleset_name: str, lang: Language = ENGLISH) -> str:
    """A few lines explaining ``ruleset_name`` to a newcomer."""
    rules = get_ruleset(ruleset_name)
    title = lang.gettext(rules.title)
    size = f"{rules.size}x{rules.size}"
    heading = title if size in title else f"{title} — {size}"
    if rules.escape is Escape.CORNERS:
        goal = lang._(
            "The defenders win when the king reaches a corner; the attackers win by capturing "
            "the king or surrounding every defender."
        )
    else:
        goal = lang._(
            "The defenders win when the king reaches any edge square; the attackers win by "
            "capturing the king or surrounding every defender."
        )
    return "\n".join(
        (
            f"**{heading}**",
            goal,
            lang.render(_BASICS),
            lang.gettext(rules.summary),
            lang._(
                "Play with `/move` (for example `/move d1-d3`) or the **Move** button under a "
                "board. A match is two sets with sides swapped: two wins, or at one each the "
                "faster win, takes it."
            ),
        )
    )


HELP_TEXT = (
    _("**Brandubh for Discord: how to play**"),
    _(
        "**Start a game.** `/challenge opponent:@someone` posts a challenge with **Accept** "
        "(leave out the opponent and anyone may accept it); "
        "once accepted, the game gets a thread of its own (or the channel, if the server turned "
        "threads off). Challenge me (`/challenge opponent:@Brandubh level:1-5`) to play the "
        "computer at once. A match is two sets with sides swapped."
    ),
    _(
        "**Move** in any of three ways: `/move d1-d3` (also `d1 d3`, `d1 to d3`, or just `d3` "
        "when only one of your pieces can go there); `/move` and pick from the suggestions; or "
        "press **Move** under the newest board, then choose a piece and where it goes."
    ),
    _(
        "**Read the picture.** Attackers are dark with a pale ring, defenders ivory with a dot, "
        "the king wears a crown. The last move is tinted with its path and taken pieces stay as "
        "faint crossed-out marks; a red frame means the king can be captured next move, blue "
        "brackets that he has an open road to an escape square."
    ),
    _(
        "**Counting moves.** Every piece moved counts as one move, both sides together: move 9 "
        'is the ninth move of the set, and the match rule\'s "fewer moves" counts the same way.'
    ),
    _(
        "**Commands.** `/board` shows the game again · `/resign` gives up the set · `/games` "
        "lists the games in progress and where they are · `/export` gives the record and a "
        "replay · `/leaderboard` and `/stats` show ratings · `/rules` explains the rules of this "
        "game."
    ),
    _(
        "**The rules.** `/rules` sums up this game's rules and attaches the full rules page, "
        "with a diagram for every capture."
    ),
)
"""The /help guide, a paragraph per message."""


def help_text(lang: Language = ENGLISH) -> str:
    """The /help guide in ``lang``."""
    return "\n".join(lang.render(paragraph) for paragraph in HELP_TEXT)


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
        lang = reader(interaction)
        picture = await within_deadline(
            interaction, asyncio.to_thread(render_rules_card, rules, words=lang), ephemeral=True
        )
        card = discord.File(
            io.BytesIO(picture),
            filename="rules.png",
            description=lang._(
                "The starting position of {ruleset}, with its special squares.",
                ruleset=lang.gettext(rules.title),
            ),
        )
        page = discord.File(
            io.BytesIO(rules_page(lang.tag)),
            filename=page_name(lang.tag),
            description=lang._("The full rules page: every rule, every board, the match."),
        )
        text = "\n".join(
            (
                rules_text(name, lang),
                lang._(
                    "Every rule, with a diagram for each capture, is in the attached rules page."
                ),
            )
        )
        await answer(interaction, text, files=[card, page], ephemeral=True)

    @app_commands.command(name="help")
    @app_commands.guild_only()
    async def help(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """A short guide: starting a game, moving, reading the picture, the commands."""
        await interaction.response.send_message(help_text(reader(interaction)), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Info(bot))
