-- Schema version 12: nothing changes in SQLite, whose moves triggers still advance the set and
-- owe its board. PostgreSQL stores a move with one statement instead of its triggers and
-- add_move() (postgresql/0012_moves_in_one_statement.sql); SQLite runs in the bot's own
-- process, where a trigger costs no round trip to a server.
SELECT 1;
