-- Schema version 26: who aborted a set (an admin's /abort), so that its end posted late by the
-- outbox names them as the live post does. NULL for a set not aborted, or aborted by the bot
-- itself (its channel was deleted, the bot left the server).
ALTER TABLE sets ADD COLUMN aborted_by INTEGER;
