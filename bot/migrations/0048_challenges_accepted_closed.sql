-- Schema version 48: an accepted challenge notes when it was accepted (closed_us), as a declined,
-- withdrawn or expired one notes when it closed, and the hourly sweep (bot/storage/pruning.py)
-- deletes it a week after its match ended (its readers are done by then). Those accepted
-- before this release have closed_us NULL: they get their match's start, which the acceptance
-- stored in the same transaction (their creation if the match is gone: never later than they
-- were accepted, never in the future).
UPDATE challenges SET closed_us = COALESCE(
    (SELECT started_us FROM matches WHERE matches.match_id = challenges.match_id), created_us)
WHERE closed_us IS NULL AND status = 'accepted';
