"""Where nobody can play now, so the deadlines there stand still.

A server in an outage, a game's thread a moderator locked and archived, and the servers of a
shard whose gateway connection has dropped: nobody there can move, accept a challenge or answer
a takeback request, so nobody there loses on time, is reminded, or sees a challenge or request
run out until they can (bot/timers.py keeps the holds and gives the time back).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Held:
    """The places held now: servers and channels (or threads) by id, and dropped shards."""

    places: frozenset[int] = frozenset()
    """Servers in an outage and threads locked and archived."""
    shards: frozenset[int] = frozenset()
    """The shards whose gateway connection is down (their servers are held)."""
    shard_count: int = 1
    """How many shards the bot runs in all (Discord's ``(guild_id >> 22) % shard_count``)."""

    def covers(self, guild_id: int, channel_id: int) -> bool:
        """Whether nobody can play in ``channel_id`` of server ``guild_id`` now."""
        return (
            guild_id in self.places
            or channel_id in self.places
            or (guild_id >> 22) % self.shard_count in self.shards
        )


NOTHING = Held()
"""Nowhere is held."""
