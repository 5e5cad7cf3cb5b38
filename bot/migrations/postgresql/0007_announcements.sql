-- Schema version 7 (PostgreSQL): an outbox of announcements, stored with every move by a
-- trigger. As ../0007_announcements.sql ("INSERT OR REPLACE" is an upsert here).

CREATE TABLE announcements (
    game_id      BIGINT  NOT NULL REFERENCES games (game_id),
    ply          INTEGER NOT NULL,  -- the set's ply the board shows (after the move)
    channel_id   BIGINT  NOT NULL,
    created_us   BIGINT  NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_try_us  BIGINT  NOT NULL,
    delivered_us BIGINT,
    message_id   BIGINT,
    PRIMARY KEY (game_id, ply)
);

CREATE INDEX announcements_due ON announcements (next_try_us) WHERE delivered_us IS NULL;

CREATE FUNCTION moves_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO announcements (game_id, ply, channel_id, created_us, next_try_us)
    SELECT NEW.game_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000
    FROM games WHERE game_id = NEW.game_id
    ON CONFLICT (game_id, ply) DO UPDATE SET
        channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0,
        next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL;
    RETURN NULL;
END;
$$;

CREATE TRIGGER moves_announce AFTER INSERT ON moves
    FOR EACH ROW EXECUTE FUNCTION moves_announce();
