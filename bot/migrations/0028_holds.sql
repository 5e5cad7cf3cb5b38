-- Schema version 28: the places nobody can play in, held so that their deadlines stand still
-- (bot/holds.py): a server in an outage, a game's thread locked and archived by a moderator,
-- a shard whose gateway connection dropped. Kept across a restart, so that a thread still
-- locked is held from the start (not found again only at its game's deadline) and the time
-- before the restart is given back with the rest when the hold ends.
CREATE TABLE holds (
    kind        TEXT    NOT NULL CHECK (kind IN ('server', 'thread', 'shard')),
    place_id    INTEGER NOT NULL,  -- the server's, the thread's or the shard's id
    guild_id    INTEGER,           -- the server (of the thread); NULL for a shard
    shard_count INTEGER,           -- a shard's: how many shards it was one of; else NULL
    since_us    INTEGER NOT NULL,
    PRIMARY KEY (kind, place_id)
) WITHOUT ROWID;
