-- Schema version 47 (PostgreSQL): each account's username beside its display name. As
-- ../0047_usernames.sql.
ALTER TABLE players ADD COLUMN username TEXT;
