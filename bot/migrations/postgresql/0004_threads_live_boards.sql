-- Schema version 4 (PostgreSQL): server play; a match may be played in a thread of its own,
-- and only the newest board of a game channel carries buttons. As ../0004_threads_live_boards.sql.

ALTER TABLE guild_settings ADD COLUMN threads INTEGER NOT NULL DEFAULT 1 CHECK (threads IN (0, 1));

ALTER TABLE matches ADD COLUMN parent_channel_id BIGINT;
ALTER TABLE matches ADD COLUMN line_message_id BIGINT;
ALTER TABLE matches ADD COLUMN archive_due_us BIGINT;
CREATE INDEX matches_archive_due ON matches (archive_due_us) WHERE archive_due_us IS NOT NULL;

CREATE TABLE live_boards (
    channel_id BIGINT PRIMARY KEY,
    message_id BIGINT NOT NULL
);

CREATE INDEX challenges_open_by_challenger ON challenges (challenger_id) WHERE status = 'open';
