"""The boards of games (bot/services/games.py plays them): which message is a channel's board
with buttons, whether a board read still stands, the boards out (the outbox need not post them),
and the threads of finished matches due to be archived."""

from __future__ import annotations

from datetime import datetime

from bot.services.clock import Clock
from bot.services.domain import THREAD_GRACE, ActiveGame
from bot.shards import Shards
from bot.storage import Database, announcements, places, sets
from bot.storage.connection import Connection
from bot.storage.sets import EVERY
from bot.storage.times import to_us


class BoardService:
    """The boards posted of the games in these servers, and their threads' archiving."""

    def __init__(self, database: Database, clock: Clock, shards: Shards = EVERY) -> None:
        self._shards = shards
        """The servers whose timers and recovery this process drives."""
        self._database = database
        self._clock = clock

    async def stands_at(self, active: ActiveGame) -> bool:
        """Whether ``active``'s set still stands as it was read: in progress at its ply, with
        nothing taken back since (a takeback and a new move back to that ply are another
        position), as of this read."""
        async with self._database.snapshot() as db:
            return await sets.stands_at(db, active.set_id, active.ply, active.undone, lock=False)

    async def live_board(self, channel_id: int) -> int | None:
        """The message id of the board with buttons in ``channel_id``, if one is known."""
        async with self._database.snapshot() as db:
            return await places.live_board(db, channel_id)

    async def set_live_board_at(
        self, active: ActiveGame, message_id: int
    ) -> tuple[bool, int | None]:
        """Make ``message_id``, a board of ``active`` as it was read, the board with buttons in
        its channel if the set still stands at that ply (in one transaction, so a move landing
        meanwhile is either before, and this board is not live, or after, and its own board
        takes the buttons). Returns whether it did, and the board that had them before."""
        async with self._database.transaction() as db:
            return await places.set_live_board_at(
                db, active.channel_id, message_id, active.set_id, active.ply, active.undone
            )

    async def board_posted(
        self, active: ActiveGame, message_id: int | None, *, shows: ActiveGame | None = None
    ) -> tuple[bool, int | None]:
        """The board after ``active``'s last move is out as ``message_id``, in one transaction:
        the outbox need not post it, and (with an id) it is the channel's board with buttons —
        if it carries the buttons of ``shows`` (``active``, or the next set's opening), only
        while that set still stands at that position (its ply, nothing taken back since): a
        board out after the next move landed (its drawing or its post was slow) is an old
        picture, and the newer board keeps them; and if the set ended at that very move
        meanwhile (resigned, aborted, lost on time), what is owed at its ply is the final
        board, which stays owed until it is out itself; so is a board of a ply the set left
        by a takeback, whose ply may owe a new move's board now. Without ``shows`` (a match's
        final board, with its Rematch button) it becomes the board with buttons only if no
        newer match was started in the channel meanwhile (with threads off, the next match
        is played in the same channel, and its board keeps them; the old match's Rematch
        comes off). Without ``message_id`` (Discord's answer gave none) nothing becomes the
        board with buttons, but the position is checked all the same: a board out late does
        not mark out the final board or a takeback's board owed at its ply. Only the board
        ``active`` carries as owed (:attr:`ActiveGame.owed`) is marked out, if known: one owed
        anew at its ply since, even between these checks and the mark (PostgreSQL reads them
        committed one by one), stays owed. Returns whether it
        is the board with buttons (else its own come off), and the one that had them before,
        if another."""
        async with self._database.transaction() as db:
            live, previous = True, None
            if message_id is not None and shows is None:
                live, previous = await _match_end_live(db, active, message_id)
            elif shows is not None:
                if message_id is None:  # nothing to make the board with buttons: only checked
                    live = await sets.stands_at(db, shows.set_id, shows.ply, shows.undone)
                else:
                    live, previous = await places.set_live_board_at(
                        db, shows.channel_id, message_id, shows.set_id, shows.ply, shows.undone
                    )
                if not live and shows.set_id == active.set_id and await _ended_at(db, active):
                    # Resigned, aborted or lost on time at this very move: what is owed at
                    # this ply is now the set's final board, which this one is not.
                    return False, None
                if not live and await _owed_anew(db, active):
                    return False, None
            owed = None if active.owed is None else active.owed.same
            await announcements.delivered(
                db, active.set_id, active.ply, message_id, to_us(self._clock()), owed=owed
            )
        return live, None if previous == message_id else previous

    async def match_end_out(self, ended: ActiveGame, message_id: int) -> tuple[bool, int | None]:
        """A match's final board (with its Rematch button), posted late by the outbox as
        ``message_id``, becomes the channel's board with buttons as :meth:`board_posted` makes
        it; its delivery is marked apart. Returns the same pair."""
        async with self._database.transaction() as db:
            live, previous = await _match_end_live(db, ended, message_id)
        return live, None if previous == message_id else previous

    async def archives_due(self, now: datetime | None = None) -> list[tuple[int, int]]:
        """``(match_id, thread id)`` of finished matches whose thread should be archived now."""
        moment = now if now is not None else self._clock()
        async with self._database.snapshot() as db:
            return await places.archives_due(db, to_us(moment), self._shards)

    async def archive_again(self, match_id: int, thread_id: int) -> None:
        """The thread ``thread_id`` of the finished match ``match_id`` was opened (a press in
        it: Discord's client unarchives an archived thread first): archive it THREAD_GRACE
        from now, as at the match's end — unless a game is played in it now."""
        due = to_us(self._clock() + THREAD_GRACE)
        async with self._database.transaction() as db:
            if await sets.active_in_channel(db, thread_id) is None:
                await places.schedule_archive(db, match_id, due)

    async def thread_archived(self, match_id: int) -> None:
        """The thread of ``match_id`` was archived (or cannot be): nothing more is due."""
        async with self._database.transaction() as db:
            await places.archived(db, match_id)


async def _match_end_live(
    db: Connection, ended: ActiveGame, message_id: int
) -> tuple[bool, int | None]:
    """A match's final board ``message_id`` becomes the channel's board with buttons, unless
    a newer match was started in the channel meanwhile (it keeps them; this one's Rematch
    comes off). Returns whether it did, and the board that had them before."""
    if await sets.newer_in_channel(db, ended.channel_id, ended.set_id):
        return False, None
    return True, await places.set_live_board(db, ended.channel_id, message_id)


async def _ended_at(db: Connection, active: ActiveGame) -> bool:
    """Whether ``active``'s set has ended (without a move) at the ply ``active`` shows."""
    row = await sets.by_id(db, active.set_id)
    return row is not None and row.status != sets.ACTIVE and row.ply == active.ply


async def _owed_anew(db: Connection, active: ActiveGame) -> bool:
    """Whether a takeback since ``active`` was read owes another board at its ply than the one
    shown of it: one of this move (or of one before it), as a new move back to this ply owes
    its own board there; or of the move after it, whose board here tells of the takeback.
    Either stays owed (the outbox posts it if need be). A takeback of later moves only leaves
    the board shown out, as it is: not posted again."""
    lowest = await sets.lowest_undone_since(db, active.set_id, active.undone)
    return lowest is not None and lowest <= active.ply
