-- Schema version 6 (PostgreSQL): one Glicko-2 pool per ruleset per server, and unrated
-- "no move" sets. As ../0006_ratings_per_ruleset.sql (the services rebuild the pools once).

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));

UPDATE games SET rated = 0
WHERE status = 'finished' AND reason IN ('timeout', 'resigned') AND winner_id IS NOT NULL
  AND ((winner_side = 'defenders' AND ply = 0) OR (winner_side = 'attackers' AND ply <= 1));

DROP TABLE ratings;

CREATE TABLE ratings (
    guild_id    BIGINT           NOT NULL,
    ruleset     TEXT             NOT NULL,
    user_id     BIGINT           NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    matches_won INTEGER NOT NULL DEFAULT 0,
    updated_us  BIGINT  NOT NULL,
    PRIMARY KEY (guild_id, ruleset, user_id)
);

CREATE INDEX ratings_leaderboard ON ratings (guild_id, ruleset, rating DESC, user_id);

ALTER TABLE rating_history ADD COLUMN ruleset TEXT NOT NULL DEFAULT '';

CREATE TABLE rating_rebuild (
    pending INTEGER PRIMARY KEY CHECK (pending = 1)
);
INSERT INTO rating_rebuild (pending) VALUES (1);
