-- Schema version 13: when each process's timers last ran, so that the move clocks of its games
-- stand still while it is down: at start-up the time it was away is given back to every clock
-- that was running (bot/storage/clocks.py).
CREATE TABLE timer_checks (
    shards     TEXT    NOT NULL PRIMARY KEY,  -- the shards the process runs: 'every' or '0-1 of 4'
    checked_us INTEGER NOT NULL
) WITHOUT ROWID;
