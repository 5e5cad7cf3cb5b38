-- Schema version 21 (PostgreSQL): provisional ratings ranked after established ones. As
-- ../0021_provisional_last.sql.
DROP INDEX ratings_leaderboard;
CREATE INDEX ratings_standing ON ratings (
    guild_id, ruleset, (CASE WHEN deviation > 110.0 THEN 1 ELSE 0 END), rating DESC, user_id
);
