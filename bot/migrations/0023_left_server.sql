-- Schema version 23: a set lost by a player who left the server says so (bot/flow/departures.py).
-- It is recorded as lost on time, as docs/rules.md §11 counts it; this flag lets /stats say
-- "left the server" instead of "out of time" for it.
ALTER TABLE sets ADD COLUMN left_server INTEGER NOT NULL DEFAULT 0;
