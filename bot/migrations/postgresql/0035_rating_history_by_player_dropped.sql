-- Schema version 35 (PostgreSQL): rating_history loses the index nothing reads any more. As
-- ../0035_rating_history_by_player_dropped.sql.
DROP INDEX rating_history_by_player;
