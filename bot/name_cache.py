"""The players' names this process keeps in memory, bounded: the least recently used name
goes once there are :data:`NAMES_KEPT`, which costs only a read (or write) of it again."""

from __future__ import annotations

from bot.recently_used import RecentlyUsed

NAMES_KEPT = 100_000
"""How many (server, user) names each cache keeps: about 26 MB at 260 bytes a name."""

NameKey = tuple[int | None, int]
"""A name's (server, user); server None: the account's own name, outside any server."""


class NameCache(RecentlyUsed[NameKey, str]):
    """Names by (server, user), the least recently read or written going first once full."""

    def __init__(self, size: int = NAMES_KEPT) -> None:
        super().__init__(size)
