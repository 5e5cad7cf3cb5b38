-- Schema version 1: players, server settings, challenges, matches, games and their moves.
-- Times are INTEGER microseconds since the Unix epoch (UTC); durations INTEGER microseconds.
-- The move list is the truth; games.ply is the number of moves stored for the game.

CREATE TABLE players (
    user_id      INTEGER PRIMARY KEY,
    display_name TEXT    NOT NULL,
    seen_us      INTEGER NOT NULL
);

CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    default_ruleset  TEXT    NOT NULL DEFAULT 'brandubh',
    time_per_move_us INTEGER NOT NULL DEFAULT 86400000000 CHECK (time_per_move_us > 0)
);

CREATE TABLE allowed_channels (
    guild_id   INTEGER NOT NULL REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
) WITHOUT ROWID;

CREATE TABLE matches (
    match_id         INTEGER PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    player1_id       INTEGER NOT NULL REFERENCES players (user_id),  -- challenger or human
    player2_id       INTEGER NOT NULL REFERENCES players (user_id),  -- opponent or computer
    player1_side     TEXT    NOT NULL CHECK (player1_side IN ('attackers', 'defenders')),
    ruleset          TEXT    NOT NULL,
    sets_total       INTEGER NOT NULL CHECK (sets_total IN (1, 2)),
    time_per_move_us INTEGER NOT NULL CHECK (time_per_move_us > 0),
    computer_id      INTEGER,
    computer_level   INTEGER CHECK (computer_level BETWEEN 1 AND 5),
    rated            INTEGER NOT NULL CHECK (rated IN (0, 1)),
    status           TEXT    NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'finished', 'aborted')),
    winner_id        INTEGER,
    result_reason    TEXT,
    started_us       INTEGER NOT NULL,
    finished_us      INTEGER,
    CHECK (player1_id <> player2_id)
);

CREATE TABLE games (
    game_id      INTEGER PRIMARY KEY,
    match_id     INTEGER NOT NULL REFERENCES matches (match_id),
    set_number   INTEGER NOT NULL CHECK (set_number IN (1, 2)),
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    ruleset      TEXT    NOT NULL,
    attacker_id  INTEGER NOT NULL REFERENCES players (user_id),
    defender_id  INTEGER NOT NULL REFERENCES players (user_id),
    status       TEXT    NOT NULL DEFAULT 'active'
                 CHECK (status IN ('active', 'finished', 'aborted')),
    ply          INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    to_move_id   INTEGER NOT NULL,
    winner_side  TEXT    CHECK (winner_side IN ('attackers', 'defenders')),
    winner_id    INTEGER,
    reason       TEXT,
    started_us   INTEGER NOT NULL,
    finished_us  INTEGER,
    deadline_us  INTEGER NOT NULL,
    reminder_us  INTEGER NOT NULL,
    reminded     INTEGER NOT NULL DEFAULT 0 CHECK (reminded IN (0, 1)),
    UNIQUE (match_id, set_number),
    CHECK (attacker_id <> defender_id)
);

-- One game in progress per channel, enforced by the database.
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_deadline ON games (deadline_us) WHERE status = 'active';
CREATE INDEX games_reminder ON games (reminder_us) WHERE status = 'active' AND reminded = 0;
CREATE INDEX games_by_channel ON games (channel_id, game_id);
CREATE INDEX games_by_attacker ON games (guild_id, attacker_id, game_id);
CREATE INDEX games_by_defender ON games (guild_id, defender_id, game_id);

CREATE TABLE moves (
    game_id   INTEGER NOT NULL REFERENCES games (game_id),
    ply       INTEGER NOT NULL CHECK (ply >= 0),
    notation  TEXT    NOT NULL,  -- d1-d3, without captures
    captures  TEXT    NOT NULL DEFAULT '',  -- captured squares, e.g. c4/e4
    player_id INTEGER NOT NULL,
    played_us INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE challenges (
    challenge_id     INTEGER PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    challenger_id    INTEGER NOT NULL REFERENCES players (user_id),
    opponent_id      INTEGER NOT NULL REFERENCES players (user_id),
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
    CHECK (challenger_id <> opponent_id)
);

CREATE INDEX challenges_open ON challenges (expires_us) WHERE status = 'open';
