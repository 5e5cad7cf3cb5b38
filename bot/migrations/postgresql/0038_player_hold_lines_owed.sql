-- Schema version 38 (PostgreSQL): why a player is held, while the line saying so is owed. As
-- ../0038_player_hold_lines_owed.sql.
ALTER TABLE player_holds ADD COLUMN line_owed TEXT;
