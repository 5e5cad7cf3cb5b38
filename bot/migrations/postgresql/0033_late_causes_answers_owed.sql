-- Schema version 33 (PostgreSQL): why a board is owed late, and the takeback answers still to be
-- shown. As ../0033_late_causes_answers_owed.sql.
ALTER TABLE announcements ADD COLUMN late_cause TEXT CHECK (late_cause IN ('locked', 'refused'));

CREATE TABLE takeback_answers_owed (
    takeback_id BIGINT  PRIMARY KEY REFERENCES takebacks (takeback_id),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_try_us BIGINT  NOT NULL
);
