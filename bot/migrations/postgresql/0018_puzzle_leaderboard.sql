-- Schema version 18 (PostgreSQL): finished puzzle attempts by server and time, for
-- /puzzle leaderboard. As ../0018_puzzle_leaderboard.sql.
CREATE INDEX puzzle_attempts_by_guild ON puzzle_attempts (guild_id, finished_us, user_id, status);
