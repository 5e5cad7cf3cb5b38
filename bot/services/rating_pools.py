"""Rebuilding the rating pools from the rated sets, after the pools were split per ruleset.

Schema 6 moved ratings from one pool per server to one per server and ruleset. The pools are
rebuilt once, at the first start on that schema, by replaying every rated set in the order the
sets finished through the same rating code that rates a set when it ends.
"""

from __future__ import annotations

from bot.services.sets import rate
from bot.storage import Database, history, ratings
from bot.storage.times import from_us


async def rebuild_if_pending(database: Database) -> int:
    """Rebuild every pool if schema 6's migration asked for it; return the sets replayed.

    One transaction: the pools are either all rebuilt or left as they were (and rebuilt at the
    next start).
    """
    async with database.transaction() as db:
        await db.lock("ratings:rebuild")  # processes starting together rebuild once
        if not await ratings.rebuild_pending(db):
            return 0
        await ratings.clear_for_rebuild(db)
        rated = await history.rated_sets(db)
        for row in rated:
            assert row.finished_us is not None
            await rate(db, row, row.winner_id, from_us(row.finished_us))
        for guild_id, ruleset, winner_id in await history.rated_match_wins(db):
            await ratings.add_match_win(db, guild_id, ruleset, winner_id)
        await ratings.rebuilt(db)
    return len(rated)
