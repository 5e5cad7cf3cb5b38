-- Schema version 34: the move whose clock a player's hold (bot/player_holds.py: a moderator
-- shut its player out) last gave back, per set, so that a move is held so once. Kept apart from
-- given_back, whose intervals the holds of locked threads, outages and the bot's absence also
-- fill: a lock found at the deadline gives back the same stretch (from the turn's start) and
-- must not count as the player's hold. Written with the hold's give-back, in one transaction.
CREATE TABLE player_holds_given (
    set_id   INTEGER PRIMARY KEY REFERENCES sets (set_id),
    ply      INTEGER NOT NULL,  -- the ply its clock ran for
    since_us INTEGER NOT NULL   -- the turn's start, from which the hold gave its time back
);
