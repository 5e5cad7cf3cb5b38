-- Schema version 22 (PostgreSQL): when a challenge open to anyone pinged the server's role.
-- As ../0022_open_challenge_role_pings.sql.
ALTER TABLE challenges ADD COLUMN role_pinged_us BIGINT;
CREATE INDEX challenges_role_pings ON challenges (guild_id, challenger_id, role_pinged_us)
    WHERE role_pinged_us IS NOT NULL;
