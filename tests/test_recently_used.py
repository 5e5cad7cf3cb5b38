"""The bounded map of what a process keeps in memory (pins what the four hand-written maps it
replaced did): the least recently used entry goes first, and a peek does not count as a use."""

from __future__ import annotations

import pytest

from bot.recently_used import RecentlyUsed


def test_a_peek_leaves_an_entry_to_go_first_and_a_touch_keeps_it() -> None:
    """Of two kept, the one only peeked at goes when a third comes; one touched stays."""
    kept: RecentlyUsed[str, int] = RecentlyUsed(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.peek("a") == 1
    kept.put("c", 3)
    assert "a" not in kept
    kept.touch("b")
    kept.put("d", 4)
    assert ("b" in kept, "c" in kept, len(kept)) == (True, False, 2)


def test_a_map_keeping_nothing_is_refused() -> None:
    """A bound below one is a mistake, said at once."""
    with pytest.raises(ValueError, match="at least one entry"):
        RecentlyUsed[str, int](0)
