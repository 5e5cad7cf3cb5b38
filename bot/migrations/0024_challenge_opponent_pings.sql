-- Schema version 24: when a challenge pinged the member it challenges, so that one member's
-- challenges to another ping them at most once in 15 minutes, across restarts too
-- (challenging, withdrawing and challenging again pinged them each time).
ALTER TABLE challenges ADD COLUMN opponent_pinged_us INTEGER;
CREATE INDEX challenges_opponent_pings
    ON challenges (guild_id, challenger_id, opponent_id, opponent_pinged_us)
    WHERE opponent_pinged_us IS NOT NULL;
