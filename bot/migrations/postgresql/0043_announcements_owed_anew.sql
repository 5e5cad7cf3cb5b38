-- Schema version 43 (PostgreSQL): how many times the board at a set's ply was owed anew after
-- the first, which its nonce carries. As ../0043_announcements_owed_anew.sql; a move's board is
-- owed by bot/storage/moves.py's statement here, which counts it.
ALTER TABLE announcements ADD COLUMN owed_anew INTEGER NOT NULL DEFAULT 0;
