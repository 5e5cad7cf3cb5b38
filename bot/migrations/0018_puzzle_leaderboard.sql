-- Schema version 18: /puzzle leaderboard counts each player's finished attempts in one server,
-- for all time or since a moment (WHERE guild_id = ? AND finished_us >= ? GROUP BY user_id).
-- The index holds every column that query reads, so it is answered from the index alone; an
-- open attempt (no finished_us yet) is never in the range.
CREATE INDEX puzzle_attempts_by_guild ON puzzle_attempts (guild_id, finished_us, user_id, status);
