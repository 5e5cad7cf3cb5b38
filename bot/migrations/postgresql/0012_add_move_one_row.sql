-- Schema version 12 (PostgreSQL): add_move() returns at most one row, and the planner is told so.
-- A set-returning function is estimated at 1,000 rows unless declared otherwise, so the move's
-- statement (add_move(...) joined to its match) was planned as a hash join over a sequential
-- scan of every match: the cost of each move grew with the number of matches ever played. With
-- ROWS 1 the match is found through its primary key.
ALTER FUNCTION add_move(BIGINT, INTEGER, TEXT, TEXT, BIGINT, BIGINT) ROWS 1;
