-- Schema version 41 (PostgreSQL): the sets in progress of each server, in the order /games
-- lists them. As ../0041_sets_in_progress_by_match.sql.
DROP INDEX sets_in_progress;
CREATE INDEX sets_in_progress ON sets (guild_id, match_id) WHERE status = 'active';
