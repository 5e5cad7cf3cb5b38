-- Schema version 39 (PostgreSQL): which line a player's hold owes once it gave their time back,
-- until it is posted. As ../0039_player_back_lines_owed.sql.
ALTER TABLE player_holds_given ADD COLUMN line_owed TEXT;
