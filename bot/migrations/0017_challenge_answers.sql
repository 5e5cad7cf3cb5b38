-- Schema version 17: when a challenge was closed (declined, withdrawn, accepted, expired), so
-- a member who declined is not challenged again by the same member at once (and pinged again).
ALTER TABLE challenges ADD COLUMN closed_us INTEGER;
CREATE INDEX challenges_declined ON challenges (guild_id, challenger_id, opponent_id)
    WHERE status = 'declined';
