-- Schema version 49: /stats draws a player's rating over their last 100 rated sets in a ruleset
-- (bot/storage/ratings.py ``course``). This index hands it those rows, newest first, without
-- reading every rated set of the server (schema 35 dropped the one of server and player alone).
CREATE INDEX rating_history_course ON rating_history (guild_id, ruleset, user_id, history_id);
