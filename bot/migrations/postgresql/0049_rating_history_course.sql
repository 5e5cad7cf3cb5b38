-- Schema version 49 (PostgreSQL, as SQLite's 0049): /stats draws a player's rating over their
-- last 100 rated sets in a ruleset (bot/storage/ratings.py ``course``); this index hands it
-- those rows, newest first.
CREATE INDEX rating_history_course ON rating_history (guild_id, ruleset, user_id, history_id);
