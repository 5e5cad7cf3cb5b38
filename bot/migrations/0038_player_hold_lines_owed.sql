-- Schema version 38: a player's hold (schema 36's player_holds) is stored before its public
-- line ("…'s clock is held: …") is posted, so that the hold protecting the player is never lost;
-- line_owed says why they are held ('cannot see', 'timed out') until that line is posted, and a
-- restart posts it (bot/player_holds.py). NULL once posted (and for the holds kept before: their
-- lines were posted).
ALTER TABLE player_holds ADD COLUMN line_owed TEXT;
