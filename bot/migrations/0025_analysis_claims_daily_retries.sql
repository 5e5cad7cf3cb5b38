-- Schema version 25: two things kept by each process's memory move to the database.
--
-- Whose analysis is under way, one per member, claimed here so that the one-at-a-time rule
-- holds across every bot process (shards in several processes each kept their own). asking:
-- how many of the member's /analyse of that set wait for it (the same set asked twice shares
-- one analysis); the row goes with the last. A claim older than an analysis can last (a
-- process that died with it) no longer counts.
CREATE TABLE analysis_claims (
    user_id    INTEGER PRIMARY KEY,
    set_id     INTEGER NOT NULL,
    asking     INTEGER NOT NULL CHECK (asking > 0),
    claimed_us INTEGER NOT NULL
) WITHOUT ROWID;

-- When a daily post Discord refused is tried next, and how often it was refused (the pause
-- doubles with each): a restart no longer tries every refused post at once. NULL: at once.
ALTER TABLE daily_posts ADD COLUMN refusals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_posts ADD COLUMN next_try_us INTEGER;
