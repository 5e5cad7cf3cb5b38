-- Schema version 31: the sets in progress of each server, in order, for /games (a page and the
-- count of all of them). Without it the count read every set the server ever played, through
-- the players' indexes: 17–20 ms a page on a server of 100,000 sets (benchmarks/set_reads.py).
CREATE INDEX sets_in_progress ON sets (guild_id, set_id) WHERE status = 'active';
