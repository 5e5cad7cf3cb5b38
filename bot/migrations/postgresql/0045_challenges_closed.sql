-- Schema version 45 (PostgreSQL, as SQLite's 0045): challenges declined, withdrawn or expired
-- are deleted a week after they closed (bot/storage/pruning.py; what reads them looks back 15
-- minutes). This index hands the hourly sweep the oldest of them without reading the accepted
-- ones, which are kept.
CREATE INDEX challenges_closed ON challenges (closed_us)
    WHERE status IN ('declined', 'withdrawn', 'expired');
