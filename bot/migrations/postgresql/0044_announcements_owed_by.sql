-- Schema version 44 (PostgreSQL): each owed board notes whether a takeback owed it and how many
-- moves had been taken back in its set then. As ../0044_announcements_owed_by.sql; a move's
-- board is owed by bot/storage/moves.py's statement here, which notes the set's count.
ALTER TABLE announcements ADD COLUMN taken_back INTEGER NOT NULL DEFAULT 0
    CHECK (taken_back IN (0, 1));
ALTER TABLE announcements ADD COLUMN undone INTEGER NOT NULL DEFAULT 0 CHECK (undone >= 0);

UPDATE announcements a SET
    taken_back = CASE WHEN EXISTS (SELECT 1 FROM undone_moves u WHERE u.set_id = a.set_id
        AND u.ply = a.ply AND u.undone_us = a.created_us) THEN 1 ELSE 0 END,
    undone = (SELECT count(*) FROM undone_moves u WHERE u.set_id = a.set_id
        AND u.undone_us <= a.created_us)
WHERE a.set_id IN (SELECT set_id FROM undone_moves);
