-- Schema version 11 (PostgreSQL): storing a move and reading back its set in one round trip.
-- add_move() inserts the move as the storage layer's add_move() did (only while the set is in
-- progress at that ply; the moves trigger still advances the set, the one place the turn is
-- handed over) and returns the set as it now stands, or no row if the move was refused. A
-- statement inside a PL/pgSQL function sees what the statements before it did, so the row
-- returned is the one the trigger updated. A lost race still raises as before: the moves'
-- primary key (unique_violation) or the trigger (serialization_failure).

CREATE FUNCTION add_move(
    p_set_id BIGINT,
    p_ply INTEGER,
    p_notation TEXT,
    p_captures TEXT,
    p_player_id BIGINT,
    p_played_us BIGINT
) RETURNS SETOF sets LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO moves (set_id, ply, notation, captures, player_id, played_us)
    SELECT p_set_id, p_ply, p_notation, p_captures, p_player_id, p_played_us
    WHERE EXISTS (
        SELECT 1 FROM sets WHERE set_id = p_set_id AND ply = p_ply AND status = 'active'
    );
    IF FOUND THEN
        RETURN QUERY SELECT * FROM sets WHERE set_id = p_set_id;
    END IF;
END;
$$;
