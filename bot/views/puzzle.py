"""Puzzle components: the daily post's Solve button and the private move picker of an attempt.

Ids live in the ``custom_id`` (``DynamicItem``): ``puzzle:solve:<puzzle>:<day>`` on a daily
post, ``pz:<attempt>:<ply>:from|to:<index>`` for the picker (the ply makes an old picker stale),
``pz:<attempt>:<ply>:give-up`` beside it, ``puzzle:next`` for another puzzle. The flow
(``bot.puzzles``) does the work.
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from bot.i18n import ENGLISH, Language, _, command
from bot.services.daily_puzzle import DailySetting, DailyStop
from bot.services.puzzles import Attempt
from bot.views.common import GuardedItem, bot_of
from bot.views.id_numbers import ID, PLY
from bot.views.picker import ACTION_ROWS, StepSelect, chunks, piece_options
from engine import Game, parse_square


def daily_time(setting: DailySetting) -> str:
    """The daily puzzle's hour as Discord shows each reader a time: in their own time zone
    (its next post's time of day, ``<t:…:t>``)."""
    return f"<t:{int(setting.next_post.timestamp())}:t>"


def daily_when(setting: DailySetting) -> str:
    """When the daily puzzle is next posted, as each reader sees it counted (``in 3 hours``)."""
    return f"<t:{int(setting.next_post.timestamp())}:R>"


DAILY_EXAMPLE = command("puzzle daily", channel=_("#somewhere"))
"""How an admin switches the daily puzzle on, as they would type it."""


def daily_stop_text(stop: DailyStop, lang: Language = ENGLISH) -> str:
    """Why the daily puzzle is off when no admin switched it off, and how to switch it on."""
    if stop is DailyStop.LEFT_SERVER:
        return lang._(
            "The daily puzzle was switched off when I was removed from this server: "
            "{daily_command} switches it on again.",
            daily_command=DAILY_EXAMPLE,
        )
    return lang._(
        "The daily puzzle was switched off when its channel was deleted: {daily_command} "
        "switches it on in another.",
        daily_command=DAILY_EXAMPLE,
    )


def attempt_game(attempt: Attempt) -> Game:
    """The attempt's position: the puzzle with the moves played so far."""
    game = attempt.puzzle.game()
    for move in attempt.line:
        game.play(move)
    return game


def destination_options(game: Game, from_name: str) -> list[discord.SelectOption]:
    """One option per legal destination of the piece on ``from_name`` (no hints)."""
    frm = parse_square(from_name, game.ruleset.size)
    return [
        discord.SelectOption(label=str(move), value=str(move))
        for move in game.legal_moves_from(frm)
    ]


def picker_view(
    attempt: Attempt, game: Game, from_name: str | None = None, lang: Language = ENGLISH
) -> discord.ui.View:
    """The pieces to move, or with ``from_name`` the chosen piece's destinations; and Give up."""
    view = discord.ui.View(timeout=None)
    ply = len(attempt.line)
    rows = ACTION_ROWS - 1  # the last row is Give up's
    if from_name is None:
        for index, options in enumerate(chunks(piece_options(game, lang), rows=rows)):
            view.add_item(PuzzlePiece(attempt.attempt_id, ply, index, options, lang))
    else:
        for index, options in enumerate(chunks(destination_options(game, from_name), rows=rows)):
            view.add_item(PuzzleTarget(attempt.attempt_id, ply, index, options, lang))
    view.add_item(GiveUp(attempt.attempt_id, ply, lang))
    return view


def next_view(lang: Language = ENGLISH) -> discord.ui.View:
    """One button for another puzzle."""
    view = discord.ui.View(timeout=None)
    view.add_item(NextPuzzle(lang))
    return view


def solve_view(puzzle_id: str, day: str, lang: Language = ENGLISH) -> discord.ui.View:
    """The Solve button under a daily post (in the server's language)."""
    view = discord.ui.View(timeout=None)
    view.add_item(SolveButton(puzzle_id, day, lang))
    return view


def solve_day(custom_id: str) -> str | None:
    """The day of the daily post whose Solve button has ``custom_id`` (None for another id)."""
    found = SolveButton.__discord_ui_compiled_template__.fullmatch(custom_id)
    return found["day"] if found else None


class SolveButton(
    GuardedItem[discord.ui.Button[Any]],
    template=r"puzzle:solve:(?P<puzzle>p[0-9a-f]{8}):(?P<day>\d{4}-\d{2}-\d{2})",
):
    """ "Solve" under a daily puzzle: the presser's own attempt, privately."""

    def __init__(self, puzzle_id: str, day: str, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Solve"),
                style=discord.ButtonStyle.primary,
                custom_id=f"puzzle:solve:{puzzle_id}:{day}",
            )
        )
        self.puzzle_id = puzzle_id
        self.day = day

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(match["puzzle"], match["day"])

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).puzzles.solve_daily(interaction, self.puzzle_id, self.day)


class NextPuzzle(GuardedItem[discord.ui.Button[Any]], template=r"puzzle:next"):
    """ "Another puzzle" after one is over."""

    answers_privately = True  # the puzzle's own private message

    def __init__(self, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Another puzzle"),
                style=discord.ButtonStyle.secondary,
                custom_id="puzzle:next",
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls()

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).puzzles.play(interaction, None, edit=True)


class PuzzleSelect(StepSelect, template=r"(?!)"):
    """A select of a puzzle's picker: its owner is the attempt."""

    prefix = "pz"
    answers_privately = True  # the puzzle's own private message

    @property
    def attempt_id(self) -> int:
        """The attempt this picker was opened for."""
        return self.owner


class PuzzlePiece(
    PuzzleSelect, template=r"pz:(?P<owner>" + ID + r"):(?P<ply>" + PLY + r"):from:(?P<index>\d)"
):
    """The first step: which piece. Shows its moves on the board."""

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        [from_name] = self.item.values
        await bot_of(interaction).puzzles.pick_piece(
            interaction, self.attempt_id, self.ply, from_name
        )


class PuzzleTarget(
    PuzzleSelect, template=r"pz:(?P<owner>" + ID + r"):(?P<ply>" + PLY + r"):to:(?P<index>\d)"
):
    """The second step: where to. Choosing plays the move."""

    step = "to"
    placeholders = (_("Choose where it goes"), _("More destinations"))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        [move] = self.item.values
        await bot_of(interaction).puzzles.play_move(interaction, self.attempt_id, self.ply, move)


class GiveUp(
    GuardedItem[discord.ui.Button[Any]],
    template=r"pz:(?P<attempt>" + ID + r"):(?P<ply>" + PLY + r"):give-up",
):
    """ "Give up" under a puzzle's picker: the attempt fails and the solution is shown."""

    answers_privately = True  # the puzzle's own private message

    def __init__(self, attempt_id: int, ply: int, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Give up"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"pz:{attempt_id}:{ply}:give-up",
            )
        )
        self.attempt_id = attempt_id
        self.ply = ply

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["attempt"]), int(match["ply"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).puzzles.give_up(interaction, self.attempt_id, self.ply)
