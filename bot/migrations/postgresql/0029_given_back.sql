-- Schema version 29 (PostgreSQL): the time already given back to each move clock, challenge
-- and takeback request. As ../0029_given_back.sql.
CREATE TABLE given_back (
    kind      TEXT    NOT NULL CHECK (kind IN ('set', 'challenge', 'takeback')),
    target_id BIGINT  NOT NULL,
    ply       INTEGER NOT NULL,
    start_us  BIGINT  NOT NULL,
    end_us    BIGINT  NOT NULL,
    PRIMARY KEY (kind, target_id, ply, start_us)
);
