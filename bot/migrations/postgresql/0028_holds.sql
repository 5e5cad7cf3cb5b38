-- Schema version 28 (PostgreSQL): the places nobody can play in, held so that their deadlines
-- stand still. As ../0028_holds.sql.
CREATE TABLE holds (
    kind        TEXT    NOT NULL CHECK (kind IN ('server', 'thread', 'shard')),
    place_id    BIGINT  NOT NULL,
    guild_id    BIGINT,
    shard_count INTEGER,
    since_us    BIGINT  NOT NULL,
    PRIMARY KEY (kind, place_id)
);
