"""SQL for stored analyses of finished sets, and for finding the set to analyse."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.connection import Connection


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
