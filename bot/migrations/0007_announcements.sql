-- Schema version 7: an outbox of announcements. Every stored move also stores, in the same
-- statement (this trigger), that the board after it must be posted. The flow marks it
-- delivered once the board is out; a timer posts, with retries and backoff, whatever was not
-- (Discord down when the move landed, a restart in between), so a move that was stored is
-- always announced, and an announcement delivered is never posted again.

CREATE TABLE announcements (
    game_id      INTEGER NOT NULL REFERENCES games (game_id),
    ply          INTEGER NOT NULL,  -- the set's ply the board shows (after the move)
    channel_id   INTEGER NOT NULL,
    created_us   INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_try_us  INTEGER NOT NULL,
    delivered_us INTEGER,
    message_id   INTEGER,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE INDEX announcements_due ON announcements (next_try_us) WHERE delivered_us IS NULL;

-- The normal path has this long to post the board before the timer takes over.
CREATE TRIGGER moves_announce AFTER INSERT ON moves
BEGIN
    INSERT OR REPLACE INTO announcements (game_id, ply, channel_id, created_us, next_try_us)
    SELECT NEW.game_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000
    FROM games WHERE game_id = NEW.game_id;
END;
