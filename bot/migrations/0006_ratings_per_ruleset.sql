-- Schema version 6: one Glicko-2 pool per ruleset per server, and unrated "no move" sets.
-- Until now every ruleset shared one pool (an 11x11 game moved a Brandubh rating). Ratings are
-- now kept per (server, ruleset). A set lost on time or by resignation by a player who never
-- moved in it is recorded but unrated. The services rebuild every pool from the rated sets in
-- the order they finished, with the production rating code, on the first start at this schema
-- (rating_rebuild holds the request until that rebuild commits).

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));

-- Sets the loser never moved in, lost on time or by resignation: unrated from now on.
UPDATE games SET rated = 0
WHERE status = 'finished' AND reason IN ('timeout', 'resigned') AND winner_id IS NOT NULL
  AND ((winner_side = 'defenders' AND ply = 0) OR (winner_side = 'attackers' AND ply <= 1));

DROP TABLE ratings;

CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    ruleset     TEXT    NOT NULL,
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
    PRIMARY KEY (guild_id, ruleset, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_leaderboard ON ratings (guild_id, ruleset, rating DESC, user_id);

ALTER TABLE rating_history ADD COLUMN ruleset TEXT NOT NULL DEFAULT '';

CREATE TABLE rating_rebuild (
    pending INTEGER PRIMARY KEY CHECK (pending = 1)
);
INSERT INTO rating_rebuild (pending) VALUES (1);
