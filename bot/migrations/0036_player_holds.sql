-- Schema version 36: the game channels (or threads) held for their player to move, whom a
-- moderator shut out of them (bot/player_holds.py: hidden from them, or timed out), kept while
-- the hold lasts so that a restart takes it up again: its line is not posted again, and a
-- Discord error at the first check after the restart keeps the clock held rather than losing
-- the game on time. The row goes in the transaction that gives the hold's time back.
CREATE TABLE player_holds (
    channel_id INTEGER PRIMARY KEY,  -- the game's channel or thread
    set_id     INTEGER NOT NULL REFERENCES sets (set_id),
    ply        INTEGER NOT NULL,     -- the move held: the set's ply then
    guild_id   INTEGER NOT NULL,
    player_id  INTEGER NOT NULL,     -- the player to move, shut out
    since_us   INTEGER NOT NULL      -- their turn's start, from which the time is given back
);
