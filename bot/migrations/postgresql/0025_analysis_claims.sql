-- Schema version 25 (PostgreSQL): whose analysis is under way, one per member. As
-- ../0025_analysis_claims.sql.
CREATE TABLE analysis_claims (
    user_id    BIGINT PRIMARY KEY,
    set_id     BIGINT NOT NULL,
    asking     INTEGER NOT NULL CHECK (asking > 0),
    claimed_us BIGINT NOT NULL
);
