"""/challenge: a public challenge with Accept / Decline, or a game against the computer at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.cogs.choices import RULESET_CHOICES, SETS_CHOICES, SIDE_CHOICES, TIME_CHOICES
from bot.errors import require_channel_permissions
from bot.flow.challenges import opponent_ping
from bot.flow.posts import pinging
from bot.flow.threads import may_open_threads, member_threads_here
from bot.i18n import _
from bot.i18n.audience import reader
from bot.services.errors import (
    CannotChallengeSelf,
    ChallengeNotFound,
    InvalidOption,
    OpponentCannotSeeChannel,
)
from bot.storage.errors import StorageError
from bot.views.challenge import challenge_text, challenge_view
from bot.views.common import answer, thread_of, within_deadline
from engine import Side

_log = logging.getLogger(__name__)


DEFAULT_LEVEL = 3


class Challenge(commands.Cog):
    """Starting games."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="challenge")
    @app_commands.guild_only()
    @app_commands.describe(
        opponent="Who you want to play (leave out to let anyone accept; pick me for the computer)",
        ruleset="Which rules (default: the server's, normally brandubh)",
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
        bot = self.bot
        assert interaction.guild_id is not None
        assert interaction.channel_id is not None
        assert bot.user is not None
        if opponent is not None and opponent.id == interaction.user.id:
            raise CannotChallengeSelf()
        seen = None if opponent is None else opponent.resolved_permissions  # in this channel
        if opponent is not None and not opponent.bot and seen is not None and not seen.view_channel:
            raise OpponentCannotSeeChannel(opponent.id)
        await bot.remember(interaction.user)
        if opponent is not None:
            await bot.remember(opponent)
        settings = await bot.services.settings.get(interaction.guild_id)
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
        created = asyncio.ensure_future(
            bot.services.challenges.create(
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
                None if opponent is None else opponent.id,
                ruleset=rules,
                sets_total=sets,
                challenger_side=my_side,
                time_per_move=per_move,
                opponent_is_bot=opponent is not None and opponent.bot,
                plays_here=not may_open_threads(interaction),
                thread_of=thread_of(interaction),
                threads_here=member_threads_here(interaction),
            )
        )
        try:
            # Deferred when slow, privately: the challenge may still be refused (one sentence
            # for the challenger alone); once stored it is posted for everyone.
            challenge = await within_deadline(interaction, created, ephemeral=True)
            lang = await bot.flow.server_language(interaction.guild_id)
            text = challenge_text(challenge, lang)
            pings = pinging([] if opponent is None else [opponent.id])
            role = settings.open_challenge_role_id
            paused_until = None
            quiet_until = None
            if opponent is not None:
                # One member's challenges ping another at most once in 15 minutes: withdrawing
                # and challenging again would ping them each time. (A write: deferred in time
                # like the challenge's own, when the database is slow.)
                quiet_until = await within_deadline(
                    interaction, opponent_ping(bot, challenge.challenge_id), ephemeral=True
                )
                if quiet_until is not None:
                    pings = pinging([])
            if opponent is None and role is not None and _may_ping(interaction, role):
                # One open to anyone pings the server's role for it, if it has one; else
                # nobody. A member's open challenges ping it once in 15 minutes at most: the
                # ping is claimed before the post, which goes out without it if it cannot be.
                try:
                    paused_until = await bot.services.challenges.claim_role_ping(
                        challenge.challenge_id
                    )
                    pinged = paused_until is None
                except StorageError as error:
                    _log.warning(
                        "Challenge %s is posted without pinging role %s: its ping could not be "
                        "claimed (%s)",
                        challenge.challenge_id,
                        role,
                        error,
                    )
                    pinged = False
                if pinged:
                    text = f"<@&{role}> {text}"
                    pings = pinging([], roles=[role])
            message_id = await answer(
                interaction,
                text,
                view=challenge_view(challenge.challenge_id, lang, open_to_anyone=opponent is None),
                allowed_mentions=pings,
            )
        except Exception:
            # Stored but never shown (the deferral or the answer failed), so never answerable:
            # it must not hold the pair (one open challenge between two members) until it
            # expires.
            if created.done() and not created.cancelled() and created.exception() is None:
                with contextlib.suppress(StorageError):  # the post's own error is the one to tell
                    await bot.services.challenges.forget_unshown(created.result().challenge_id)
            raise
        # The challenge is out: what follows may fail without a word to its author.
        if message_id is not None:
            try:
                await bot.services.challenges.set_message(challenge.challenge_id, message_id)
            except (StorageError, ChallengeNotFound) as error:
                _log.warning(
                    "Challenge %s was posted, but its message could not be noted (its expiry "
                    "will not edit it): %s",
                    challenge.challenge_id,
                    error,
                )
        if quiet_until is not None and opponent is not None:
            await _tell_unpinged(
                interaction,
                reader(interaction)._(
                    "Your challenge is posted without pinging {player}: your challenges ping "
                    "them at most once every 15 minutes (next {when}).",
                    player=f"<@{opponent.id}>",
                    when=f"<t:{int(quiet_until.timestamp())}:R>",
                ),
                "its opponent",
            )
        if paused_until is not None:
            await _tell_unpinged(
                interaction,
                reader(interaction)._(
                    "Your challenge is posted without pinging {role}: your open challenges "
                    "ping it at most once every 15 minutes (next {when}).",
                    role=f"<@&{role}>",
                    when=f"<t:{int(paused_until.timestamp())}:R>",
                ),
                "the role",
            )


async def _tell_unpinged(
    interaction: discord.Interaction[BrandubhBot], text: str, whom: str
) -> None:
    """Tell the challenger, privately, that their challenge did not ping ``whom``, and why."""
    try:
        await interaction.followup.send(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException as error:
        _log.warning(
            "Could not tell user %s their challenge did not ping %s: %s",
            interaction.user.id,
            whom,
            error,
        )


def _may_ping(interaction: discord.Interaction[BrandubhBot], role_id: int) -> bool:
    """Whether a post here would notify the role: it still exists (deleted, its mention reads
    @deleted-role) and is mentionable, or I may mention every role in this channel. If not,
    the challenge names no role rather than one nobody hears, and the log says why."""
    role = None if interaction.guild is None else interaction.guild.get_role(role_id)
    if role is None:
        _log.warning("The open challenge role %s is gone: /settings can set another", role_id)
        return False
    if role.mentionable or interaction.app_permissions.mention_everyone:
        return True
    _log.warning(
        "Cannot ping the open challenge role %s in channel %s: it is not mentionable and I may "
        "not mention every role there",
        role_id,
        interaction.channel_id,
    )
    return False


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Challenge(bot))
