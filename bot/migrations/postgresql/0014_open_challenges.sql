-- Schema version 14 (PostgreSQL): open challenges. As ../0014_open_challenges.sql: a challenge
-- may name no opponent (NULL), and whoever accepts it becomes its opponent.
ALTER TABLE challenges ALTER COLUMN opponent_id DROP NOT NULL;
ALTER TABLE challenges ADD CONSTRAINT challenges_open_to_anyone
    CHECK (opponent_id IS NOT NULL OR status IN ('open', 'withdrawn', 'expired'));
