-- Schema version 41 (PostgreSQL): which line a player's hold owes once it gave their time back,
-- until it is posted. As ../0041_player_back_lines_owed.sql.
ALTER TABLE player_holds_given ADD COLUMN line_owed TEXT;
