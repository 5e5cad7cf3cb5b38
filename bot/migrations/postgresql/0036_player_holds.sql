-- Schema version 36 (PostgreSQL): the game channels held for their player to move, whom a
-- moderator shut out of them. As ../0036_player_holds.sql.
CREATE TABLE player_holds (
    channel_id BIGINT  PRIMARY KEY,
    set_id     BIGINT  NOT NULL REFERENCES sets (set_id),
    ply        INTEGER NOT NULL,
    guild_id   BIGINT  NOT NULL,
    player_id  BIGINT  NOT NULL,
    since_us   BIGINT  NOT NULL
);
