-- Schema version 22: when a challenge open to anyone pinged the server's role, so that one
-- member's open challenges ping it at most once in 15 minutes, across restarts too (posting,
-- withdrawing and posting again pinged the role each time).
ALTER TABLE challenges ADD COLUMN role_pinged_us INTEGER;
CREATE INDEX challenges_role_pings ON challenges (guild_id, challenger_id, role_pinged_us)
    WHERE role_pinged_us IS NOT NULL;
