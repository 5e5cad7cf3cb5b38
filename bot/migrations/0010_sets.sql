-- Schema version 10: a row of `games` is one set of a match, so the table is named `sets`, its
-- id `set_id`, and every column that points at it too (moves, rating_history, takebacks,
-- undone_moves, announcements, analyses). The triggers and indexes that named games are
-- recreated under their new names with the same bodies. Buttons already posted keep working:
-- their custom ids carry the number, which is unchanged.

DROP TRIGGER moves_advance_game;
DROP TRIGGER moves_announce;

DROP INDEX games_one_active_per_channel;
DROP INDEX games_deadline;
DROP INDEX games_reminder;
DROP INDEX games_by_channel;
DROP INDEX games_by_attacker;
DROP INDEX games_by_defender;
DROP INDEX takebacks_one_open_per_game;
DROP INDEX undone_moves_by_game;

ALTER TABLE games RENAME TO sets;
ALTER TABLE sets RENAME COLUMN game_id TO set_id;
ALTER TABLE moves RENAME COLUMN game_id TO set_id;
ALTER TABLE rating_history RENAME COLUMN game_id TO set_id;
ALTER TABLE takebacks RENAME COLUMN game_id TO set_id;
ALTER TABLE undone_moves RENAME COLUMN game_id TO set_id;
ALTER TABLE announcements RENAME COLUMN game_id TO set_id;
ALTER TABLE analyses RENAME COLUMN game_id TO set_id;

-- One set in progress per channel, enforced by the database.
CREATE UNIQUE INDEX sets_one_active_per_channel ON sets (channel_id) WHERE status = 'active';
CREATE INDEX sets_deadline ON sets (deadline_us) WHERE status = 'active';
CREATE INDEX sets_reminder ON sets (reminder_us) WHERE status = 'active' AND reminded = 0;
CREATE INDEX sets_by_channel ON sets (channel_id, set_id);
CREATE INDEX sets_by_attacker ON sets (guild_id, attacker_id, set_id);
CREATE INDEX sets_by_defender ON sets (guild_id, defender_id, set_id);
CREATE UNIQUE INDEX takebacks_one_open_per_set ON takebacks (set_id) WHERE status = 'open';
CREATE INDEX undone_moves_by_set ON undone_moves (set_id, ply);

-- As in schema version 3: storing a move advances its set in the same statement.
CREATE TRIGGER moves_advance_set AFTER INSERT ON moves
BEGIN
    UPDATE sets SET
        ply = NEW.ply + 1,
        to_move_id = CASE WHEN to_move_id = attacker_id THEN defender_id ELSE attacker_id END,
        deadline_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = sets.match_id),
        reminder_us = NEW.played_us
            + (SELECT time_per_move_us FROM matches WHERE matches.match_id = sets.match_id) / 2,
        reminded = 0
    WHERE set_id = NEW.set_id;
END;

-- As in schema version 7: the board owed after a move goes into the outbox with it.
CREATE TRIGGER moves_announce AFTER INSERT ON moves
BEGIN
    INSERT OR REPLACE INTO announcements (set_id, ply, channel_id, created_us, next_try_us)
    SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000
    FROM sets WHERE set_id = NEW.set_id;
END;
