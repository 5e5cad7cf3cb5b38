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
from bot.names import escaped, player_name
from bot.services.errors import OtherServer
from bot.services.puzzle_leaderboard import Period, SolverBoard, SolverStanding
from bot.views.common import (
    GuardedItem,
    bot_of,
    embed_title,
    page_button,
    paging_view,
    turn_page,
)

PAGE_SIZE = 10
NO_PINGS = discord.AllowedMentions.none()


def solver_line(row: SolverStanding, lang: Language = ENGLISH) -> str:
    """`` `  1.` **alice** — 3 of 4 solved (75 %)``."""
    name = player_name(row.display_name, lang)
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
    lines = [solver_line(row, lang) for row in board.rows]
    if board.viewer is not None:
        lines += ["…", solver_line(board.viewer, lang)]
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
    """Previous / Next buttons, or None when everything fits on one page."""
    return paging_view(
        board.offset,
        board.limit,
        board.total,
        lambda offset, direction: SolversButton(
            board.guild_id, board.period, board.viewer_id, offset, direction, lang
        ),
    )


class SolversButton(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"puzzleboard:(?P<guild>\d{1,20}):(?P<period>all|30d):(?P<viewer>\d{1,20}):"
        r"(?P<offset>\d{1,9}):(?P<dir>prev|next)"
    ),
):
    """Turns the /puzzle leaderboard message to another page."""

    def __init__(
        self,
        guild_id: int,
        period: Period,
        viewer_id: int,
        offset: int,
        direction: str,
        lang: Language = ENGLISH,
    ) -> None:
        super().__init__(
            page_button(
                direction,
                f"puzzleboard:{guild_id}:{period.value}:{viewer_id}:{offset}:{direction}",
                lang,
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
    ) -> SolversButton:
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
        bot = bot_of(interaction)

        async def read() -> tuple[discord.Embed, discord.ui.View | None]:
            board = await bot.services.puzzles.leaderboard(
                self.guild_id, self.viewer_id, self.period, self.offset, PAGE_SIZE
            )
            lang = await bot.flow.server_language(self.guild_id)
            name = interaction.guild.name if interaction.guild else lang._("this server")
            return solvers_embed(board, name, lang), solvers_view(board, lang)

        await turn_page(interaction, read(), allowed_mentions=NO_PINGS)
