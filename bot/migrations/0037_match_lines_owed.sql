-- Schema version 37: the match lines whose edit to show the match's result Discord did not take
-- at the match's end (an outage, a refusal): the timers make it once Discord does, retrying with
-- pauses as for a board. The line is the message in the parent channel that links the match's
-- thread; set_id is the match's last set, from whose stored end the line is written again. A line
-- a newer match took over since (a rematch against the computer, in the same thread) is dropped.
CREATE TABLE match_lines_owed (
    set_id      INTEGER PRIMARY KEY REFERENCES sets (set_id),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_try_us INTEGER NOT NULL
);
