-- Schema version 35: rating_history loses the index rating_history_by_player (server, player,
-- order), which only the player's history read used, and that read is gone. The one query
-- left on the table, a set's rating changes (bot/storage/ratings.py ``changes_of_set``),
-- searches by set through the index of its UNIQUE (set_id, user_id), so every rated set's
-- two rows no longer write an index nothing reads.
DROP INDEX rating_history_by_player;
