"""Whether a board drawn for a set's position may still be posted: an admin's /abort, a
resignation, time, or a takeback landing while the board was drawn leaves it one that asks for
a move nobody is to make (its final board, or the takeback's, is out or owed already)."""

from __future__ import annotations

import logging

from bot.services.domain import ActiveGame
from bot.services.errors import NoGameHere
from bot.services.games import GameService
from bot.storage.errors import StorageError

_log = logging.getLogger(__name__)


async def moved_on(games: GameService, board: ActiveGame) -> bool:
    """Whether ``board``'s set moved on from ``board``'s position so that no board of it may
    follow: it ended (a resignation, an abort, time), or moves were taken back since (its
    count of moves taken back changed: its position may be gone, or stand again at the same
    ply). A later move alone does not count: that board is posted without buttons, the newer
    one keeping them (:mod:`bot.flow.live_boards`). False if the database cannot say: the
    board is then posted as drawn."""
    try:
        current = await games.get(board.set_id)
    except NoGameHere:
        return True
    except StorageError as error:
        _log.info("Game %s: not known whether it moved on: %r", board.set_id, error)
        return False
    return current.undone != board.undone
