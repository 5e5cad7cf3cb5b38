"""The /games list: the server's games in progress, with Previous / Next (anyone may page)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import discord

from bot.i18n import ENGLISH, Language, _, command
from bot.names import escaped, player_name
from bot.services.challenges import message_link
from bot.services.domain import (
    Challenge,
    GameInProgress,
    GamesPage,
    Unshown,
    WaitingChallenges,
)
from bot.services.errors import InvalidOption
from bot.views.challenge import sets_text, time_per_move_text
from bot.views.common import GuardedItem, bot_of, embed_title, turn_page
from bot.views.public_places import private_channels, unknown_places
from engine import get_ruleset

GAMES_PAGE_SIZE = 10
EMBED_FIELD_LIMIT = 1024
"""Discord's limit on an embed field's value."""


def field_value(lines: Iterable[str]) -> str:
    """``lines`` joined, one a line, as many as fit in an embed field (Discord refuses a
    longer one)."""
    kept: list[str] = []
    for line in lines:
        if sum(len(each) + 1 for each in kept) + len(line) > EMBED_FIELD_LIMIT:
            break
        kept.append(line)
    return "\n".join(kept)


def game_entry(game: GameInProgress, names: Mapping[int, str], lang: Language = ENGLISH) -> str:
    """One game as a line: who plays whom, the ruleset, set, move, whose turn, and where."""
    someone = lang._("a player")
    if game.computer_id is not None:  # named with its level, as everywhere
        computer = lang._(
            "{name} (level {level})",
            name=names.get(game.computer_id, someone),
            level=game.computer_level or 3,
        )
        names = {**names, game.computer_id: computer}
    attacker = player_name(names.get(game.attacker_id), lang)
    defender = player_name(names.get(game.defender_id), lang)
    where = [lang.gettext(get_ruleset(game.ruleset).title)]
    if game.sets_total > 1:
        where.append(
            lang._("set {number} of {total}", number=game.set_number, total=game.sets_total)
        )
    where.append(lang._("move {number}", number=game.ply + 1))
    return lang._(
        "**{attacker}** (attackers) vs **{defender}** (defenders) · {where} · {player} to move "
        "· {channel}",
        attacker=attacker,
        defender=defender,
        where=" · ".join(where),
        player=player_name(names.get(game.to_move_id), lang),
        channel=f"<#{game.channel_id}>",
    )


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


def waiting_value(waiting: WaitingChallenges, names: Mapping[int, str], lang: Language) -> str:
    """The challenges open to anyone, one a line, as many as fit in an embed field, and a
    line counting those left out (beyond the few read, or too long to fit): a reader looking
    for a game learns there are more."""
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
            return value
    return ""


def games_embed(
    page: GamesPage,
    names: Mapping[int, str],
    guild_name: str,
    lang: Language = ENGLISH,
    waiting: WaitingChallenges | None = None,
    *,
    unanswered: bool = False,
) -> discord.Embed:
    """One page of games in progress as an embed, with the challenges open to anyone (what a
    member looking for a game can accept) in a field below; ``unanswered``: a line says games
    are left out because Discord could not say who can see where they are played."""
    embed = _games_embed(page, names, guild_name, lang)
    if unanswered:
        embed.description = "\n\n".join(
            [
                embed.description or "",
                lang._(
                    "Some games are left out: Discord could not tell me just now who can see "
                    "where they are played. Try again in a minute."
                ),
            ]
        )
    value = "" if waiting is None else waiting_value(waiting, names, lang)
    if value:
        embed.add_field(name=lang._("Waiting for an opponent"), value=value, inline=False)
    return embed


def _games_embed(
    page: GamesPage, names: Mapping[int, str], guild_name: str, lang: Language
) -> discord.Embed:
    """One page of games in progress as an embed."""
    if page.player_id is None:
        title = lang._("Games in progress — {server}", server=escaped(guild_name))
    else:
        title = lang._(
            "Games in progress of {player} — {server}",
            player=player_name(names.get(page.player_id), lang),
            server=escaped(guild_name),
        )
    embed = discord.Embed(title=embed_title(title))
    if not page.games:
        embed.description = lang._(
            "No game in progress. Start one with {challenge_command}.",
            challenge_command=command("challenge"),
        )
        return embed
    embed.description = "\n".join(game_entry(game, names, lang) for game in page.games)
    last = page.offset + len(page.games)
    embed.set_footer(
        text=lang._(
            "Games {first}–{last} of {total}", first=page.offset + 1, last=last, total=page.total
        )
    )
    return embed


def games_view(page: GamesPage, lang: Language = ENGLISH) -> discord.ui.View | None:
    """Previous / Next buttons, or None when everything fits on one page."""
    if page.total <= page.limit:
        return None
    view = discord.ui.View(timeout=None)
    player = page.player_id or 0
    first = page.games[0].match_id if page.games else None
    last = page.games[-1].match_id if page.games else None
    earlier = GamesButton(
        page.guild_id, player, max(0, page.offset - page.limit), "prev", lang, match_id=first
    )
    later = GamesButton(
        page.guild_id, player, page.offset + page.limit, "next", lang, match_id=last
    )
    earlier.item.disabled = page.offset == 0
    later.item.disabled = page.offset + page.limit >= page.total
    view.add_item(earlier)
    view.add_item(later)
    return view


async def games_message(
    interaction: discord.Interaction[Any],
    guild_id: int,
    player_id: int | None,
    offset: int,
    *,
    after_match: int | None = None,
    before_match: int | None = None,
) -> tuple[discord.Embed, discord.ui.View | None]:
    """The /games embed and buttons for one page: from ``offset``, or the page after match
    ``after_match`` or before ``before_match`` (:meth:`RecordService.in_progress`)."""
    bot = bot_of(interaction)
    hidden = private_channels(interaction)
    places = await bot.services.records.places_in_progress(guild_id)
    unknown = await unknown_places(interaction, places)
    page = await bot.services.records.in_progress(
        guild_id,
        player_id=player_id,
        offset=offset,
        limit=GAMES_PAGE_SIZE,
        hidden_channel_ids=hidden | frozenset(unknown),
        after_match=after_match,
        before_match=before_match,
    )
    unanswered = False
    if Unshown.UNANSWERED in unknown.values():  # were games of this list left out for it?
        answered = frozenset(i for i, why in unknown.items() if why is not Unshown.UNANSWERED)
        unasked = await bot.services.records.in_progress(
            guild_id, player_id=player_id, limit=1, hidden_channel_ids=hidden | answered
        )
        unanswered = unasked.total > page.total
    waiting = await bot.services.challenges.waiting_for_anyone(
        guild_id, challenger_id=player_id, hidden_channel_ids=hidden
    )
    ids = {uid for game in page.games for uid in (game.attacker_id, game.defender_id)}
    ids.update(challenge.challenger_id for challenge in waiting.challenges)
    if player_id is not None:
        ids.add(player_id)
    names = await bot.display_names(guild_id, *sorted(ids))
    lang = await bot.flow.server_language(guild_id)
    guild_name = interaction.guild.name if interaction.guild else lang._("this server")
    embed = games_embed(page, names, guild_name, lang, waiting, unanswered=unanswered)
    return embed, games_view(page, lang)


class GamesButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"games:(?P<guild>\d{1,20}):(?P<player>\d{1,20}):(?P<offset>\d{1,9}):(?P<dir>prev|next)"
        r"(?::(?P<match>\d{1,20}))?"
    ),
):
    """Turns the /games message to another page: the one after the last game shown (Next) or
    before the first (Previous), named by its match in the ``custom_id``, so that games ended
    meanwhile neither hide one nor show one twice. Lists posted before carry only the offset
    of the page to show."""

    def __init__(
        self,
        guild_id: int,
        player_id: int,
        offset: int,
        direction: str,
        lang: Language = ENGLISH,
        *,
        match_id: int | None = None,
    ) -> None:
        anchor = "" if match_id is None else f":{match_id}"
        super().__init__(
            discord.ui.Button(
                label=lang._("Previous") if direction == "prev" else lang._("Next"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"games:{guild_id}:{player_id}:{offset}:{direction}{anchor}",
            )
        )
        self.guild_id = guild_id
        self.player_id = player_id
        self.offset = offset
        self.direction = direction
        self.match_id = match_id
        """The last game's match of the page shown (Next) or its first's (Previous)."""

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> GamesButton:
        anchor = match["match"]
        return cls(
            int(match["guild"]),
            int(match["player"]),
            int(match["offset"]),
            match["dir"],
            match_id=None if anchor is None else int(anchor),
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id != self.guild_id:
            raise InvalidOption(
                _(
                    "That list belongs to another server: use {games_command} here.",
                    games_command=command("games"),
                )
            )
        later = self.direction == "next"
        await turn_page(
            interaction,
            games_message(
                interaction,
                self.guild_id,
                self.player_id or None,
                self.offset,
                after_match=self.match_id if later else None,
                before_match=None if later else self.match_id,
            ),
        )
