"""SQL for forgetting rows nobody reads again once their game or challenge is long over: the
boards delivered for sets that ended, challenges declined, withdrawn or expired, and those
accepted whose match ended. Each call deletes one batch (a move or a challenge waits for one
batch at most)."""

from __future__ import annotations

from bot.shards import Shards
from bot.storage.connection import Connection


async def delivered_boards(db: Connection, ended_before_us: int, limit: int, shards: Shards) -> int:
    """Delete up to ``limit`` delivered boards (outbox rows) of the sets of ``shards``' servers
    that ended before ``ended_before_us``; how many were deleted. A board still owed is kept,
    and so are the boards out of its set while it is owed: posted late (Discord refusing for a
    week), it replies to the board before it and takes "I am thinking…" off that one's line.

    The rows are walked in their key's order (by set): once the old ones are gone, what stands
    before the first old one left is the sets in progress and those ended since, so a sweep
    reads about as many rows as it keeps, not the whole history."""
    return await db.execute(
        "DELETE FROM announcements WHERE (set_id, ply) IN ("
        "SELECT a.set_id, a.ply FROM announcements a JOIN sets g ON g.set_id = a.set_id "
        "WHERE a.delivered_us IS NOT NULL AND g.status <> 'active' AND g.finished_us < ? "
        "AND NOT EXISTS (SELECT 1 FROM announcements owed "
        "WHERE owed.set_id = a.set_id AND owed.delivered_us IS NULL) "
        f"AND {shards.where('g.guild_id')} ORDER BY a.set_id, a.ply LIMIT ?)",
        (ended_before_us, limit),
    )


async def closed_challenges(
    db: Connection, closed_before_us: int, limit: int, shards: Shards
) -> int:
    """Delete up to ``limit`` challenges of ``shards``' servers declined, withdrawn or expired
    before ``closed_before_us`` (an accepted one goes with its match: :func:`accepted_challenges`);
    how many were deleted. Read through the index of schema 45 (``challenges_closed``).

    The newest challenge is kept whatever it is: SQLite numbers a new row one past the highest
    left (no ``AUTOINCREMENT``), so deleting it would give its id, and the buttons of its post
    (``challenge:accept:<id>``), to the next challenge."""
    return await db.execute(
        "DELETE FROM challenges WHERE challenge_id IN ("
        "SELECT challenge_id FROM challenges "
        "WHERE status IN ('declined', 'withdrawn', 'expired') AND closed_us < ? "
        "AND challenge_id < (SELECT MAX(challenge_id) FROM challenges) "
        f"AND {shards.where('guild_id')} ORDER BY closed_us LIMIT ?)",
        (closed_before_us, limit),
    )


async def accepted_challenges(
    db: Connection, ended_before_us: int, limit: int, shards: Shards
) -> int:
    """Delete up to ``limit`` accepted challenges of ``shards``' servers whose match ended
    before ``ended_before_us``; how many were deleted. Their readers are done by then: the
    late first board of their match (:mod:`bot.flow.accepted_challenges`), so one still owed
    in any set of the match keeps its challenge; a second press of Accept (a double click);
    the pause between pings of the same opponent (15 minutes, and only challenges made
    after the ping count). The newest challenge is kept, as :func:`closed_challenges` says.

    On SQLite it is walked by match through the index of schema 40 (``challenges_by_match``):
    once the old ones are gone, what stands before the first old one left is the matches still
    played. PostgreSQL's planner picks its own way and may read every match. The matches owed
    a board are read once a batch, through the owed boards' index (``announcements_due``:
    sets have no index by match but the one of those in progress)."""
    return await db.execute(
        "DELETE FROM challenges WHERE challenge_id IN ("
        "SELECT c.challenge_id FROM challenges c JOIN matches m ON m.match_id = c.match_id "
        "WHERE c.match_id IS NOT NULL AND c.status = 'accepted' "
        "AND m.status <> 'active' AND m.finished_us < ? "
        "AND c.match_id NOT IN (SELECT s.match_id FROM announcements owed "
        "JOIN sets s ON s.set_id = owed.set_id WHERE owed.delivered_us IS NULL) "
        "AND c.challenge_id < (SELECT MAX(challenge_id) FROM challenges) "
        f"AND {shards.where('c.guild_id')} ORDER BY c.match_id LIMIT ?)",
        (ended_before_us, limit),
    )
