-- Schema version 2: Glicko-2 ratings per server (the standings table the leaderboard reads)
-- and the history of every rating change, one row per player per rated game.

CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    volatility  REAL    NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    matches_won INTEGER NOT NULL DEFAULT 0,
    updated_us  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_leaderboard ON ratings (guild_id, rating DESC, user_id);

CREATE TABLE rating_history (
    history_id        INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    user_id           INTEGER NOT NULL REFERENCES players (user_id),
    game_id           INTEGER NOT NULL REFERENCES games (game_id),
    rating_before     REAL    NOT NULL,
    rating_after      REAL    NOT NULL,
    deviation_before  REAL    NOT NULL,
    deviation_after   REAL    NOT NULL,
    volatility_after  REAL    NOT NULL,
    changed_us        INTEGER NOT NULL,
    UNIQUE (game_id, user_id)
);

CREATE INDEX rating_history_by_player ON rating_history (guild_id, user_id, history_id);
