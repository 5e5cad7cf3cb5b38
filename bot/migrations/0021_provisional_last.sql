-- Schema version 21: the leaderboard ranks established ratings first, then provisional ones
-- (deviation above 110, bot/ratings.py PROVISIONAL_DEVIATION), each by rating. The index keys
-- on the same expression as bot/storage/ratings.py's _provisional(), so a page is still read
-- in order from the index and a player's rank counted from it.
DROP INDEX ratings_leaderboard;
CREATE INDEX ratings_standing ON ratings (
    guild_id, ruleset, (CASE WHEN deviation > 110.0 THEN 1 ELSE 0 END), rating DESC, user_id
);
