-- Schema version 15: the role a server's challenges open to anyone ping (/settings
-- open_challenge_role:), NULL for none.
ALTER TABLE guild_settings ADD COLUMN open_challenge_role_id INTEGER;
