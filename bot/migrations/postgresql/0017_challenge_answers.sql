-- Schema version 17 (PostgreSQL): when a challenge was closed. As ../0017_challenge_answers.sql.
ALTER TABLE challenges ADD COLUMN closed_us BIGINT;
CREATE INDEX challenges_declined ON challenges (guild_id, challenger_id, opponent_id)
    WHERE status = 'declined';
