"""The Rematch button under a match's result: either player may ask for the same match again."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import ENGLISH, Language
from bot.views.common import GuardedItem, bot_of
from bot.views.id_numbers import ID


def rematch_view(match_id: int, lang: Language = ENGLISH) -> discord.ui.View:
    """The one Rematch button for the finished match ``match_id``."""
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(match_id, lang))
    return view


class RematchButton(GuardedItem[discord.ui.Button[Any]], template=r"rematch:(?P<match>" + ID + ")"):
    """Asks for the same match again (same ruleset, sets and time), set 1's sides swapped."""

    answers_privately = True
    """A rematch against a member is offered in the match's channel and its presser answered
    alone, which a finished match's thread a moderator locked still takes; where the rematch
    would be shown in the thread itself, :class:`bot.flow.rematches.RematchFlow` refuses it."""

    def __init__(self, match_id: int, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Rematch"),
                style=discord.ButtonStyle.primary,
                custom_id=f"rematch:{match_id}",
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> RematchButton:
        return cls(int(match["match"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).flow.rematches.ask(interaction, self.match_id)
