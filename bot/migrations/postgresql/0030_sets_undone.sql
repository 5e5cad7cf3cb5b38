-- Schema version 30 (PostgreSQL): how many moves were taken back in each set, kept on the set
-- by the takeback that steps it back. As ../0030_sets_undone.sql.
ALTER TABLE sets ADD COLUMN undone INTEGER NOT NULL DEFAULT 0 CHECK (undone >= 0);

UPDATE sets SET undone = u.count
FROM (SELECT set_id, count(*) AS count FROM undone_moves GROUP BY set_id) AS u
WHERE u.set_id = sets.set_id;
