"""/challenge: a public challenge with Accept / Decline, or a game against the computer at once."""

from __future__ import annotations

from datetime import timedelta

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.cogs.choices import RULESET_CHOICES, SETS_CHOICES, SIDE_CHOICES, TIME_CHOICES
from bot.errors import require_channel_permissions
from bot.flow.challenge_posts import post_challenge
from bot.flow.threads import require_thread_member
from bot.i18n import _
from bot.names import account_name
from bot.services.domain import GuildSettings
from bot.services.errors import (
    CannotChallengeSelf,
    InvalidOption,
    OpponentCannotSeeChannel,
)
from bot.views.common import within_deadline
from engine import Side

DEFAULT_LEVEL = 3


class Challenge(commands.Cog):
    """Starting games."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="challenge")
    @app_commands.guild_only()
    @app_commands.describe(
        opponent="Who you want to play (leave out to let anyone accept; pick me for the computer)",
        ruleset="Which rules (default: the server's, normally Brandubh)",
        sets="One set, or a match of two with sides swapped (default 2)",
        side="Your side in the first set (default attackers)",
        level="Computer strength, 1 (gentle) to 5 (strongest); only against me",
        time="Time for each move (default: the server's, normally 1 day)",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    @app_commands.choices(sets=SETS_CHOICES)
    @app_commands.choices(side=SIDE_CHOICES)
    @app_commands.choices(time=TIME_CHOICES)
    async def challenge(
        self,
        interaction: discord.Interaction[BrandubhBot],
        opponent: discord.Member | None = None,
        ruleset: str | None = None,
        sets: int = 2,
        side: str = "attackers",
        level: app_commands.Range[int, 1, 5] | None = None,
        time: int | None = None,
    ) -> None:
        """Challenge a member to Brandubh, anyone (no opponent), or the computer (challenge me)."""
        require_channel_permissions(interaction)
        await require_thread_member(interaction)
        bot = self.bot
        assert interaction.guild_id is not None
        assert interaction.channel_id is not None
        assert bot.user is not None
        if opponent is not None and opponent.id == interaction.user.id:
            raise CannotChallengeSelf()
        seen = None if opponent is None else opponent.resolved_permissions  # in this channel
        if opponent is not None and not opponent.bot and seen is not None and not seen.view_channel:
            raise OpponentCannotSeeChannel(opponent.id)
        guild_id = interaction.guild_id

        async def read() -> GuildSettings:
            await bot.remember(interaction.user)
            if opponent is not None:
                await bot.remember(opponent)
            return await bot.services.settings.get(guild_id)

        # Names stored and the settings read, a refusal maybe after: deferred privately when
        # slow, as the challenge's own write is (bot/flow/challenge_posts.py).
        settings = await within_deadline(interaction, read(), ephemeral=True)
        per_move = timedelta(minutes=time) if time is not None else settings.time_per_move
        rules = ruleset or settings.default_ruleset
        my_side = Side(side)
        if level is not None and (opponent is None or opponent.id != bot.user.id):
            raise InvalidOption(
                _("A level is only for games against me: leave it out when you challenge a member.")
            )
        if opponent is not None and opponent.id == bot.user.id:
            await bot.flow.computer.start(
                interaction,
                level=level or DEFAULT_LEVEL,
                ruleset=rules,
                sets_total=sets,
                human_side=my_side,
                time_per_move=per_move,
            )
            return
        await post_challenge(
            bot,
            interaction,
            None if opponent is None else opponent.id,
            opponent_is_bot=opponent is not None and opponent.bot,
            ruleset=rules,
            sets_total=sets,
            challenger_side=my_side,
            time_per_move=per_move,
            role=settings.open_challenge_role_id,
            opponent_name=None
            if opponent is None
            else account_name(opponent, interaction.client.user),
        )


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Challenge(bot))
