-- Schema version 25: whose analysis is under way, one per member, claimed here so that the
-- one-at-a-time rule holds across every bot process (shards in several processes each kept
-- their own). asking: how many of the member's /analyse of that set wait for it (the same set
-- asked twice shares one analysis); the row goes with the last. A claim older than an
-- analysis can last (a process that died with it) no longer counts.
CREATE TABLE analysis_claims (
    user_id    INTEGER PRIMARY KEY,
    set_id     INTEGER NOT NULL,
    asking     INTEGER NOT NULL CHECK (asking > 0),
    claimed_us INTEGER NOT NULL
) WITHOUT ROWID;
