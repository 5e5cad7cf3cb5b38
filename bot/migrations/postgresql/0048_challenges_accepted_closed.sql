-- Schema version 48 (PostgreSQL, as SQLite's 0048): accepted challenges with closed_us NULL
-- (accepted before this release, which notes the time) get their match's start, which the
-- acceptance stored in the same transaction (their creation if the match is gone). The hourly
-- sweep (bot/storage/pruning.py) deletes an accepted challenge a week after its match ended.
UPDATE challenges SET closed_us = COALESCE(
    (SELECT started_us FROM matches WHERE matches.match_id = challenges.match_id), created_us)
WHERE closed_us IS NULL AND status = 'accepted';
