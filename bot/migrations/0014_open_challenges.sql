-- Schema version 14: open challenges. A challenge may name no opponent (opponent_id NULL):
-- anyone in the channel but the challenger may accept it, and whoever does becomes its
-- opponent. SQLite cannot drop NOT NULL from a column, so the table is built again (nothing
-- refers to it) with its rows and indexes.
CREATE TABLE challenges_v14 (
    challenge_id     INTEGER PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    challenger_id    INTEGER NOT NULL REFERENCES players (user_id),
    opponent_id      INTEGER REFERENCES players (user_id),  -- NULL: open to anyone
    ruleset          TEXT    NOT NULL,
    sets_total       INTEGER NOT NULL CHECK (sets_total IN (1, 2)),
    challenger_side  TEXT    NOT NULL CHECK (challenger_side IN ('attackers', 'defenders')),
    time_per_move_us INTEGER NOT NULL CHECK (time_per_move_us > 0),
    created_us       INTEGER NOT NULL,
    expires_us       INTEGER NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'open'
                     CHECK (status IN ('open', 'accepted', 'declined', 'withdrawn', 'expired')),
    message_id       INTEGER,
    match_id         INTEGER REFERENCES matches (match_id),
    CHECK (challenger_id <> opponent_id),
    CHECK (opponent_id IS NOT NULL OR status IN ('open', 'withdrawn', 'expired'))
);

INSERT INTO challenges_v14 (challenge_id, guild_id, channel_id, challenger_id, opponent_id,
    ruleset, sets_total, challenger_side, time_per_move_us, created_us, expires_us, status,
    message_id, match_id)
SELECT challenge_id, guild_id, channel_id, challenger_id, opponent_id, ruleset, sets_total,
    challenger_side, time_per_move_us, created_us, expires_us, status, message_id, match_id
FROM challenges;

DROP TABLE challenges;
ALTER TABLE challenges_v14 RENAME TO challenges;

CREATE INDEX challenges_open ON challenges (expires_us) WHERE status = 'open';
CREATE INDEX challenges_open_by_challenger ON challenges (challenger_id) WHERE status = 'open';
