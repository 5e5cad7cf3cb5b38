-- Schema version 3: storing a move advances its game in the same statement.
-- A move is stored with one INSERT … SELECT that only inserts while the game is in progress at
-- that ply; this trigger then moves the game's ply on, hands the turn over and re-arms the move
-- timer and half-time reminder from the match's time per move. One statement, one transaction:
-- a move and its game can never disagree, even after a kill -9.

CREATE TRIGGER moves_advance_game AFTER INSERT ON moves
BEGIN
    UPDATE games SET
        ply = NEW.ply + 1,
        to_move_id = CASE WHEN to_move_id = attacker_id THEN defender_id ELSE attacker_id END,
        deadline_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = games.match_id),
        reminder_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = games.match_id) / 2,
        reminded = 0
    WHERE game_id = NEW.game_id;
END;
