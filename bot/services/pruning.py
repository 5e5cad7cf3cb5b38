"""Forgetting what nobody reads again: the boards delivered for sets that ended a week ago,
challenges that closed unaccepted a week ago, and those accepted whose match ended a week ago.
What players can still ask for (games and their moves, ratings and their history, exports,
puzzle attempts, names) is kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from bot.services.clock import Clock
from bot.shards import EVERY, Shards
from bot.storage import Database, pruning
from bot.storage.times import to_us

KEPT_FOR = timedelta(days=7)
"""How long a delivered board outlives its set's end, a challenge declined, withdrawn or expired
its closing, and one accepted its match's end: their readers look back minutes (the previous
board to reply to, the board already out, a second press of Decline or Accept, 15 minutes
between pings), and a week is room for a stop or a busy database in between."""

BATCH = 500
"""The most rows one transaction deletes: a move or a challenge waits for one batch at most."""

BATCHES_AT_ONCE = 10
"""The most full batches one sweep deletes: it runs inside the timers' check (late boards, time
outs), which a backlog (the first sweep after an upgrade) would hold up for all of it; what is
left goes at the next checks."""


@dataclass(frozen=True, slots=True)
class Swept:
    """What one sweep did: how many rows went, and whether some are left for the next."""

    deleted: int
    more_left: bool


class PruningService:
    """Delete, in batches, the rows kept past their use (hourly, from the timers)."""

    def __init__(
        self,
        database: Database,
        clock: Clock,
        shards: Shards = EVERY,
        *,
        batch: int = BATCH,
        batches: int = BATCHES_AT_ONCE,
    ) -> None:
        self._database = database
        self._clock = clock
        self._shards = shards
        self._batch = batch
        self._batches = batches

    async def prune(self) -> Swept:
        """Delete the delivered boards of the sets of these servers that ended more than
        :data:`KEPT_FOR` ago, and their challenges closed unaccepted that long ago or accepted for
        a match that ended that long ago: at most
        :data:`BATCHES_AT_ONCE` full batches of :data:`BATCH` rows (by default), then it stops
        and says more may be left (a batch not full ends its kind of rows)."""
        before_us = to_us(self._clock() - KEPT_FOR)
        deleted = 0
        full = 0
        for sweep in (
            pruning.delivered_boards,
            pruning.closed_challenges,
            pruning.accepted_challenges,
        ):
            while True:
                if full == self._batches:
                    return Swept(deleted, more_left=True)
                async with self._database.transaction() as db:
                    batch = await sweep(db, before_us, self._batch, self._shards)
                deleted += batch
                if batch < self._batch:
                    break
                full += 1
        return Swept(deleted, more_left=False)
