-- Schema version 12 (PostgreSQL): a move is stored by one statement without triggers, and the
-- set's row is updated in place.
--
-- bot/storage/moves.py's ADD_MOVE_POSTGRESQL now does in plain SQL what add_move() and the two
-- PL/pgSQL triggers on moves did: advance the set only while it is in progress at the move's
-- ply (pass the turn, re-arm the timers), store the move, owe its board to the outbox, and
-- return the set with its match's fields. add_move(), a set-returning function PostgreSQL
-- estimated at 1,000 rows, had also made the planner scan every match for each move. Nothing
-- else inserts moves (the copy tool switched these triggers off anyway).
DROP TRIGGER moves_advance_set ON moves;
DROP TRIGGER moves_announce ON moves;
DROP FUNCTION moves_advance_set();
DROP FUNCTION moves_announce();
DROP FUNCTION add_move(BIGINT, INTEGER, TEXT, TEXT, BIGINT, BIGINT);

-- Every move changes the set's ply, turn, deadline and reminder. With no index on any of them,
-- PostgreSQL updates the row on its own page (a heap-only update) instead of adding an entry
-- to each of the table's indexes; room is kept on each page for it. The timers, every few
-- seconds, find the sets in progress through sets_one_active_per_channel and check their
-- times there.
DROP INDEX sets_deadline;
DROP INDEX sets_reminder;
ALTER TABLE sets SET (fillfactor = 80);
