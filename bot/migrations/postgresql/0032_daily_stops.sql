-- Schema version 32 (PostgreSQL): why a server's daily puzzle was switched off when no admin
-- did it. As ../0032_daily_stops.sql.
CREATE TABLE daily_stops (
    guild_id   BIGINT  PRIMARY KEY,
    reason     TEXT    NOT NULL CHECK (reason IN ('left_server', 'channel_deleted')),
    stopped_us BIGINT  NOT NULL
);
