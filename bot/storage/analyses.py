"""SQL for stored analyses of finished sets, and for finding the set to analyse."""

from __future__ import annotations

from dataclasses import dataclass

from bot.shards import Shards, from_key
from bot.storage.connection import Connection, Dialect


@dataclass(frozen=True)
class AnalysisRow:
    """A stored analysis: the search budget it was made with and one line per position."""

    set_id: int
    nodes: int
    scores: tuple[str, ...]
    created_us: int


async def load(db: Connection, set_id: int) -> AnalysisRow | None:
    """The stored analysis of ``set_id``, if any."""
    row = await db.fetch_one(
        "SELECT nodes, scores, created_us FROM analyses WHERE set_id = ?", (set_id,)
    )
    if row is None:
        return None
    return AnalysisRow(set_id, int(row[0]), tuple(str(row[1]).split("\n")), int(row[2]))


async def save(db: Connection, row: AnalysisRow) -> None:
    """Store ``row`` (replacing an analysis of the same set made with another budget)."""
    await db.execute(
        "INSERT INTO analyses (set_id, nodes, scores, created_us) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (set_id) DO UPDATE SET nodes = excluded.nodes, scores = excluded.scores, "
        "created_us = excluded.created_us",
        (row.set_id, row.nodes, "\n".join(row.scores), row.created_us),
    )


async def latest_finished_in_channel(db: Connection, channel_id: int) -> int | None:
    """The id of the newest finished (or aborted) set played in ``channel_id``, or, if newer,
    of the newest finished match of a thread the bot started there."""
    here = await db.fetch_one(
        "SELECT set_id FROM sets WHERE channel_id = ? AND status <> 'active' "
        "ORDER BY set_id DESC LIMIT 1",
        (channel_id,),
    )
    threads = await db.fetch_one(
        "SELECT g.set_id FROM sets g JOIN matches m USING (match_id) "
        "WHERE m.parent_channel_id = ? AND g.channel_id <> ? AND m.status <> 'active' "
        "ORDER BY g.set_id DESC LIMIT 1",
        (channel_id, channel_id),
    )
    found = [int(row[0]) for row in (here, threads) if row is not None]
    return max(found, default=None)


async def match_in_progress(db: Connection, set_id: int) -> int | None:
    """The set number of a set still being played in the match of ``set_id``, if any."""
    row = await db.fetch_one(
        "SELECT other.set_number FROM sets AS this JOIN sets AS other "
        "ON other.match_id = this.match_id WHERE this.set_id = ? AND other.status = 'active'",
        (set_id,),
    )
    return None if row is None else int(row[0])


async def claim(
    db: Connection, user_id: int, set_id: int, now_us: int, live_since_us: int, owner: str
) -> int:
    """Claim the analysis of ``set_id`` for ``user_id`` in the process ``owner`` (one more
    request of theirs waiting for it, if it is theirs already: the claim is then dated
    ``now_us`` and owned by ``owner``) and return ``set_id``; or, if another set's claim of
    theirs made (or last joined) after ``live_since_us`` holds, claim nothing and return that
    set. An older claim (its process died) is replaced."""
    row = await db.fetch_one(
        "SELECT set_id, claimed_us FROM analysis_claims WHERE user_id = ?", (user_id,)
    )
    if row is not None and int(row[1]) > live_since_us:
        if int(row[0]) != set_id:
            return int(row[0])
        # Its lifetime runs from this request: another process's analysis of it starts now,
        # and ends last.
        await db.execute(
            "UPDATE analysis_claims SET asking = asking + 1, claimed_us = ?, owner = ? "
            "WHERE user_id = ?",
            (now_us, owner, user_id),
        )
        return set_id
    await db.execute(
        "INSERT INTO analysis_claims (user_id, set_id, asking, claimed_us, owner) "
        "VALUES (?, ?, 1, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET set_id = excluded.set_id, asking = 1, "
        "claimed_us = excluded.claimed_us, owner = excluded.owner",
        (user_id, set_id, now_us, owner),
    )
    return set_id


async def release(db: Connection, user_id: int, set_id: int) -> None:
    """One request of ``user_id`` for the analysis of ``set_id`` is answered (or failed): the
    claim goes with the last. Nothing if their claim is now of another set."""
    await db.execute(
        "DELETE FROM analysis_claims WHERE user_id = ? AND set_id = ? AND asking = 1",
        (user_id, set_id),
    )
    await db.execute(
        "UPDATE analysis_claims SET asking = asking - 1 WHERE user_id = ? AND set_id = ? "
        "AND asking > 1",
        (user_id, set_id),
    )


async def drop_dead_claims(db: Connection, shards: Shards) -> int:
    """At the start-up of the process running ``shards``: drop the claims its earlier run left
    (it died with them: a clean stop releases each), and those of processes of another layout
    of the shards (another count: none runs beside this one, bot/storage/shard_claim.py), and
    return how many. On SQLite every claim: one process owns the file
    (bot/storage/process_lock.py), so none can be of a live one."""
    if db.dialect is Dialect.SQLITE:
        return await db.execute("DELETE FROM analysis_claims")
    dropped = 0
    for (owner,) in await db.fetch_all("SELECT DISTINCT owner FROM analysis_claims"):
        if owner == shards.key or from_key(str(owner)).layout != shards.layout:
            dropped += await db.execute("DELETE FROM analysis_claims WHERE owner = ?", (owner,))
    return dropped
