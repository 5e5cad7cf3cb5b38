"""Players: the bot remembers every member's last known display name."""

from __future__ import annotations

from bot.services.clock import Clock
from bot.storage import Database, players


class PlayerService:
    """Who is who: display names by Discord user id."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self._database = database
        self._clock = clock

    async def remember(self, user_id: int, display_name: str) -> None:
        """Record ``user_id``'s current display name (insert or update). Returns nothing."""
        async with self._database.transaction() as db:
            await players.upsert(db, user_id, display_name, self._clock())

    async def name(self, user_id: int) -> str | None:
        """The last display name seen for ``user_id``, or ``None`` if never seen."""
        async with self._database.snapshot() as db:
            return await players.name(db, user_id)
