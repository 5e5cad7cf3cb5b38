-- Schema version 19: the last reminder, a little before a move's time runs out (bot/timers.py).
-- The move it was posted for is noted, so that it is posted once per move, also across
-- restarts; a new move changes the set's ply, which makes it due again (no trigger needed), and
-- a takeback clears it (bot/storage/takebacks.py).
ALTER TABLE sets ADD COLUMN last_reminded_ply INTEGER;
