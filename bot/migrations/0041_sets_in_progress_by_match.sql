-- Schema version 41: the sets in progress of each server, in the order /games lists them (by
-- match: a match's second set keeps the first's place). Schema 31's index was in the order of
-- the sets, so every page read all of the server's games in progress and sorted them.
DROP INDEX sets_in_progress;
CREATE INDEX sets_in_progress ON sets (guild_id, match_id) WHERE status = 'active';
