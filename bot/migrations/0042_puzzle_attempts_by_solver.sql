-- Schema version 42: /puzzle leaderboard counts every finished attempt of a server by player
-- (GROUP BY user_id) at each page. In this index a server's attempts come player by player, so
-- the count reads them in that order, from the index alone, with no sort of the server's
-- attempts; the last 30 days filter on finished_us inside each player's entries.
CREATE INDEX puzzle_attempts_by_solver ON puzzle_attempts (guild_id, user_id, finished_us, status);
