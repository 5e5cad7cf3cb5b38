-- Schema version 40 (PostgreSQL): the challenge a match was accepted from, found by its
-- match_id through an index. As ../0040_challenges_by_match.sql.
CREATE INDEX challenges_by_match ON challenges (match_id) WHERE match_id IS NOT NULL;
