-- Schema version 46 (PostgreSQL, as SQLite's 0046): challenges declined, withdrawn or expired
-- with closed_us NULL (closed before schema 17, or withdrawn as their channel or server went,
-- which did not note the time) get the best close time the row tells, so that the hourly sweep
-- (bot/storage/pruning.py) deletes them a week on: an expired one its expiry; one declined or
-- withdrawn its creation. Accepted ones are kept anyway.
UPDATE challenges SET closed_us = CASE status WHEN 'expired' THEN expires_us ELSE created_us END
WHERE closed_us IS NULL AND status IN ('declined', 'withdrawn', 'expired');
