-- Schema version 40: the challenge a match was accepted from is read by its match_id (when the
-- match's first board is posted late, after a restart: bot/flow/accepted_challenges.py), which
-- no index served, so each read scanned every challenge ever made. Only accepted challenges
-- name a match: the others stay out of the index.
CREATE INDEX challenges_by_match ON challenges (match_id) WHERE match_id IS NOT NULL;
