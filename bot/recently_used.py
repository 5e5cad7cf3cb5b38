"""A map this process keeps in memory, bounded: once it holds its ``size`` entries, putting
another forgets the least recently used one (read or written), which costs only a read of it
again. The games' cache, the players' names, the members Discord answered and the notes of
what waits told to a member are such maps."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class RecentlyUsed(Generic[K, V]):
    """Values by key, at most ``size``, the least recently used going first once full."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a bounded map keeps at least one entry, not {size}")
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: K) -> bool:
        return key in self._items

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def peek(self, key: K) -> V | None:
        """The value kept for ``key``, or None, leaving its place as it is (a read that should
        not keep it longer)."""
        return self._items.get(key)

    def touch(self, key: K) -> None:
        """Mark ``key``, which is kept, as the most recently used."""
        self._items.move_to_end(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``, forgetting the least recently used entry if full."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def forget(self, key: K) -> None:
        """Forget ``key``'s value, if kept."""
        self._items.pop(key, None)

    def clear(self) -> None:
        """Forget every entry."""
        self._items.clear()
