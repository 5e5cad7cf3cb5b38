-- Schema version 15 (PostgreSQL): the role open challenges ping. As
-- ../0015_open_challenge_role.sql.
ALTER TABLE guild_settings ADD COLUMN open_challenge_role_id BIGINT;
