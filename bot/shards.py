"""Which servers this process drives: Discord's shards, by ``(guild_id >> 22) % shard_count``.

A bot in many servers runs several gateway connections (shards); Discord sends each server's
events only to the connection of its shard. Several processes may share one PostgreSQL
database, each running some of the shards: each process then drives only the servers of its
own shards (their games, timers, computer turns, outbox and threads), so no game is ever driven
by two processes, and one that dies leaves its servers to whichever process next runs its shards.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shards:
    """The shards this process runs: ``ids`` out of ``count``."""

    count: int = 1
    ids: tuple[int, ...] = (0,)

    @property
    def every(self) -> bool:
        """Whether this process runs every shard (it drives every server)."""
        return set(self.ids) == set(range(self.count))

    @property
    def runs_first(self) -> bool:
        """Whether this process runs shard 0: the one process of several that does what is
        done once for all of them (syncing the commands; sweeping the time given back to
        deadlines no server's process can claim, bot/storage/clocks.py)."""
        return 0 in self.ids

    def shard_of(self, guild_id: int) -> int:
        """The shard Discord assigns the server ``guild_id`` to."""
        return (guild_id >> 22) % self.count

    def owns(self, guild_id: int) -> bool:
        """Whether this process drives the server ``guild_id``."""
        return self.every or self.shard_of(guild_id) in self.ids

    def where(self, column: str) -> str:
        """An SQL condition true for rows whose server (``column``) this process drives; the
        numbers are validated integers, so they are written into the SQL (the same text every
        time, one prepared statement)."""
        if self.every:
            return "1 = 1"
        ids = ", ".join(str(shard) for shard in sorted(self.ids))
        return f"(({column} >> 22) % {self.count}) IN ({ids})"

    @property
    def layout(self) -> int:
        """The shard count, or 0 for a process running every shard: processes of different
        layouts drive overlapping servers, so they never run at once on one database
        (bot/storage/shard_claim.py)."""
        return 0 if self.every else self.count

    @property
    def key(self) -> str:
        """How the database names this process's share of the servers (its timers' note, its
        analysis claims): ``every``, or as :meth:`describe` writes it."""
        return "every" if self.every else self.describe()

    def describe(self) -> str:
        """``0-1 of 4`` (for logs and messages)."""
        return f"{spans(self.ids)} of {self.count}"


@dataclass(frozen=True)
class Share(Shards):
    """The servers of these shards that ``within`` holds too (all of them: None) and none of
    ``besides`` does: after a change of the shards' layout, the servers whose timers one
    earlier process drove last (bot/services/clocks.py ``resume_clocks``)."""

    within: Shards | None = None
    besides: tuple[Shards, ...] = ()

    @property
    def every(self) -> bool:
        return False  # a condition to write out, even when it keeps every server

    def owns(self, guild_id: int) -> bool:
        return (
            Shards(self.count, self.ids).owns(guild_id)
            and (self.within is None or self.within.owns(guild_id))
            and not any(other.owns(guild_id) for other in self.besides)
        )

    def where(self, column: str) -> str:
        parts = [Shards(self.count, self.ids).where(column)]
        if self.within is not None:
            parts.append(self.within.where(column))
        parts += [f"NOT ({other.where(column)})" for other in self.besides]
        return "(" + " AND ".join(parts) + ")"


EVERY = Shards()
"""Every server (one process drives them all)."""


def from_key(key: str) -> Shards:
    """The shards a :attr:`Shards.key` names (every server: ``every``, or one unreadable)."""
    ids, _, count = key.partition(" of ")
    try:
        return Shards(int(count), parse_ids(ids, int(count)))
    except ValueError:
        return EVERY


def spans(ids: tuple[int, ...]) -> str:
    """Shard ids as short ranges: ``0-3``, ``0,2,5-6``."""
    ordered = sorted(set(ids))
    parts: list[str] = []
    first = 0
    while first < len(ordered):
        last = first
        while last + 1 < len(ordered) and ordered[last + 1] == ordered[last] + 1:
            last += 1
        low, high = ordered[first], ordered[last]
        parts.append(str(low) if low == high else f"{low}-{high}")
        first = last + 1
    return ",".join(parts)


class ShardOutside(ValueError):
    """A shard id at or past the count of shards (the smallest such id: ``shard``)."""

    def __init__(self, shard: int) -> None:
        super().__init__(shard)
        self.shard = shard


def parse_ids(raw: str, count: int) -> tuple[int, ...]:
    """``0-3`` or ``0,2,5-6`` as shard ids out of ``count``; ValueError naming the part it cannot
    read, ShardOutside naming the smallest id not below ``count`` (``0-99999999999`` is refused
    without counting to it)."""
    found: list[int] = []
    outside: list[int] = []
    for part in raw.replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(part)
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(part)
        if last >= count:
            outside.append(max(first, count))
        found.extend(range(first, min(last, count - 1) + 1))
    if outside:
        raise ShardOutside(min(outside))
    if not found:
        raise ValueError(raw)
    return tuple(sorted(set(found)))
