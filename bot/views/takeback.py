"""Takeback buttons: Takeback under the board, and Accept / Decline for the opponent."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import ENGLISH, Language, _
from bot.views.common import GameButton, GuardedItem, bot_of, within_deadline
from bot.views.id_numbers import ID, PLY
from bot.views.picker import board_game, game_of_board


def takeback_answer_view(takeback_id: int, lang: Language = ENGLISH) -> discord.ui.View:
    """Accept and Decline, for the opponent of the player who asked."""
    view = discord.ui.View(timeout=None)
    view.add_item(TakebackAnswer(takeback_id, "accept", lang))
    view.add_item(TakebackAnswer(takeback_id, "decline", lang))
    return view


class TakebackButton(
    GameButton,
    template=(
        r"takeback:(?P<game>" + ID + r")"
        r"(?::(?P<ply>" + PLY + r")(?:\.(?P<undone>" + PLY + r")(?P<again>:board)?)?)?"
    ),
):
    """Under the board: ask to take back your last move. Its ``custom_id`` carries the
    position of the board it is under, its ply and how many moves were taken back before it
    (``takeback:<set id>:<ply>.<undone>``), so a second press of it takes back nothing more,
    nor does a press on a board from before a takeback once a new move has brought the game
    back to that ply. Under a ``/board`` answer it ends ``:board``
    (``takeback:<set id>:<ply>.<undone>:board``) and works the same: the board the outbox may
    owe at that position after a restart, looked for by its button
    (:mod:`bot.flow.boards_shown`), is not that answer. Boards posted before carry
    ``takeback:<set id>:<ply>`` (their position is known only in a set where nothing was taken
    back yet) or ``takeback:<set id>``."""

    prefix = "takeback"
    button_label = _("Takeback")

    def __init__(
        self,
        set_id: int,
        lang: Language = ENGLISH,
        *,
        ply: int | None = None,
        undone: int | None = None,
        again: bool = False,
    ) -> None:
        super().__init__(set_id, lang)
        self.ply = ply
        """The ply of the board the button is under, if its ``custom_id`` says."""
        self.undone = undone
        """How many moves had been taken back in the set at that board, if its ``custom_id``
        says."""
        self.again = again and ply is not None and undone is not None
        """Whether it is under a ``/board`` answer (its ``custom_id`` ends ``:board``)."""
        if ply is not None:
            at = str(ply) if undone is None else f"{ply}.{undone}"
            mark = ":board" if self.again else ""
            self.item.custom_id = f"{self.prefix}:{set_id}:{at}{mark}"

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TakebackButton:
        ply, undone = match["ply"], match["undone"]
        return cls(
            int(match["game"]),
            ply=None if ply is None else int(ply),
            undone=None if undone is None else int(undone),
            again=match["again"] is not None,
        )

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        # No live board known (boards of an older bot): the channel's game may be another set,
        # whose last move the request would otherwise ask to take back. Deferred privately
        # when these reads are slow, as the request's own write is (a refusal may follow).
        await within_deadline(
            interaction, board_game(interaction, self.set_id, game_of_board), ephemeral=True
        )
        board = None if self.ply is None else (self.ply, self.undone or 0)
        await bot_of(interaction).flow.takebacks.ask(interaction, board=board)


class TakebackAnswer(
    GuardedItem[discord.ui.Button[Any]],
    template=r"takeback-answer:(?P<id>" + ID + r"):(?P<answer>accept|decline)",
):
    """The opponent's answer to a takeback request."""

    def __init__(self, takeback_id: int, answer: str, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Accept") if answer == "accept" else lang._("Decline"),
                style=(
                    discord.ButtonStyle.success
                    if answer == "accept"
                    else discord.ButtonStyle.secondary
                ),
                custom_id=f"takeback-answer:{takeback_id}:{answer}",
            )
        )
        self.takeback_id = takeback_id
        self.accept = answer == "accept"

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TakebackAnswer:
        return cls(int(match["id"]), match["answer"])

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await bot_of(interaction).flow.takebacks.answer(
            interaction, self.takeback_id, accept=self.accept
        )
