-- Schema version 33: why a board is owed late, and the takeback answers still to be shown.
-- announcements.late_cause: why the last try to post the board failed, which its late post
-- tells ("posted late: a moderator had locked this thread."): 'locked', Discord refused it as
-- locked; 'refused', Discord refused it otherwise (a permission); NULL, Discord could not be
-- reached, or nothing failed (the bot stopped). A board owed anew starts without one (the moves
-- trigger replaces the row; bot/storage/announcements.py owed() sets it back).
ALTER TABLE announcements ADD COLUMN late_cause TEXT CHECK (late_cause IN ('locked', 'refused'));

-- A takeback request answered (or lapsed) whose message Discord refused to edit as locked: the
-- outbox edits it once it may (its Accept and Decline off, the answer shown), retrying with
-- pauses as for a board.
CREATE TABLE takeback_answers_owed (
    takeback_id INTEGER PRIMARY KEY REFERENCES takebacks (takeback_id),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_try_us INTEGER NOT NULL
);
