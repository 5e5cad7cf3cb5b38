-- Schema version 12: nothing changes in SQLite, whose moves triggers still advance the set and
-- owe its board. PostgreSQL stores a move with one statement instead of its triggers and
-- add_move(), and drops the timers' indexes so that a move updates the set's row in place
-- (postgresql/0012_moves_in_one_statement.sql); SQLite runs in the bot's own process, where a
-- trigger costs no round trip, and has no in-place updates to gain.
SELECT 1;
