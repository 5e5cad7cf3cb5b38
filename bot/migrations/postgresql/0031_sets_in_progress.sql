-- Schema version 31 (PostgreSQL): the sets in progress of each server, for /games. As
-- ../0031_sets_in_progress.sql.
CREATE INDEX sets_in_progress ON sets (guild_id, set_id) WHERE status = 'active';
