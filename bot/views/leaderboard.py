"""The leaderboard message and its Previous / Next buttons (anyone may page).

Below the page, the line of whoever asked, when they are rated and not on it, as /puzzle
leaderboard's; the buttons keep that line (their ids carry the asker).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import ENGLISH, Language, _, command
from bot.names import escaped, player_name, rows_told_apart
from bot.ratings import PROVISIONAL_DEVIATION, shown_rating
from bot.services.domain import DEFAULT_RULESET, LeaderboardPage, Standing, StandingKey
from bot.services.errors import InvalidOption, OtherServer
from bot.views.common import (
    GuardedItem,
    KeyedPageButton,
    bot_of,
    embed_title,
    keyset_view,
    page_button,
    turn_page,
)
from bot.views.id_numbers import COUNT, ID
from engine import RULESETS, get_ruleset

PAGE_SIZE = 10


def rating_text(rating: float, deviation: float) -> str:
    """A rating as players read it: ``1720``, or ``1720?`` while it is still provisional."""
    return f"{shown_rating(rating)}{'?' if deviation > PROVISIONAL_DEVIATION else ''}"


def matches_won_text(count: int, lang: Language = ENGLISH) -> str:
    """``1 match won``, ``3 matches won``; ``0 matches won`` a message of its own (Portuguese
    and French say 0 in the singular form, and only French reads it so)."""
    if count == 0:
        # Translators: zero matches won, as your language says a count of none ("0 partidas
        # vencidas"), not the singular form "{count} match won" would give.
        return lang._("0 matches won")
    return lang.n_("{count} match won", "{count} matches won", count)


def record_text(wins: int, losses: int, draws: int, lang: Language = ENGLISH) -> str:
    """``2W 1L``, with draws only when there are some (a rated set rarely ends drawn)."""
    if draws:
        return lang._("{wins}W {losses}L {draws}D", wins=wins, losses=losses, draws=draws)
    return lang._("{wins}W {losses}L", wins=wins, losses=losses)


def standing_line(row: Standing, lang: Language = ENGLISH, name: str | None = None) -> str:
    """`` `  1.` **alice** — 1720 · 2W 1L · 1 match won``, the player named ``name`` (as the
    list tells them apart: :func:`bot.names.told_apart`), else by their stored name."""
    record = record_text(row.wins, row.losses, row.draws, lang)
    return (
        f"`{row.rank:>3}.` **{player_name(name or row.display_name, lang)}** — "
        f"{rating_text(row.rating, row.deviation)}"
        f" · {record} · {matches_won_text(row.matches_won, lang)}"
    )


def leaderboard_embed(
    page: LeaderboardPage, guild_name: str, lang: Language = ENGLISH
) -> discord.Embed:
    """One page of standings as an embed."""
    title = lang.gettext(get_ruleset(page.ruleset).title)
    embed = discord.Embed(
        title=embed_title(
            lang._("{ruleset} leaderboard — {server}", ruleset=title, server=escaped(guild_name))
        )
    )
    if not page.rows:
        embed.description = lang._(
            "No rated games of {ruleset} yet: {challenge_command} someone to get on the board.",
            ruleset=title,
            challenge_command=command("challenge"),
        )
        return embed
    shown = [*page.rows, *([] if page.viewer is None else [page.viewer])]
    names = rows_told_apart(shown)
    lines = [standing_line(row, lang, names[row.user_id]) for row in page.rows]
    if page.viewer is not None:
        lines += ["…", standing_line(page.viewer, lang, names[page.viewer.user_id])]
    embed.description = "\n".join(lines)
    last = page.offset + len(page.rows)
    embed.set_footer(
        text=lang._(
            "Players {first}–{last} of {total} · A ? marks a provisional rating (too few rated "
            "games yet to be sure of it), ranked after the others.",
            first=page.offset + 1,
            last=last,
            total=page.total,
        )
    )
    return embed


def leaderboard_view(page: LeaderboardPage, lang: Language = ENGLISH) -> discord.ui.View | None:
    """Previous / Next buttons, or None when the page holds every rated player. Each carries
    the key of the page's first (Previous) or last (Next) row, so the page it turns to starts
    right after that row wherever ratings moved meanwhile."""
    return keyset_view(
        page.offset,
        page.rows,
        page.total,
        lambda direction, row: LeaderboardButton(
            page.ruleset, direction, StandingKey.of(row), lang, viewer_id=page.viewer_id
        ),
    )


async def _turn(
    interaction: discord.Interaction[Any],
    ruleset: str,
    viewer_id: int | None,
    offset: int = 0,
    *,
    after: StandingKey | None = None,
    before: StandingKey | None = None,
) -> None:
    """Show the leaderboard page a button asks for in the message it is on."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise OtherServer()
    bot = bot_of(interaction)
    if ruleset not in RULESETS:
        raise InvalidOption(
            _(
                "That leaderboard's ruleset is unknown: use {leaderboard_command}.",
                leaderboard_command=command("leaderboard"),
            )
        )

    async def read() -> tuple[discord.Embed, discord.ui.View | None]:
        page = await bot.services.standings.leaderboard(
            guild_id,
            offset,
            PAGE_SIZE,
            ruleset=ruleset,
            viewer_id=viewer_id,
            after=after,
            before=before,
        )
        lang = await bot.flow.server_language(guild_id)
        name = interaction.guild.name if interaction.guild else lang._("this server")
        return leaderboard_embed(page, name, lang), leaderboard_view(page, lang)

    await turn_page(interaction, read())


class LeaderboardButton(
    KeyedPageButton[StandingKey],
    template=(
        r"lb:(?P<ruleset>[a-z0-9-]{1,40}):(?P<dir>prev|next):(?P<provisional>[01]):"
        r"(?P<rating>-?\d{1,17}(?:\.\d{1,20})?(?:e[-+]\d{1,3})?):(?P<user>" + ID + r")"
        r"(?::(?P<viewer>" + ID + r"))?"
    ),
):
    """Turns the leaderboard message to the page right before its first row (Previous) or
    right after its last (Next), keeping the line of who asked for it (``viewer_id``). The id
    carries the row's key (``repr`` gives the rating back exactly), not the server: the
    message is in it."""

    def __init__(
        self,
        ruleset: str,
        direction: str,
        key: StandingKey,
        lang: Language = ENGLISH,
        *,
        viewer_id: int | None = None,
    ) -> None:
        viewer = "" if viewer_id is None else f":{viewer_id}"
        where = f"{int(key.provisional)}:{key.rating!r}:{key.user_id}"
        super().__init__(direction, key, f"lb:{ruleset}:{direction}:{where}{viewer}", lang)
        self.ruleset = ruleset
        self.viewer_id = viewer_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> LeaderboardButton:
        viewer = match["viewer"]
        key = StandingKey(match["provisional"] == "1", float(match["rating"]), int(match["user"]))
        return cls(
            match["ruleset"],
            match["dir"],
            key,
            viewer_id=None if viewer is None else int(viewer),
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await _turn(interaction, self.ruleset, self.viewer_id, after=self.after, before=self.before)


class OffsetLeaderboardButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"leaderboard:(?P<guild>" + ID + r"):(?P<offset>" + COUNT + r"):(?P<dir>prev|next)"
        r"(?::(?P<ruleset>[a-z0-9-]{1,40})(?::(?P<viewer>" + ID + r"))?)?"
    ),
):
    """A Previous or Next button posted before pages were turned by keys: it still shows the
    page from its offset, whose own buttons then turn by keys."""

    def __init__(
        self, guild_id: int, offset: int, ruleset: str, viewer_id: int | None, direction: str
    ) -> None:
        viewer = "" if viewer_id is None else f":{viewer_id}"
        super().__init__(
            page_button(direction, f"leaderboard:{guild_id}:{offset}:{direction}:{ruleset}{viewer}")
        )
        self.guild_id = guild_id
        self.offset = offset
        self.ruleset = ruleset
        self.viewer_id = viewer_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> OffsetLeaderboardButton:
        # Buttons from before ratings were kept per ruleset have no ruleset: the default pool.
        viewer = match["viewer"]
        return cls(
            int(match["guild"]),
            int(match["offset"]),
            match["ruleset"] or DEFAULT_RULESET,
            None if viewer is None else int(viewer),
            match["dir"],
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id != self.guild_id:
            raise OtherServer()
        await _turn(interaction, self.ruleset, self.viewer_id, self.offset)
