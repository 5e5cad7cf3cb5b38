-- Schema version 46 (PostgreSQL): the sets in progress of each server, in the order /games
-- lists them. As ../0046_sets_in_progress_by_match.sql.
DROP INDEX sets_in_progress;
CREATE INDEX sets_in_progress ON sets (guild_id, match_id) WHERE status = 'active';
