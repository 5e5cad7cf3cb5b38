-- Schema version 8: learning from the engine (issue 12). Stored analyses of finished sets,
-- players' puzzle attempts, and the daily puzzle: a server's setting, its timer and its posts.
-- Times are INTEGER microseconds since the Unix epoch (UTC), as everywhere.

-- An analysed set: one line per position, "best-move score depth" (engine.analysis
-- PositionScore's text form), from the start to after the last move. Asking again reads it.
CREATE TABLE analyses (
    game_id     INTEGER PRIMARY KEY REFERENCES games (game_id),
    nodes       INTEGER NOT NULL CHECK (nodes > 0),  -- the search budget per position
    scores      TEXT    NOT NULL,
    created_us  INTEGER NOT NULL
);

-- A player's attempt at one puzzle of the bank (puzzle ids are stable across regenerations).
-- line: the moves played so far, both sides, space separated; status open until solved or
-- failed. A player meets each puzzle once: the first attempt is the one that counts.
CREATE TABLE puzzle_attempts (
    attempt_id  INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    puzzle_id   TEXT    NOT NULL,
    line        TEXT    NOT NULL DEFAULT '',
    status      TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'solved', 'failed')),
    daily_day   TEXT,  -- YYYY-MM-DD when started from that day's daily post
    started_us  INTEGER NOT NULL,
    finished_us INTEGER,
    UNIQUE (user_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_by_user ON puzzle_attempts (user_id, finished_us);
CREATE INDEX puzzle_attempts_by_puzzle ON puzzle_attempts (guild_id, puzzle_id, status);

-- The daily puzzle of a server: where and at which UTC hour, and when the next post is due
-- (the timer: a row, so it survives restarts).
CREATE TABLE daily_puzzles (
    guild_id     INTEGER PRIMARY KEY,
    channel_id   INTEGER NOT NULL,
    hour         INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
    next_post_us INTEGER NOT NULL
);
CREATE INDEX daily_puzzles_due ON daily_puzzles (next_post_us);

-- One row per server and day, claimed before posting (the primary key makes a second claim of
-- the same day impossible); message_id is set once Discord has the post.
CREATE TABLE daily_posts (
    guild_id    INTEGER NOT NULL,
    day         TEXT    NOT NULL,  -- YYYY-MM-DD (UTC)
    puzzle_id   TEXT    NOT NULL,
    channel_id  INTEGER NOT NULL,
    claimed_us  INTEGER NOT NULL,
    message_id  INTEGER,
    PRIMARY KEY (guild_id, day)
) WITHOUT ROWID;
