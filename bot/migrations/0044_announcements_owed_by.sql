-- Schema version 44: each owed board notes what owed it, in the transaction that did: whether
-- a takeback did (taken_back: its post tells of the takeback) and how many moves had been taken
-- back in its set then (undone: with the ply, the position it shows; the Takeback button under
-- it carries both). The outbox told both by the instant alone, matching the moves undone at or
-- before the board's created_us, so on a clock standing still (two writes in one microsecond)
-- a board owed at the instant of a takeback read the takeback's flag and count. Boards owed
-- before are read as they were. The moves trigger now notes the set's count on its board.
ALTER TABLE announcements ADD COLUMN taken_back INTEGER NOT NULL DEFAULT 0
    CHECK (taken_back IN (0, 1));
ALTER TABLE announcements ADD COLUMN undone INTEGER NOT NULL DEFAULT 0 CHECK (undone >= 0);

UPDATE announcements SET
    taken_back = EXISTS (SELECT 1 FROM undone_moves u WHERE u.set_id = announcements.set_id
        AND u.ply = announcements.ply AND u.undone_us = announcements.created_us),
    undone = (SELECT count(*) FROM undone_moves u WHERE u.set_id = announcements.set_id
        AND u.undone_us <= announcements.created_us)
WHERE set_id IN (SELECT set_id FROM undone_moves);

DROP TRIGGER moves_announce;

CREATE TRIGGER moves_announce AFTER INSERT ON moves
BEGIN
    INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us, undone)
    SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000, undone
    FROM sets WHERE set_id = NEW.set_id
    ON CONFLICT (set_id, ply) DO UPDATE SET
        channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0,
        next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL,
        late_cause = NULL, owed_anew = announcements.owed_anew + 1, taken_back = 0,
        undone = excluded.undone;
END;
