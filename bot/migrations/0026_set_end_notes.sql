-- Schema version 26: what the posts of a set's end need beside its outcome, so that a post made
-- late by the outbox reads as the live one.
-- aborted_by: who aborted a set (an admin's /abort), named as the live post names them. NULL
-- for a set not aborted, or aborted by the bot itself (its channel was deleted, it left).
ALTER TABLE sets ADD COLUMN aborted_by INTEGER;
-- walkover: a match's next set not played, lost before it began by a player who had left the
-- server (bot/flow/departures.py). A next set that began, and was lost at its first move by a
-- player who left since, is not one. Sets ended before this schema: a walkover ended at once,
-- before its first reminder, and one that began was ended at a reminder.
ALTER TABLE sets ADD COLUMN walkover INTEGER NOT NULL DEFAULT 0;
UPDATE sets SET walkover = 1
    WHERE left_server = 1 AND ply = 0 AND finished_us IS NOT NULL AND finished_us < reminder_us;
