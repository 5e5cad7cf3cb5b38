"""What a process keeps in memory of the games it drives, always checked against storage.

Rebuilt games by set (replaying a set's moves costs more than reading one row), used only while
they agree with the stored row's ply and state; and by channel, the set in progress there as
this process last stored or read it, against which a move is tried first (the write itself
checks the stored ply, so a set that moved on meanwhile is never played on stale).
"""

from __future__ import annotations

from bot.recently_used import RecentlyUsed
from bot.services.sets import ended_alike, replay
from bot.storage import moves, sets
from bot.storage.connection import Connection
from bot.storage.sets import SetRow
from engine import Game

CACHE_SIZE = 4096
"""Rebuilt games (and channels' sets) kept in memory, the least recently used dropped first."""


class GameCache:
    """Rebuilt games by set id, and the set last stored or read by channel id."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._games: RecentlyUsed[int, Game] = RecentlyUsed(size)
        self._sets: RecentlyUsed[int, SetRow] = RecentlyUsed(size)

    def game(self, row: SetRow) -> Game | None:
        """The rebuilt game of ``row`` if it is at the stored ply and state, else ``None``."""
        cached = self._games.peek(row.set_id)
        if cached is not None and cached.ply == row.ply and ended_alike(cached, row):
            self._games.touch(row.set_id)
            return cached
        return None

    async def load(self, db: Connection, row: SetRow) -> Game:
        """The game of ``row``: kept if at the stored ply, else rebuilt from its moves (and
        kept)."""
        cached = self.game(row)
        if cached is not None:
            return cached
        game = replay(row, await moves.notations(db, row.set_id))
        self.remember(row.set_id, game)
        return game

    def remember(self, set_id: int, game: Game) -> None:
        """Keep ``game`` as set ``set_id``'s position (the caller no longer changes it)."""
        self._games.put(set_id, game)

    def forget(self, set_id: int) -> None:
        """Drop set ``set_id``'s position (its moves changed other than by a move)."""
        self._games.forget(set_id)

    def set_in(self, channel_id: int) -> SetRow | None:
        """The set in progress in ``channel_id`` as last stored or read, if known."""
        return self._sets.peek(channel_id)

    def store(self, row: SetRow) -> None:
        """Keep ``row`` as the set in progress in its channel (or drop it if it is over)."""
        if row.status != sets.ACTIVE:
            self.drop_set_in(row.channel_id)
        else:
            self._sets.put(row.channel_id, row)

    def drop_set_in(self, channel_id: int) -> None:
        """Forget the set known in ``channel_id`` (the next move reads it afresh)."""
        self._sets.forget(channel_id)
