-- Schema version 29: the time already given back to each move clock, challenge and takeback
-- request (bot/services/absence.py), as intervals of wall time, so that holds and restarts
-- that overlap give each one the overlap once. A set's intervals are those of its current
-- clock (``ply``); the intervals of clocks, challenges and requests no longer running are
-- forgotten (bot/services/absence.py), so the table holds those of the deadlines still running.
CREATE TABLE given_back (
    kind      TEXT    NOT NULL CHECK (kind IN ('set', 'challenge', 'takeback')),
    target_id INTEGER NOT NULL,  -- the set's, challenge's or takeback request's id
    ply       INTEGER NOT NULL,  -- a set's clock: the ply it runs for; 0 for the others
    start_us  INTEGER NOT NULL,
    end_us    INTEGER NOT NULL,  -- intervals of one clock never overlap nor touch
    PRIMARY KEY (kind, target_id, ply, start_us)
) WITHOUT ROWID;
