-- Schema version 34 (PostgreSQL): the move whose clock a player's hold last gave back, per set.
-- As ../0034_player_holds_given.sql.
CREATE TABLE player_holds_given (
    set_id   BIGINT  PRIMARY KEY REFERENCES sets (set_id),
    ply      INTEGER NOT NULL,
    since_us BIGINT  NOT NULL
);
