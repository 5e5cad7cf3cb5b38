"""Standings: leaderboards, a player's stats, head-to-head records."""

from __future__ import annotations

from bot.services.domain import HeadToHead, LeaderboardPage, PlayerStats
from bot.storage import Database


class StandingsService:
    """Read-only queries over ratings and finished games."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def leaderboard(self, guild_id: int, offset: int = 0, limit: int = 10) -> LeaderboardPage:
        """A page of the server's leaderboard (highest rating first) and the total count of
        rated players. Ranks count from 1."""
        raise NotImplementedError

    async def player_stats(self, guild_id: int, user_id: int, recent: int = 5) -> PlayerStats:
        """``user_id``'s rating, record and ``recent`` latest finished games in the server."""
        raise NotImplementedError

    async def head_to_head(self, guild_id: int, a: int, b: int) -> HeadToHead:
        """The record of ``a`` against ``b`` in the server: finished sets and matches."""
        raise NotImplementedError
