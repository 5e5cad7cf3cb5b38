-- Schema version 30: how many moves were taken back in each set, kept on the set by the
-- takeback that steps it back (bot/storage/takebacks.py, in the same transaction), so that a
-- read of a set no longer counts its rows of undone_moves (every read paid for that count,
-- also the reads that never use it: benchmarks/set_reads.py). With the ply it names the set's
-- position as stored: a takeback and a new move back to the same ply are another position.
ALTER TABLE sets ADD COLUMN undone INTEGER NOT NULL DEFAULT 0 CHECK (undone >= 0);

UPDATE sets SET undone = (SELECT count(*) FROM undone_moves u WHERE u.set_id = sets.set_id)
WHERE set_id IN (SELECT set_id FROM undone_moves);
