"""The /games list: the server's games in progress, with Previous / Next (anyone may page)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import discord

from bot.alike_names import told_apart
from bot.i18n import ENGLISH, Language, command
from bot.names import escaped, player_name
from bot.services.domain import (
    GameInProgress,
    GamesPage,
    Unshown,
    WaitingChallenges,
)
from bot.views.common import (
    EMBED_FIELD_LIMIT,
    GuardedItem,
    bot_of,
    embed_title,
    page_button,
    turn_page,
)
from bot.views.id_numbers import COUNT, ID
from bot.views.public_places import private_channels, unknown_places
from bot.views.waiting import (
    EMBED_DESCRIPTION_LIMIT,
    SHOWN_WITH_GAMES,
    WaitingButton,
    require_list_of_here,
    waiting_value,
)
from engine import get_ruleset

GAMES_PAGE_SIZE = 10
TOLD_APART_CUTS = (None, 8, 4, 1)
"""How long a name told apart by its username may be on a page of games, tried in turn until
the page fits Discord's 4096 characters: whole, else cut to 8 characters, 4, then 1
("… (@alex_w)", the username alone telling them apart). Ten games between players named
alike at Discord's longest (32 characters, Markdown escaped) need 8 in English, 4 in French
with the note that games are left out; at 1 a name told apart is at most 5 characters longer
than the longest name not told apart, so a page always fits."""


def field_values(lines: Iterable[str]) -> list[str]:
    """``lines``, one a line, over as many embed field values as they need (Discord refuses
    a field past 1024 characters): none is left out. A line longer than a whole field (only
    names past Discord's own limits make one) is cut with an ellipsis."""
    values: list[list[str]] = [[]]
    for line in lines:
        if len(line) > EMBED_FIELD_LIMIT:
            line = line[: EMBED_FIELD_LIMIT - 1] + "…"
        kept = values[-1]
        if kept and sum(len(each) + 1 for each in kept) + len(line) > EMBED_FIELD_LIMIT:
            kept = []
            values.append(kept)
        kept.append(line)
    return ["\n".join(kept) for kept in values]


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


def games_embed(
    page: GamesPage,
    names: Mapping[int, str],
    guild_name: str,
    lang: Language = ENGLISH,
    waiting: WaitingChallenges | None = None,
    *,
    unanswered: bool = False,
) -> tuple[discord.Embed, int]:
    """One page of games in progress as an embed, with the challenges open to anyone (what a
    member looking for a game can accept) in a field below; ``unanswered``: a line says games
    are left out because Discord could not say who can see where they are played. Also how
    many challenges are left out of that field."""
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
    value, left_out = ("", 0) if waiting is None else waiting_value(waiting, names, lang)
    if value:
        embed.add_field(name=lang._("Waiting for an opponent"), value=value, inline=False)
    return embed, left_out


def told_apart_games_embed(
    page: GamesPage,
    shown: Mapping[int, str],
    usernames: Mapping[int, str],
    guild_name: str,
    lang: Language = ENGLISH,
    waiting: WaitingChallenges | None = None,
    *,
    unanswered: bool = False,
) -> tuple[discord.Embed, int]:
    """:func:`games_embed` with the players ``shown`` alike told apart by their
    ``usernames`` (:func:`told_apart`), their names cut (:data:`TOLD_APART_CUTS`) as far as
    the page needs to fit Discord's 4096 characters."""
    for longest in TOLD_APART_CUTS:
        names = told_apart(shown, usernames, longest)
        embed, left_out = games_embed(page, names, guild_name, lang, waiting, unanswered=unanswered)
        if len(embed.description or "") <= EMBED_DESCRIPTION_LIMIT:
            break
    return embed, left_out


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


def games_view(
    page: GamesPage, lang: Language = ENGLISH, *, more_waiting: bool = False
) -> discord.ui.View | None:
    """Previous / Next buttons, and **All waiting challenges** when challenges are left out of
    the list (``more_waiting``), or None when everything fits on one page."""
    view = discord.ui.View(timeout=None)
    player = page.player_id or 0
    if more_waiting:
        view.add_item(WaitingButton(page.guild_id, player, "all", lang))
    if page.total <= page.limit:
        return view if more_waiting else None
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
        guild_id, challenger_id=player_id, hidden_channel_ids=hidden, limit=SHOWN_WITH_GAMES
    )
    ids = {uid for game in page.games for uid in (game.attacker_id, game.defender_id)}
    ids.update(challenge.challenger_id for challenge in waiting.challenges)
    if player_id is not None:
        ids.add(player_id)
    # Two players shown alike ("alex" vs "alex") are told apart by their usernames.
    shown = await bot.display_names(guild_id, *sorted(ids))
    usernames = (await bot.names_told_apart(shown)).usernames
    lang = await bot.flow.server_language(guild_id)
    guild_name = interaction.guild.name if interaction.guild else lang._("this server")
    embed, left_out = told_apart_games_embed(
        page, shown, usernames, guild_name, lang, waiting, unanswered=unanswered
    )
    return embed, games_view(page, lang, more_waiting=left_out > 0)


class GamesButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"games:(?P<guild>" + ID + r"):(?P<player>" + ID + r"):(?P<offset>" + COUNT + r"):"
        r"(?P<dir>prev|next)(?::(?P<match>" + ID + r"))?"
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
        custom_id = f"games:{guild_id}:{player_id}:{offset}:{direction}{anchor}"
        super().__init__(page_button(direction, custom_id, lang))
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
        require_list_of_here(interaction, self.guild_id)
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
