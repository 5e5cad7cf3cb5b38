-- Schema version 10 (PostgreSQL): as ../0010_sets.sql, `games` becomes `sets` and `game_id`
-- becomes `set_id` everywhere. ALTER TABLE … RENAME carries indexes, constraints, sequences and
-- triggers along but not the text of PL/pgSQL functions, so both trigger functions are
-- recreated; the indexes, constraints and the identity sequence that were named after games are
-- renamed so that the catalog reads as the tables do.

DROP TRIGGER moves_advance_game ON moves;
DROP FUNCTION moves_advance_game();

ALTER TABLE games RENAME TO sets;
ALTER TABLE sets RENAME COLUMN game_id TO set_id;
ALTER TABLE moves RENAME COLUMN game_id TO set_id;
ALTER TABLE rating_history RENAME COLUMN game_id TO set_id;
ALTER TABLE takebacks RENAME COLUMN game_id TO set_id;
ALTER TABLE undone_moves RENAME COLUMN game_id TO set_id;
ALTER TABLE announcements RENAME COLUMN game_id TO set_id;
ALTER TABLE analyses RENAME COLUMN game_id TO set_id;

ALTER SEQUENCE games_game_id_seq RENAME TO sets_set_id_seq;

ALTER INDEX games_one_active_per_channel RENAME TO sets_one_active_per_channel;
ALTER INDEX games_deadline RENAME TO sets_deadline;
ALTER INDEX games_reminder RENAME TO sets_reminder;
ALTER INDEX games_by_channel RENAME TO sets_by_channel;
ALTER INDEX games_by_attacker RENAME TO sets_by_attacker;
ALTER INDEX games_by_defender RENAME TO sets_by_defender;
ALTER INDEX takebacks_one_open_per_game RENAME TO takebacks_one_open_per_set;
ALTER INDEX undone_moves_by_game RENAME TO undone_moves_by_set;

-- Constraints PostgreSQL named after the old table and column (a primary key's or unique
-- constraint's index is renamed with it).
DO $$
DECLARE
    found record;
BEGIN
    FOR found IN
        SELECT c.conrelid::regclass::text AS tab, c.conname AS old,
               replace(replace(c.conname, 'games_', 'sets_'), 'game_id', 'set_id') AS new
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = current_schema()
          AND (c.conname LIKE 'games\_%' OR c.conname LIKE '%game\_id%')
    LOOP
        EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', found.tab, found.old, found.new);
    END LOOP;
END;
$$;

-- As schema version 3: storing a move advances its set, guarded against a lost race.
CREATE FUNCTION moves_advance_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sets SET
        ply = NEW.ply + 1,
        to_move_id = CASE WHEN to_move_id = attacker_id THEN defender_id ELSE attacker_id END,
        deadline_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = sets.match_id),
        reminder_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = sets.match_id) / 2,
        reminded = 0
    WHERE set_id = NEW.set_id AND ply = NEW.ply AND status = 'active';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'set % is no longer in progress at ply %', NEW.set_id, NEW.ply
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER moves_advance_set AFTER INSERT ON moves
    FOR EACH ROW EXECUTE FUNCTION moves_advance_set();

-- As schema version 7: the board owed after a move goes into the outbox with it.
CREATE OR REPLACE FUNCTION moves_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us)
    SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000
    FROM sets WHERE set_id = NEW.set_id
    ON CONFLICT (set_id, ply) DO UPDATE SET
        channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0,
        next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL;
    RETURN NULL;
END;
$$;
