"""Which timers' notes stand for a process's servers when the clocks are given back."""

from __future__ import annotations

from bot.shards import EVERY, Shards
from bot.storage.clocks import covers, shards_key


def test_a_process_is_named_by_its_share_of_the_shards() -> None:
    """One process for every shard is 'every'; a share is written as the logs write it."""
    assert shards_key(EVERY) == "every"
    assert shards_key(Shards(4, (0, 1))) == "0-1 of 4"


def test_only_another_share_of_the_same_count_does_not_stand_for_ours() -> None:
    """Our own note, one process for all, or another count of shards may have driven our
    servers; the other share of the same count did not."""
    ours = Shards(2, (0,))
    assert covers("0 of 2", ours)
    assert covers("every", ours)
    assert covers("0-3 of 8", ours)
    assert not covers("1 of 2", ours)
    assert covers("1 of 2", EVERY)
    assert covers("unreadable", ours)
