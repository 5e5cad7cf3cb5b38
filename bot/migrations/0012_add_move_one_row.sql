-- Schema version 12: nothing changes in SQLite. PostgreSQL's add_move() is declared to return
-- at most one row (postgresql/0012_add_move_one_row.sql), so a move's statement finds its match
-- through the primary key instead of scanning every match.
SELECT 1;
