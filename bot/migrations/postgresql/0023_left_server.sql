-- Schema version 23 (PostgreSQL): a set lost by a player who left the server says so. As
-- ../0023_left_server.sql.
ALTER TABLE sets ADD COLUMN left_server INTEGER NOT NULL DEFAULT 0;
