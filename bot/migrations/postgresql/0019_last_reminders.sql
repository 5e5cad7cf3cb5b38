-- Schema version 19 (PostgreSQL): the move the last reminder was posted for. As
-- ../0019_last_reminders.sql (not indexed: a move's update of its set stays heap-only, see 0012).
ALTER TABLE sets ADD COLUMN last_reminded_ply INTEGER;
