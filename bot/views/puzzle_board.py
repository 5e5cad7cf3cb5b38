"""The /puzzle leaderboard message and its Previous / Next buttons (anyone may page).

It looks like /leaderboard's: ten players a page, a rank, a name and the numbers on each line,
the page and how ties are broken in the footer. Below the page, the line of whoever asked,
when they are not on it; the buttons keep that line (their ids carry the asker).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import ENGLISH, Language, command
from bot.names import escaped, player_name, rows_told_apart
from bot.services.errors import OtherServer
from bot.services.puzzle_leaderboard import Period, SolverBoard, SolverKey, SolverStanding
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

PAGE_SIZE = 10
NO_PINGS = discord.AllowedMentions.none()


def solver_line(row: SolverStanding, lang: Language = ENGLISH, shown: str | None = None) -> str:
    """`` `  1.` **alice** — 3 of 4 solved (75 %)``, the player named ``shown`` (as the list
    tells them apart: :func:`bot.names.told_apart`), else by their stored name."""
    name = player_name(shown or row.display_name, lang)
    # Translators: {count} puzzles solved of the {attempted} finished (the form follows the
    # puzzles solved: "1 résolu sur 3", "0 de 2 resueltos").
    record = lang.n_(
        "{count} of {attempted} solved ({percent} %)",
        "{count} of {attempted} solved ({percent} %)",
        row.solved,
        attempted=row.attempted,
        percent=row.percent,
    )
    return f"`{row.rank:>3}.` **{name}** — {record}"


def solvers_embed(board: SolverBoard, guild_name: str, lang: Language = ENGLISH) -> discord.Embed:
    """One page of the server's puzzle solvers as an embed."""
    server = escaped(guild_name)
    if board.period is Period.LAST_30_DAYS:
        title = lang._("Puzzle leaderboard, last 30 days — {server}", server=server)
    else:
        title = lang._("Puzzle leaderboard — {server}", server=server)
    embed = discord.Embed(title=embed_title(title))
    if not board.rows:
        play = command("puzzle play")
        embed.description = (
            lang._(
                "Nobody here has finished a puzzle in the last 30 days: {play_command} gives "
                "you one.",
                play_command=play,
            )
            if board.period is Period.LAST_30_DAYS
            else lang._(
                "Nobody here has finished a puzzle yet: {play_command} gives you one.",
                play_command=play,
            )
        )
        return embed
    listed = [*board.rows, *([] if board.viewer is None else [board.viewer])]
    names = rows_told_apart(listed)
    lines = [solver_line(row, lang, names[row.user_id]) for row in board.rows]
    if board.viewer is not None:
        lines += ["…", solver_line(board.viewer, lang, names[board.viewer.user_id])]
    embed.description = "\n".join(lines)
    embed.set_footer(
        text=lang._(
            "Players {first}–{last} of {total} · Each player's first try at a puzzle counts; a "
            "tie goes to the higher success rate, then to whoever got there first.",
            first=board.offset + 1,
            last=board.offset + len(board.rows),
            total=board.total,
        )
    )
    return embed


def solvers_view(board: SolverBoard, lang: Language = ENGLISH) -> discord.ui.View | None:
    """Previous / Next buttons, or None when the page holds every solver. Each carries the key
    of the page's first (Previous) or last (Next) line, so the page it turns to starts right
    after that line wherever puzzles were finished meanwhile."""
    return keyset_view(
        board.offset,
        board.rows,
        board.total,
        lambda direction, row: SolversButton(
            board.period, board.viewer_id, direction, SolverKey.of(row), lang
        ),
    )


async def _turn(
    interaction: discord.Interaction[Any],
    period: Period,
    viewer_id: int,
    offset: int = 0,
    *,
    after: SolverKey | None = None,
    before: SolverKey | None = None,
) -> None:
    """Show the puzzle leaderboard page a button asks for in the message it is on."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise OtherServer()
    bot = bot_of(interaction)

    async def read() -> tuple[discord.Embed, discord.ui.View | None]:
        board = await bot.services.puzzles.leaderboard(
            guild_id, viewer_id, period, offset, PAGE_SIZE, after=after, before=before
        )
        lang = await bot.flow.server_language(guild_id)
        name = interaction.guild.name if interaction.guild else lang._("this server")
        return solvers_embed(board, name, lang), solvers_view(board, lang)

    await turn_page(interaction, read(), allowed_mentions=NO_PINGS)


class SolversButton(
    KeyedPageButton[SolverKey],
    template=(
        r"pzb:(?P<period>all|30d):(?P<viewer>" + ID + r"):(?P<dir>prev|next):"
        r"(?P<solved>" + COUNT + r"):(?P<attempted>" + COUNT + r"):(?P<reached>" + ID + r"):"
        r"(?P<user>" + ID + r")"
    ),
):
    """Turns the /puzzle leaderboard message to the page right before its first line
    (Previous) or right after its last (Next). The id carries the line's key, not the server:
    the message is in it."""

    def __init__(
        self,
        period: Period,
        viewer_id: int,
        direction: str,
        key: SolverKey,
        lang: Language = ENGLISH,
    ) -> None:
        where = f"{key.solved}:{key.attempted}:{key.reached_us}:{key.user_id}"
        super().__init__(
            direction, key, f"pzb:{period.value}:{viewer_id}:{direction}:{where}", lang
        )
        self.period = period
        self.viewer_id = viewer_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> SolversButton:
        key = SolverKey(
            int(match["solved"]), int(match["attempted"]), int(match["reached"]), int(match["user"])
        )
        return cls(Period(match["period"]), int(match["viewer"]), match["dir"], key)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await _turn(interaction, self.period, self.viewer_id, after=self.after, before=self.before)


class OffsetSolversButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"puzzleboard:(?P<guild>" + ID + r"):(?P<period>all|30d):(?P<viewer>" + ID + r"):"
        r"(?P<offset>" + COUNT + r"):(?P<dir>prev|next)"
    ),
):
    """A Previous or Next button posted before pages were turned by keys: it still shows the
    page from its offset, whose own buttons then turn by keys."""

    def __init__(
        self, guild_id: int, period: Period, viewer_id: int, offset: int, direction: str
    ) -> None:
        super().__init__(
            page_button(
                direction, f"puzzleboard:{guild_id}:{period.value}:{viewer_id}:{offset}:{direction}"
            )
        )
        self.guild_id = guild_id
        self.period = period
        self.viewer_id = viewer_id
        self.offset = offset

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> OffsetSolversButton:
        return cls(
            int(match["guild"]),
            Period(match["period"]),
            int(match["viewer"]),
            int(match["offset"]),
            match["dir"],
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id != self.guild_id:
            raise OtherServer()
        await _turn(interaction, self.period, self.viewer_id, self.offset)
