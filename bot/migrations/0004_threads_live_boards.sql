-- Schema version 4: server play. A match may be played in a thread of its own, started from the
-- challenge message; only the newest board of a game channel carries buttons.

-- Whether accepted challenges open a thread per game (1, the default) or play in the channel.
ALTER TABLE guild_settings ADD COLUMN threads INTEGER NOT NULL DEFAULT 1 CHECK (threads IN (0, 1));

-- For a match played in a thread: the channel the challenge was posted in, and the challenge
-- message there, edited into one line that links the thread (and later shows the result).
ALTER TABLE matches ADD COLUMN parent_channel_id INTEGER;
ALTER TABLE matches ADD COLUMN line_message_id INTEGER;
-- When the finished match's thread is to be archived (a grace period after the result).
ALTER TABLE matches ADD COLUMN archive_due_us INTEGER;
CREATE INDEX matches_archive_due ON matches (archive_due_us) WHERE archive_due_us IS NOT NULL;

-- The one board message per game channel that still carries the Move button.
CREATE TABLE live_boards (
    channel_id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL
) WITHOUT ROWID;

-- Counting a member's open challenges (at most 5 at once).
CREATE INDEX challenges_open_by_challenger ON challenges (challenger_id) WHERE status = 'open';
