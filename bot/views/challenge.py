"""The Accept / Decline / Withdraw buttons under a challenge, and the challenge's text."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import discord

from bot.alike_names import NamesToldApart
from bot.errors import require_channel_permissions
from bot.i18n import ENGLISH, Language, _
from bot.i18n.audience import reader
from bot.names import mention
from bot.services.domain import Challenge
from bot.services.errors import ChallengeExpired, ChallengeNotFound
from bot.unreachable import UNREACHABLE
from bot.views.common import (
    GuardedItem,
    bot_of,
    pressed_on,
    thread_of,
    update_message,
    within_deadline,
)
from bot.views.id_numbers import ID
from engine import Side, get_ruleset

_LABELS = {"accept": _("Accept"), "decline": _("Decline"), "withdraw": _("Withdraw")}
_STYLES = {
    "accept": discord.ButtonStyle.success,
    "decline": discord.ButtonStyle.secondary,
    "withdraw": discord.ButtonStyle.secondary,
}


def time_per_move_text(per_move: timedelta, lang: Language = ENGLISH) -> str:
    """ "1 week", "3 days", "12 h", "5 min": whole days and weeks in words, as the time options
    name them; shorter times with the units that read the same in every language."""
    if per_move >= timedelta(days=1) and per_move % timedelta(days=1) == timedelta(0):
        days = per_move.days
        if days % 7 == 0:
            return lang.n_("{count} week", "{count} weeks", days // 7)
        return lang.n_("{count} day", "{count} days", days)
    hours = per_move.total_seconds() / 3600
    return f"{hours:g} h" if hours >= 1 else f"{hours * 60:g} min"


def sets_text(sets_total: int, lang: Language = ENGLISH) -> str:
    """ "a match of two sets" or "a single set", as a challenge states its terms."""
    return lang._("a match of two sets") if sets_total == 2 else lang._("a single set")


def challenge_text(
    challenge: Challenge, lang: Language = ENGLISH, names: NamesToldApart | None = None
) -> str:
    """The public challenge: who, what, sides, time per move, and when it expires (its
    mentions with their usernames where ``names`` tells two alike apart: :func:`mention`)."""
    params = {
        "challenger": mention(challenge.challenger_id, names),
        "ruleset": lang.gettext(get_ruleset(challenge.ruleset).title),
        "sets": sets_text(challenge.sets_total, lang),
        "time": time_per_move_text(challenge.time_per_move, lang),
    }
    if challenge.opponent_id is not None:
        params["opponent"] = mention(challenge.opponent_id, names)
    attacking = challenge.challenger_side is Side.ATTACKERS
    if challenge.sets_total == 1:
        text = _one_set_text(challenge, attacking, params, lang)
    elif challenge.opponent_id is None and attacking:
        text = lang._(
            "{challenger} is looking for an opponent: **{ruleset}**, {sets}, {challenger} plays "
            "the attackers first, {time} per move. Anyone may accept.",
            **params,
        )
    elif challenge.opponent_id is None:
        text = lang._(
            "{challenger} is looking for an opponent: **{ruleset}**, {sets}, {challenger} plays "
            "the defenders first, {time} per move. Anyone may accept.",
            **params,
        )
    elif attacking:
        text = lang._(
            "{opponent}, {challenger} challenges you to **{ruleset}**: {sets}, {challenger} "
            "plays the attackers first, {time} per move.",
            **params,
        )
    else:
        text = lang._(
            "{opponent}, {challenger} challenges you to **{ruleset}**: {sets}, {challenger} "
            "plays the defenders first, {time} per move.",
            **params,
        )
    expires = f"<t:{int(challenge.expires_at.timestamp())}:R>"
    return text + "\n" + lang._("The challenge expires {deadline}.", deadline=expires)


def _one_set_text(
    challenge: Challenge, attacking: bool, params: dict[str, str], lang: Language
) -> str:
    """:func:`challenge_text` of a one-set match: the challenger's side, not "first"."""
    if challenge.opponent_id is None and attacking:
        return lang._(
            "{challenger} is looking for an opponent: **{ruleset}**, {sets}, {challenger} plays "
            "the attackers, {time} per move. Anyone may accept.",
            **params,
        )
    if challenge.opponent_id is None:
        return lang._(
            "{challenger} is looking for an opponent: **{ruleset}**, {sets}, {challenger} plays "
            "the defenders, {time} per move. Anyone may accept.",
            **params,
        )
    if attacking:
        return lang._(
            "{opponent}, {challenger} challenges you to **{ruleset}**: {sets}, {challenger} "
            "plays the attackers, {time} per move.",
            **params,
        )
    return lang._(
        "{opponent}, {challenger} challenges you to **{ruleset}**: {sets}, {challenger} "
        "plays the defenders, {time} per move.",
        **params,
    )


def expired_text(
    challenge: Challenge, lang: Language = ENGLISH, names: NamesToldApart | None = None
) -> str:
    """What an expired challenge's message says once its buttons are gone (its mentions as
    :func:`challenge_text` makes them)."""
    challenger = mention(challenge.challenger_id, names)
    if challenge.opponent_id is None:
        return lang._(
            "{challenger}'s open challenge expired: nobody accepted it.", challenger=challenger
        )
    return lang._(
        "{challenger}'s challenge to {opponent} expired without an answer.",
        challenger=challenger,
        opponent=mention(challenge.opponent_id, names),
    )


def challenge_view(
    challenge_id: int, lang: Language = ENGLISH, *, open_to_anyone: bool = False
) -> discord.ui.View:
    """Accept and Decline for the opponent, Withdraw for the challenger (no Decline when the
    challenge is open to anyone: whoever does not want it just leaves it)."""
    view = discord.ui.View(timeout=None)
    actions = ("accept", "withdraw") if open_to_anyone else ("accept", "decline", "withdraw")
    for action in actions:
        view.add_item(ChallengeButton(action, challenge_id, lang))
    return view


class ChallengeButton(
    GuardedItem[discord.ui.Button[Any]],
    template=r"challenge:(?P<action>accept|decline|withdraw):(?P<id>" + ID + ")",
):
    """Accept, Decline or Withdraw under a challenge (no Decline under one open to anyone);
    the services check who may press which."""

    def __init__(self, action: str, challenge_id: int, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang.render(_LABELS[action]),
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
        assert interaction.guild_id is not None
        if self.action == "decline":
            await bot.flow.challenges.decline(interaction, self.challenge_id)
            return
        # A read (the server's language): the press is deferred in time when it is slow.
        lang = await within_deadline(
            interaction, bot.flow.server_language(interaction.guild_id), thinking=False
        )
        # The message pressed must be the challenge's own: a forged id naming another one
        # would answer that one and edit this message.
        shown = pressed_on(interaction)
        # A slow write (another program holding the database) is deferred in time.
        if self.action == "withdraw":
            await within_deadline(
                interaction,
                challenges.withdraw(self.challenge_id, user, pressed_on=shown),
                thinking=False,
            )
            await update_message(
                interaction, lang._("{player} withdrew the challenge.", player=f"<@{user}>")
            )
            return
        require_channel_permissions(interaction)
        try:
            await self._accept(interaction, lang, shown)
        except ChallengeNotFound as gone:
            # A second press of the member who took it (a double click): where the game is.
            mine = await bot.flow.challenges.accepted_by_them(self.challenge_id, user)
            raise (gone if mine is None else mine) from None

    async def _accept(
        self, interaction: discord.Interaction[Any], lang: Language, shown: tuple[int, int]
    ) -> None:
        """The opponent (anyone's, on an open challenge) pressed Accept: check, then start."""
        bot = bot_of(interaction)
        challenges = bot.services.challenges
        user = interaction.user.id
        assert interaction.guild_id is not None
        # A press past the expiry closes the challenge first (a write, which may wait).
        checked = asyncio.ensure_future(
            challenges.check_accept(
                self.challenge_id, user, thread_of=thread_of(interaction), pressed_on=shown
            )
        )
        try:
            challenge = await within_deadline(interaction, checked, thinking=False)
            # Discord is asked while the press waits: deferred when slow, as the reads are.
            challenger = await within_deadline(
                interaction,
                bot.flow.members.member_now(interaction.guild_id, challenge.challenger_id),
                thinking=False,
            )
            if challenger is False:
                await within_deadline(
                    interaction, challenges.challenger_left(self.challenge_id), thinking=False
                )
                await update_message(
                    interaction,
                    lang._(
                        "{player} has left the server, so this challenge is closed.",
                        player=f"<@{challenge.challenger_id}>",
                    ),
                )
                return
            if challenger is not None:
                await bot.flow.challenges.check_challenger_here(interaction, challenge, challenger)
        except ChallengeExpired as expired:  # pressed before the expiry sweep reached it
            challenge = await challenges.get(self.challenge_id)
            try:
                names = bot.names_in_hand(
                    challenge.guild_id, challenge.challenger_id, challenge.opponent_id
                )
                await update_message(interaction, expired_text(challenge, lang, names))
            except (discord.HTTPException, *UNREACHABLE):
                await bot.flow.challenges.show_expired_after_press(self.challenge_id)
                raise
            await interaction.followup.send(
                reader(interaction).render(expired.text), ephemeral=True
            )
            return
        except Exception:
            if (
                checked.done()
                and not checked.cancelled()
                and isinstance(checked.exception(), ChallengeExpired)
            ):
                # Closed as expired, but the press could not be deferred: no sweep will reach
                # the challenge now, so its message is edited through the channel.
                await bot.flow.challenges.show_expired_after_press(self.challenge_id)
            raise
        await bot.flow.challenges.accept(interaction, challenge)
