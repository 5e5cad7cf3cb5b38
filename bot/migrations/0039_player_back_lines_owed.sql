-- Schema version 39: the public line a player's hold posts once it gives their time back ("…
-- can play again: …", or "…'s clock runs again, as a clock is held at most a day: …") is owed
-- from that give-back's transaction, which notes the move held (schema 34's
-- player_holds_given): line_owed says which ('back', 'held a day') until it is posted, so a
-- crash between the two posts it after the restart (bot/player_holds.py). NULL once posted,
-- when no line was to be posted (the player's own command showed it), and for the rows before.
ALTER TABLE player_holds_given ADD COLUMN line_owed TEXT;
