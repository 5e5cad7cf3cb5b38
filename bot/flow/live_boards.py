"""Which message is a game's live board, the one with buttons: recorded as each board goes out,
the buttons then taken off the board before it (or off a board that came out too late to be
the live one). A board whose buttons Discord would not take off (the bot could not see its
channel then, or Discord was in trouble) has them taken off when a board next goes out there
and the bot may see the channel.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.my_permissions import my_permissions
from bot.services.domain import ActiveGame, SetEnd
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


class LiveBoards:
    """A game's live board: which message it is, and the buttons off the one before."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._left_on: dict[int, set[int]] = {}
        """By channel, the boards whose buttons Discord would not take off (this process's:
        a restart leaves them, their presses refused as stale)."""

    async def board_out(
        self, active: ActiveGame, message_id: int | None, end: SetEnd | None = None
    ) -> None:
        """The board after ``active``'s last move (which ended the set as ``end`` says, if it
        did) is out as ``message_id``, both recorded in one transaction: the outbox need not
        post it, and it is the game's board with buttons (the one before loses them) — unless
        a move landed meanwhile, in the set whose buttons it carries (``active``, or the next
        set's): then it is an old picture, and its own buttons come off instead.

        The move and its board are out whatever the database says now: if it cannot record
        them, nobody is told it failed (told so, a player would play the move again), and the
        outbox records them once it can, instead of posting the board again
        (:meth:`Outbox.record_later`)."""
        try:
            await self._board_out(active, message_id, end)
        except StorageError as error:
            self.flow.outbox.record_later(
                active.set_id,
                active.ply,
                error,
                lambda: self._board_out(active, message_id, end),
                None if active.owed is None else active.owed.same,
            )

    async def _board_out(
        self, active: ActiveGame, message_id: int | None, end: SetEnd | None
    ) -> None:
        """:meth:`board_out`, raising the database's trouble."""
        if end is None:
            shows: ActiveGame | None = active
        else:  # the next set's opening board, or the match's end (its Rematch button)
            shows = end.next_game
        live, previous = await self.flow.bot.services.boards.board_posted(
            active, message_id, shows=shows
        )
        if not live:
            await self.take_buttons_off(active.channel_id, message_id)
        await self.take_buttons_off(active.channel_id, previous)

    async def went_live(self, active: ActiveGame, message_id: int | None) -> None:
        """``message_id`` shows ``active`` as it was read: it becomes the game's board with
        buttons if the game still stands there; if a move (or the set's end) came meanwhile it
        is an old picture, and its own buttons come off instead."""
        if message_id is None:
            return
        live, previous = await self.flow.bot.services.boards.set_live_board_at(active, message_id)
        if not live:
            await self.take_buttons_off(active.channel_id, message_id)
        elif previous != message_id:
            await self.take_buttons_off(active.channel_id, previous)

    async def match_end_went_live(self, ended: ActiveGame, message_id: int) -> None:
        """``message_id``, a match's final board the outbox posted late, carries its Rematch
        button: it takes the buttons from the channel's board before it, or, if a newer match
        started there meanwhile, its own Rematch comes off."""
        live, previous = await self.flow.bot.services.boards.match_end_out(ended, message_id)
        await self.take_buttons_off(ended.channel_id, message_id if not live else previous)

    async def take_buttons_off(self, channel_id: int, previous: int | None) -> None:
        """Edit board ``previous`` (if any) to have no buttons; and, if the bot may see the
        channel (as Discord last told it), the boards there whose buttons Discord would not take
        off before."""
        boards = [] if previous is None else [previous]
        left_on = self._left_on.get(channel_id)
        if left_on and self._may_see(channel_id):
            boards += sorted(left_on - {previous})
            del self._left_on[channel_id]
        for board in boards:
            await self._buttons_off(channel_id, board)

    def _may_see(self, channel_id: int) -> bool:
        """Whether the bot may see ``channel_id`` (a channel or a thread), or the cache cannot
        say: an edit there is worth trying."""
        mine = my_permissions(self.flow.bot, channel_id)
        return mine is None or mine.view_channel

    async def _buttons_off(self, channel_id: int, board: int) -> None:
        """Edit ``board`` to have no buttons. One Discord refused (403: the bot may not see the
        channel) or could not take now is tried again when a board next goes out there."""
        message = self.flow.bot.get_partial_messageable(channel_id).get_partial_message(board)
        try:
            await message.edit(view=None)
        except (discord.Forbidden, *UNREACHABLE) as error:
            _log.info("Could not take the buttons off board %s yet: %r", board, error)
            self._left_on.setdefault(channel_id, set()).add(board)
        except discord.HTTPException as error:
            # Deleted, or another refusal: it can stay (its buttons are refused as stale when
            # pressed).
            _log.info("Could not take the buttons off board %s: %r", board, error)
