"""Where nobody can play now, so the deadlines there stand still.

A server in an outage, a game's thread a moderator locked and archived, the servers of a
shard whose gateway connection has dropped, and a game's channel whose player to move a
moderator shut out of it (bot/player_holds.py): nobody there can move, accept a challenge or
answer a takeback request, so nobody there loses on time, is reminded, or sees a challenge or
request run out until they can (bot/holds.py keeps the holds and gives the time back). The
holds are stored, so that a restart keeps them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from bot.shards import Shards
from bot.storage import Database, holds
from bot.storage.times import from_us, to_us


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


class HoldKind(enum.Enum):
    """What is held."""

    SERVER = "server"
    """A server Discord says is unavailable (its outage)."""
    THREAD = "thread"
    """A game's thread a moderator locked and archived."""
    SHARD = "shard"
    """A shard (of several in one process) whose gateway connection dropped."""
    PLAYER = "player"
    """A game's channel whose player to move cannot play there through a moderator's doing
    (they cannot see it, or are timed out: bot/player_holds.py). Kept as a
    :class:`PlayerHold`; its bounds (once a move, a day at most) are read from the set's
    deadline and ``player_holds_given``."""


@dataclass(frozen=True)
class Hold:
    """One place held, since when."""

    kind: HoldKind
    place_id: int
    """The server's, thread's or shard's id."""
    since: datetime
    guild_id: int | None = None
    """The server (of the thread); None for a shard."""
    shard_count: int | None = None
    """A shard's: how many shards it is one of."""


class ShutOut(enum.Enum):
    """Why a player cannot play in their game's channel (bot/player_holds.py)."""

    CANNOT_SEE = "cannot see"
    """They lack View Channel there (an overwrite or a role taken away)."""
    TIMED_OUT = "timed out"
    """A moderator timed them out: Discord takes no command or press from them."""


class BackLine(enum.Enum):
    """The line a player's hold owes once it gave their time back (bot/player_holds.py)."""

    BACK = "back"
    """They can play again: their clock runs."""
    HELD_A_DAY = "held a day"
    """Their clock was held a day: it runs, whether they can play or not."""


@dataclass(frozen=True)
class BackLineOwed:
    """A line a player's hold owes since it gave the time of set ``set_id``'s move ``ply``
    back, in ``channel_id`` (stored with that give-back: a restart posts it)."""

    set_id: int
    ply: int
    channel_id: int
    line: BackLine


@dataclass(frozen=True)
class PlayerHold:
    """A game's channel (or thread) held for its player to move, whom a moderator shut out."""

    channel_id: int
    set_id: int
    ply: int
    """The move held: the set's ply when it began."""
    guild_id: int
    player_id: int
    since: datetime
    """Their turn's start: the time is given back from then."""
    line_owed: ShutOut | None = None
    """Why they are held, while the public line saying so is not yet posted (the hold is
    stored first, so a restart posts it); None once it is."""


class HoldService:
    """The holds kept in the database, across a restart."""

    def __init__(self, database: Database, shards: Shards) -> None:
        self._database = database
        self._shards = shards

    async def kept(self) -> list[Hold]:
        """The holds of this process's servers (and their threads), and every shard's, oldest
        first (at start-up)."""
        async with self._database.snapshot() as db:
            rows = await holds.held(db, self._shards)
        return [
            Hold(
                HoldKind(row.kind),
                row.place_id,
                from_us(row.since_us),
                row.guild_id,
                row.shard_count,
            )
            for row in rows
        ]

    async def hold(self, hold: Hold) -> None:
        """Keep ``hold`` (one already kept for its place keeps its start)."""
        async with self._database.transaction() as db:
            await holds.hold(
                db,
                hold.kind.value,
                hold.place_id,
                to_us(hold.since),
                guild_id=hold.guild_id,
                shard_count=hold.shard_count,
            )

    async def players_held(self) -> list[PlayerHold]:
        """The players' holds of this process's servers, oldest first (at start-up)."""
        async with self._database.snapshot() as db:
            rows = await holds.players_held(db, self._shards)
        return [
            PlayerHold(
                row.channel_id,
                row.set_id,
                row.ply,
                row.guild_id,
                row.player_id,
                from_us(row.since_us),
                None if row.line_owed is None else ShutOut(row.line_owed),
            )
            for row in rows
        ]

    async def hold_player(self, hold: PlayerHold) -> None:
        """Keep ``hold`` (a channel already held for its player keeps its hold)."""
        row = holds.PlayerHoldRow(
            hold.channel_id,
            hold.set_id,
            hold.ply,
            hold.guild_id,
            hold.player_id,
            to_us(hold.since),
            None if hold.line_owed is None else hold.line_owed.value,
        )
        async with self._database.transaction() as db:
            await holds.hold_player(db, row)

    async def player_line_posted(self, channel_id: int) -> None:
        """The line saying ``channel_id`` is held for its player was posted: a restart does
        not post it again."""
        async with self._database.transaction() as db:
            await holds.player_line_posted(db, channel_id)

    async def back_lines_owed(self) -> list[BackLineOwed]:
        """The lines players' holds of this process's servers owe since they gave the time
        back (a crash came before they were posted, or Discord could not take them)."""
        async with self._database.snapshot() as db:
            rows = await holds.player_back_lines_owed(db, self._shards)
        return [BackLineOwed(r.set_id, r.ply, r.channel_id, BackLine(r.line)) for r in rows]

    async def back_line_posted(self, set_id: int, ply: int) -> None:
        """The line owed since the hold of set ``set_id``'s move ``ply`` gave its time back
        was posted (or is not to be: the game moved on): a restart does not post it again."""
        async with self._database.transaction() as db:
            await holds.player_back_line_posted(db, set_id, ply)

    async def held_this_move(self, set_id: int, ply: int, turn_began: datetime) -> bool:
        """Whether a player's hold (bot/player_holds.py) gave set ``set_id``'s clock for
        ``ply``, whose turn began at ``turn_began``, its time back already — not a locked
        thread's, an outage's or the bot's absence, which the player had no hand in."""
        async with self._database.single_read() as db:
            return await holds.player_held(db, set_id, ply, to_us(turn_began))

    async def release(self, kind: HoldKind, place_id: int) -> None:
        """``kind`` ``place_id`` is held no more (its time given back, or nothing to give)."""
        async with self._database.transaction() as db:
            await holds.release(db, kind.value, place_id)
