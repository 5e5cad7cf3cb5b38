-- Schema version 24 (PostgreSQL): when a challenge pinged the member it challenges. As
-- ../0024_challenge_opponent_pings.sql.
ALTER TABLE challenges ADD COLUMN opponent_pinged_us BIGINT;
CREATE INDEX challenges_opponent_pings
    ON challenges (guild_id, challenger_id, opponent_id, opponent_pinged_us)
    WHERE opponent_pinged_us IS NOT NULL;
