"""Players: the bot remembers each account's own name and every member's name in each server."""

from __future__ import annotations

from bot.services.clock import Clock
from bot.storage import Database, players


class PlayerService:
    """Who is who: names by Discord user id, per server (a nickname belongs to its server)."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self._database = database
        self._clock = clock

    async def remember(
        self,
        user_id: int,
        account_name: str,
        *,
        guild_id: int | None = None,
        member_name: str | None = None,
        username: str | None = None,
    ) -> None:
        """Record ``user_id``'s account name (their global display name, the same in every
        server), their ``username`` if given and, given ``guild_id`` and ``member_name``, their
        display name in that server (its nickname, else the account's name). Returns
        nothing."""
        now = self._clock()
        async with self._database.transaction() as db:
            await players.upsert(db, user_id, account_name, now, username)
            if guild_id is not None and member_name is not None:
                await players.upsert_member(db, guild_id, user_id, member_name, now)

    async def name(self, *, guild_id: int | None, user_id: int) -> str | None:
        """The name of ``user_id`` as shown in the server ``guild_id`` (their name there, else
        their account's; ``None``: outside any server), or ``None`` if never seen."""
        async with self._database.snapshot() as db:
            return await players.name(db, guild_id=guild_id, user_id=user_id)

    async def names(self, guild_id: int | None, user_ids: list[int]) -> dict[int, str]:
        """The names of those of ``user_ids`` ever seen, as shown in the server ``guild_id``."""
        async with self._database.snapshot() as db:
            return await players.names(db, guild_id, user_ids)

    async def usernames(self, user_ids: list[int]) -> dict[int, str]:
        """The stored usernames of those of ``user_ids`` that have one."""
        async with self._database.snapshot() as db:
            return await players.usernames(db, user_ids)
