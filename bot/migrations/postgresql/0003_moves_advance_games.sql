-- Schema version 3 (PostgreSQL): storing a move advances its game in the same statement.
-- As ../0003_moves_advance_games.sql, as a PL/pgSQL trigger. Several processes may write at
-- once here, so the trigger also guards: the game must still be in progress at the move's ply
-- when its row is locked for the update. A move that lost a race (the game moved on, ended or
-- was taken back after the move's INSERT … SELECT looked) is refused with a serialization
-- failure, which the storage layer reports as a stale move: it never lands after the fact.

CREATE FUNCTION moves_advance_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE games SET
        ply = NEW.ply + 1,
        to_move_id = CASE WHEN to_move_id = attacker_id THEN defender_id ELSE attacker_id END,
        deadline_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = games.match_id),
        reminder_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = games.match_id) / 2,
        reminded = 0
    WHERE game_id = NEW.game_id AND ply = NEW.ply AND status = 'active';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'game % is no longer in progress at ply %', NEW.game_id, NEW.ply
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER moves_advance_game AFTER INSERT ON moves
    FOR EACH ROW EXECUTE FUNCTION moves_advance_game();
