-- Schema version 11: nothing changes in SQLite. PostgreSQL gets add_move(), which stores a move
-- and reads its set back in one round trip (postgresql/0011_add_move.sql); SQLite runs in the
-- bot's own process, where the two statements cost no round trip to a server.
SELECT 1;
