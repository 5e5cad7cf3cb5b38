"""The Accept / Decline / Withdraw buttons under a challenge, and the challenge's text."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.errors import require_channel_permissions
from bot.services.domain import Challenge
from bot.services.errors import ChallengeExpired
from bot.views.common import GuardedItem, bot_of
from engine import get_ruleset

_LABELS = {"accept": "Accept", "decline": "Decline", "withdraw": "Withdraw"}
_STYLES = {
    "accept": discord.ButtonStyle.success,
    "decline": discord.ButtonStyle.secondary,
    "withdraw": discord.ButtonStyle.secondary,
}


def challenge_text(challenge: Challenge) -> str:
    """The public challenge: who, what, sides, time per move, and when it expires."""
    sets = "a match of two sets" if challenge.sets_total == 2 else "a single set"
    hours = challenge.time_per_move.total_seconds() / 3600
    per_move = f"{hours:g} h" if hours >= 1 else f"{hours * 60:g} min"
    expires = int(challenge.expires_at.timestamp())
    return (
        f"<@{challenge.opponent_id}>, <@{challenge.challenger_id}> challenges you to "
        f"**{get_ruleset(challenge.ruleset).title}**: {sets}, "
        f"<@{challenge.challenger_id}> plays the {challenge.challenger_side.value} first, "
        f"{per_move} per move.\n"
        f"The challenge expires <t:{expires}:R>."
    )


def expired_text(challenge: Challenge) -> str:
    """What an expired challenge's message says once its buttons are gone."""
    return (
        f"<@{challenge.challenger_id}>'s challenge to <@{challenge.opponent_id}> expired "
        "without an answer."
    )


def challenge_view(challenge_id: int) -> discord.ui.View:
    """Accept and Decline for the opponent, Withdraw for the challenger."""
    view = discord.ui.View(timeout=None)
    for action in ("accept", "decline", "withdraw"):
        view.add_item(ChallengeButton(action, challenge_id))
    return view


class ChallengeButton(
    GuardedItem[discord.ui.Button[Any]],
    template=r"challenge:(?P<action>accept|decline|withdraw):(?P<id>\d+)",
):
    """One of the three answers to a challenge; the services check who may press which."""

    def __init__(self, action: str, challenge_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_LABELS[action],
                style=_STYLES[action],
                custom_id=f"challenge:{action}:{challenge_id}",
            )
        )
        self.action = action
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ChallengeButton:
        return cls(match["action"], int(match["id"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        await bot.remember(interaction.user)
        challenges = bot.services.challenges
        user = interaction.user.id
        if self.action == "decline":
            await challenges.decline(self.challenge_id, user)
            await interaction.response.edit_message(
                content=f"<@{user}> declined the challenge.", view=None
            )
            return
        if self.action == "withdraw":
            await challenges.withdraw(self.challenge_id, user)
            await interaction.response.edit_message(
                content=f"<@{user}> withdrew the challenge.", view=None
            )
            return
        require_channel_permissions(interaction)
        try:
            challenge = await challenges.check_accept(self.challenge_id, user)
        except ChallengeExpired as expired:  # pressed before the expiry sweep reached it
            challenge = await challenges.get(self.challenge_id)
            await interaction.response.edit_message(content=expired_text(challenge), view=None)
            await interaction.followup.send(str(expired), ephemeral=True)
            return
        await bot.flow.accept_challenge(interaction, challenge)
