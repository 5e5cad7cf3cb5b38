"""The challenges open to anyone, waiting for an opponent: the few /games shows below its games,
and the whole list a member asks for with **All waiting challenges** (privately, a page at a
time, with Previous / Next)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import discord

from bot.i18n import ENGLISH, Language, _, command
from bot.i18n.audience import reader
from bot.names import escaped, player_name
from bot.services.challenges import message_link
from bot.services.domain import Challenge, WaitingChallenges
from bot.services.errors import OtherServer
from bot.views.challenge import sets_text, time_per_move_text
from bot.views.common import (
    EMBED_FIELD_LIMIT,
    GuardedItem,
    answer,
    bot_of,
    embed_title,
    keyset_view,
    turn_page,
    within_deadline,
)
from bot.views.id_numbers import ID
from bot.views.public_places import private_channels
from engine import get_ruleset

SHOWN_WITH_GAMES = 5
"""Challenges shown below the games of /games (the oldest)."""
WAITING_PAGE_SIZE = 10
"""Challenges a page of the whole list shows."""
EMBED_DESCRIPTION_LIMIT = 4096
"""Discord's limit on an embed's description."""


def waiting_entry(challenge: Challenge, names: Mapping[int, str], lang: Language = ENGLISH) -> str:
    """One challenge open to anyone as a line: who, what, and a link to accept it."""
    assert challenge.message_id is not None, "only posted challenges are listed"
    link = message_link(challenge.guild_id, challenge.channel_id, challenge.message_id)
    return lang._(
        "**{player}** · {ruleset} · {sets} · {time} per move · expires {deadline} · "
        "[accept it there]({link})",
        player=player_name(names.get(challenge.challenger_id), lang),
        ruleset=lang.gettext(get_ruleset(challenge.ruleset).title),
        sets=sets_text(challenge.sets_total, lang),
        time=time_per_move_text(challenge.time_per_move, lang),
        deadline=f"<t:{int(challenge.expires_at.timestamp())}:R>",
        link=link,
    )


def waiting_value(
    waiting: WaitingChallenges, names: Mapping[int, str], lang: Language
) -> tuple[str, int]:
    """The challenges open to anyone, one a line, as many as fit in an embed field, and a
    line counting those left out (beyond the few read, or too long to fit): a reader looking
    for a game learns there are more. Also how many are left out (**All waiting challenges**
    shows them)."""
    entries = [waiting_entry(challenge, names, lang) for challenge in waiting.challenges]
    for shown in range(len(entries), -1, -1):
        lines = entries[:shown]
        left_out = waiting.total - shown
        if left_out > 0:
            lines.append(
                lang.n_(
                    "…and {count} more in this server's channels.",
                    "…and {count} more in this server's channels.",
                    left_out,
                    count=left_out,
                )
            )
        value = "\n".join(lines)
        if len(value) <= EMBED_FIELD_LIMIT:
            return value, left_out
    return "", waiting.total


def waiting_embed(
    waiting: WaitingChallenges, names: Mapping[int, str], guild_name: str, lang: Language
) -> tuple[discord.Embed, int]:
    """A page of the whole list as an embed (as many of its challenges as fit), and how many
    it shows."""
    title = lang._("Waiting for an opponent — {server}", server=escaped(guild_name))
    embed = discord.Embed(title=embed_title(title))
    if not waiting.challenges:
        embed.description = lang._(
            "No challenge is waiting for an opponent. Post one with {challenge_command}.",
            challenge_command=command("challenge"),
        )
        return embed, 0
    kept: list[str] = []
    for challenge in waiting.challenges:
        line = waiting_entry(challenge, names, lang)
        if kept and sum(len(each) + 1 for each in kept) + len(line) > EMBED_DESCRIPTION_LIMIT:
            break
        kept.append(line)
    embed.description = "\n".join(kept)
    embed.set_footer(
        text=lang._(
            "Challenges {first}–{last} of {total}",
            first=waiting.offset + 1,
            last=waiting.offset + len(kept),
            total=waiting.total,
        )
    )
    return embed, len(kept)


def waiting_view(
    waiting: WaitingChallenges, shown: int, guild_id: int, player_id: int, lang: Language
) -> discord.ui.View | None:
    """Previous / Next for a page of the whole list showing ``shown`` of its challenges, each
    turning from the first or last challenge shown, or None when they all fit on it."""
    return keyset_view(
        waiting.offset,
        waiting.challenges[:shown],
        waiting.total,
        lambda direction, challenge: WaitingButton(
            guild_id, player_id, direction, lang, challenge_id=challenge.challenge_id
        ),
    )


async def waiting_message(
    interaction: discord.Interaction[Any],
    guild_id: int,
    player_id: int | None,
    *,
    after: int | None = None,
    before: int | None = None,
) -> tuple[discord.Embed, discord.ui.View | None]:
    """A page of the server's challenges waiting for an opponent (``player_id``'s only, if
    given), for the presser: the first, or the one after challenge ``after`` or before
    ``before``. A challenge in a place @everyone cannot see is left out, as /games does."""
    bot = bot_of(interaction)
    waiting = await bot.services.challenges.waiting_for_anyone(
        guild_id,
        challenger_id=player_id,
        hidden_channel_ids=private_channels(interaction),
        limit=WAITING_PAGE_SIZE,
        after=after,
        before=before,
    )
    ids = sorted({challenge.challenger_id for challenge in waiting.challenges})
    # Two challengers shown alike are told apart by their usernames, as on /games.
    found = await bot.display_names(guild_id, *ids)
    names = await bot.names_told_apart(found)
    lang = reader(interaction)
    guild_name = interaction.guild.name if interaction.guild else lang._("this server")
    embed, shown = waiting_embed(waiting, names, guild_name, lang)
    return embed, waiting_view(waiting, shown, guild_id, player_id or 0, lang)


class WaitingButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"waiting:(?P<guild>" + ID + r"):(?P<player>" + ID + r"):(?P<dir>all|prev|next)"
        r"(?::(?P<challenge>" + ID + r"))?"
    ),
):
    """**All waiting challenges** under /games: the whole list, to its presser alone, a page
    at a time; and that list's Previous / Next, which show the page before its first
    challenge or after its last, named in the ``custom_id``, so that challenges accepted or
    expired meanwhile neither hide one nor show one twice."""

    answers_privately = True

    def __init__(
        self,
        guild_id: int,
        player_id: int,
        direction: str,
        lang: Language = ENGLISH,
        *,
        challenge_id: int | None = None,
    ) -> None:
        labels = {"all": _("All waiting challenges"), "prev": _("Previous"), "next": _("Next")}
        anchor = "" if challenge_id is None else f":{challenge_id}"
        super().__init__(
            discord.ui.Button(
                label=lang.render(labels[direction]),
                style=discord.ButtonStyle.secondary,
                custom_id=f"waiting:{guild_id}:{player_id}:{direction}{anchor}",
            )
        )
        self.guild_id = guild_id
        self.player_id = player_id
        self.direction = direction
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> WaitingButton:
        anchor = match["challenge"]
        return cls(
            int(match["guild"]),
            int(match["player"]),
            match["dir"],
            challenge_id=None if anchor is None else int(anchor),
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        require_list_of_here(interaction, self.guild_id)
        player = self.player_id or None
        if self.direction == "all":
            page = waiting_message(interaction, self.guild_id, player)
            embed, view = await within_deadline(interaction, page, ephemeral=True)
            await answer(interaction, embed=embed, view=view, ephemeral=True)
            return
        later = self.direction == "next"
        await turn_page(
            interaction,
            waiting_message(
                interaction,
                self.guild_id,
                player,
                after=self.challenge_id if later else None,
                before=None if later else self.challenge_id,
            ),
        )


def require_list_of_here(interaction: discord.Interaction[Any], guild_id: int) -> None:
    """Refuse a press of a /games list's button (its pages, its waiting challenges) naming
    server ``guild_id`` where it is not that server."""
    if interaction.guild_id != guild_id:
        raise OtherServer(
            _(
                "That list belongs to another server: use {games_command} here.",
                games_command=command("games"),
            )
        )
