-- Schema version 32: why a server's daily puzzle was switched off when no admin did it — the
-- bot was removed from the server, or the puzzle's channel was deleted — so that /settings and
-- /puzzle daily can say so once the bot is back (an admin's /puzzle daily forgets it).
CREATE TABLE daily_stops (
    guild_id   INTEGER PRIMARY KEY,
    reason     TEXT    NOT NULL CHECK (reason IN ('left_server', 'channel_deleted')),
    stopped_us INTEGER NOT NULL
);
