-- Schema version 37 (PostgreSQL): the match lines whose edit to show the match's result Discord
-- did not take at the match's end. As ../0037_match_lines_owed.sql.
CREATE TABLE match_lines_owed (
    set_id      BIGINT  PRIMARY KEY REFERENCES sets (set_id),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_try_us BIGINT  NOT NULL
);
