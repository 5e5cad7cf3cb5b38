-- Schema version 13 (PostgreSQL): when each process's timers last ran. As
-- ../0013_timer_checks.sql (a restart gives the time the process was away back to its clocks).
CREATE TABLE timer_checks (
    shards     TEXT   NOT NULL PRIMARY KEY,  -- the shards the process runs: 'every' or '0-1 of 4'
    checked_us BIGINT NOT NULL
);
