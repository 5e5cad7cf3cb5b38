"""Posting a member's challenge: stored, then shown with its buttons, pinging whom it may.

A challenge to a member pings them (at most once in 15 minutes from the same challenger); one
open to anyone pings the server's open-challenge role, if it has one and it can be heard (at
most once in 15 minutes per member). A challenge stored but never shown is forgotten, so it
does not hold the pair and the pings it claimed are given back; one Discord showed though its
answer was lost stands; what fails once it is out is logged, not told.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.answers_made import Answer, made_anyway
from bot.flow.lost_answers import post_apart_under_nonce
from bot.flow.new_challenges import (
    create_unheld,
    forget_unshown,
    opponent_ping,
    shown_anyway,
)
from bot.flow.posts import pinging
from bot.flow.threads import join_to_reopen, may_open_threads, member_threads_here
from bot.i18n.audience import reader
from bot.names import account_name
from bot.services.errors import ChallengeNotFound
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.challenge import challenge_text, challenge_view
from bot.views.common import (
    answer,
    deferred_privately,
    take_private_answer_away,
    thread_of,
    within_deadline,
)
from engine import Side

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)


async def post_challenge(
    bot: BrandubhBot,
    interaction: discord.Interaction[Any],
    opponent_id: int | None,
    *,
    opponent_is_bot: bool,
    ruleset: str,
    sets_total: int,
    challenger_side: Side,
    time_per_move: timedelta,
    role: int | None,
    opponent_name: str | None = None,
) -> None:
    """Store the challenge of ``interaction``'s member to ``opponent_id`` (None: open to
    anyone) and post it in the channel, deferred privately when slow (it may still be refused:
    one sentence for the challenger alone). ``role``: the server's open-challenge role;
    ``opponent_name``: the name of the opponent's account, stored with them as the
    challenger's is."""
    assert interaction.guild_id is not None
    assert interaction.channel_id is not None
    guild_id, channel_id = interaction.guild_id, interaction.channel_id
    names = {interaction.user.id: account_name(interaction.user, interaction.client.user)}
    if opponent_id is not None and opponent_name is not None:
        names[opponent_id] = opponent_name
    created = asyncio.ensure_future(
        create_unheld(
            bot,
            lambda stored: bot.services.challenges.create(
                guild_id,
                channel_id,
                interaction.user.id,
                opponent_id,
                ruleset=ruleset,
                sets_total=sets_total,
                challenger_side=challenger_side,
                time_per_move=time_per_move,
                opponent_is_bot=opponent_is_bot,
                plays_here=not may_open_threads(interaction),
                thread_of=thread_of(interaction),
                threads_here=member_threads_here(interaction),
                names=names,
                stored=stored,
            ),
        )
    )
    try:
        # Deferred when slow, privately: the challenge may still be refused (one sentence
        # for the challenger alone); once stored it is posted for everyone.
        challenge = await within_deadline(interaction, created, ephemeral=True)
        lang = await within_deadline(
            interaction, bot.flow.server_language(interaction.guild_id), ephemeral=True
        )
        # Two members shown alike are told apart by their usernames, as just remembered
        # (bot/cogs/challenge.py): no read that could fail once the challenge is stored.
        names_shown = bot.names_in_hand(guild_id, interaction.user.id, opponent_id)
        text = challenge_text(challenge, lang, names_shown)
        pings = pinging([] if opponent_id is None else [opponent_id])
        paused_until = None
        quiet_until = None
        if opponent_id is not None:
            # One member's challenges ping another at most once in 15 minutes: withdrawing
            # and challenging again would ping them each time. (A write: deferred in time
            # like the challenge's own, when the database is slow.)
            quiet_until = await within_deadline(
                interaction, opponent_ping(bot, challenge.challenge_id), ephemeral=True
            )
            if quiet_until is not None:
                pings = pinging([])
        if opponent_id is None and role is not None and _may_ping(interaction, role):
            # One open to anyone pings the server's role for it, if it has one; else
            # nobody. A member's open challenges ping it once in 15 minutes at most: the
            # ping is claimed before the post, which goes out without it if it cannot be.
            try:
                paused_until = await within_deadline(  # a write: deferred in time too
                    interaction,
                    bot.services.challenges.claim_role_ping(challenge.challenge_id),
                    ephemeral=True,
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
        # Not posted apart, the challenge is an answer Discord can be asked about after a failure.
        answering = None if deferred_privately(interaction) else Answer.next_of(interaction)
        post: dict[str, Any] = {
            "content": text,
            "view": challenge_view(
                challenge.challenge_id, lang, open_to_anyone=opponent_id is None
            ),
            "allowed_mentions": pings,
        }
        try:
            if answering is None:
                message_id: int | None = await post_apart_under_nonce(
                    interaction, f"Challenge {challenge.challenge_id}", **post
                )
            else:
                message_id = await answer(interaction, **post)
        except (discord.HTTPException, *UNREACHABLE) as failed:
            # Made though its answer was lost (a 5xx, no answer, found made already): it is
            # shown, pinged whom it named, and stands for its Accept — not forgotten, its
            # pings given back to ping again. Posted apart, its nonce asked about it once
            # already: one whose last try's answer was lost too is looked for in the channel,
            # as a rematch's is.
            if answering is None:
                made = await shown_anyway(bot, challenge, failed)
                if made is not None:  # the public post is there: the "thinking…" goes
                    await take_private_answer_away(interaction)
            else:
                made = await made_anyway(interaction, answering, failed)
            if made is None:
                raise
            _log.info("Challenge %s was posted, only its answer lost", challenge.challenge_id)
            message_id = made
    except Exception:
        # Stored but never shown (the deferral or the answer failed), so never answerable:
        # it must not hold the pair (one open challenge between two members) until it
        # expires.
        if created.done() and not created.cancelled() and created.exception() is None:
            await forget_unshown(bot, created.result().challenge_id)
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
    # In a member's thread I am not in, Discord would not let me open it again to edit the
    # challenge once it is archived (its expiry, an answer to it): I join it while it is active.
    await join_to_reopen(bot, interaction.channel)
    if quiet_until is not None and opponent_id is not None:
        await _tell_unpinged(
            interaction,
            reader(interaction)._(
                "Your challenge is posted without pinging {player}: your challenges ping "
                "them at most once every 15 minutes (next {when}).",
                player=f"<@{opponent_id}>",
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


async def _tell_unpinged(interaction: discord.Interaction[Any], text: str, whom: str) -> None:
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


def _may_ping(interaction: discord.Interaction[Any], role_id: int) -> bool:
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
