-- Schema version 26 (PostgreSQL): what the posts of a set's end need beside its outcome (who
-- aborted it; a next set not played). As ../0026_set_end_notes.sql.
ALTER TABLE sets ADD COLUMN aborted_by BIGINT;
ALTER TABLE sets ADD COLUMN walkover INTEGER NOT NULL DEFAULT 0;
UPDATE sets SET walkover = 1
    WHERE left_server = 1 AND ply = 0 AND finished_us IS NOT NULL AND finished_us < reminder_us;
