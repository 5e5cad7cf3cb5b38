-- Schema version 46: challenges declined, withdrawn or expired before schema 17 (which added
-- closed_us), and those withdrawn as their channel or server went (until this release, which
-- notes the time), have closed_us NULL, which the hourly sweep (bot/storage/pruning.py,
-- closed_us < ?) never matches: each stayed for good. They get the best close time the row
-- tells: an expired one its expiry; one declined or withdrawn its creation (it closed between
-- the two: never later than it did, never in the future). Accepted ones are kept anyway.
UPDATE challenges SET closed_us = CASE status WHEN 'expired' THEN expires_us ELSE created_us END
WHERE closed_us IS NULL AND status IN ('declined', 'withdrawn', 'expired');
