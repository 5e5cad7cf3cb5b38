-- Schema version 47: each account's username (Discord's unique name) beside its display name,
-- so that two members shown alike in a list ("alex" twice) are told apart by it ("alex
-- (@alex_w)"). Rows stored before have none (NULL) until the member next uses the bot, and
-- show as before.
ALTER TABLE players ADD COLUMN username TEXT;
