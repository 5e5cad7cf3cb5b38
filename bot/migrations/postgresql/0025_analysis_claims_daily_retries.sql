-- Schema version 25 (PostgreSQL): whose analysis is under way, one per member, and when a
-- refused daily post is tried next. As ../0025_analysis_claims_daily_retries.sql.
CREATE TABLE analysis_claims (
    user_id    BIGINT PRIMARY KEY,
    set_id     BIGINT NOT NULL,
    asking     INTEGER NOT NULL CHECK (asking > 0),
    claimed_us BIGINT NOT NULL
);

ALTER TABLE daily_posts ADD COLUMN refusals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_posts ADD COLUMN next_try_us BIGINT;
