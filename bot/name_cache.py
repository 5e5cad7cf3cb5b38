"""The players' names this process keeps in memory, bounded: the least recently used name
goes once there are :data:`NAMES_KEPT`, which costs only a read (or write) of it again."""

from __future__ import annotations

from collections import OrderedDict

NAMES_KEPT = 100_000
"""How many (server, user) names each cache keeps: about 26 MB at 260 bytes a name."""

NameKey = tuple[int | None, int]
"""A name's (server, user); server None: the account's own name, outside any server."""


class NameCache:
    """Names by (server, user), the least recently read or written going first once full."""

    def __init__(self, size: int = NAMES_KEPT) -> None:
        if size < 1:
            raise ValueError(f"a name cache keeps at least one name, not {size}")
        self.size = size
        self._names: OrderedDict[NameKey, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, key: NameKey) -> bool:
        return key in self._names

    def get(self, key: NameKey) -> str | None:
        """The name kept for ``key`` (now the most recently used), or None."""
        name = self._names.get(key)
        if name is not None:
            self._names.move_to_end(key)
        return name

    def put(self, key: NameKey, name: str) -> None:
        """Keep ``name`` for ``key``, forgetting the least recently used name if full."""
        self._names[key] = name
        self._names.move_to_end(key)
        while len(self._names) > self.size:
            self._names.popitem(last=False)

    def forget(self, key: NameKey) -> None:
        """Forget ``key``'s name, if kept."""
        self._names.pop(key, None)

    def clear(self) -> None:
        """Forget every name."""
        self._names.clear()
