-- Schema version 43: how many times the board at a set's ply was owed anew after the first
-- (a takeback back to it, a move back to it after one, the set's end on it: time, resignation,
-- abort), which its nonce carries (bot/storage/announcements.py nonce()). The nonce was made of
-- the set, the ply and the instant it became owed only, so a board owed anew at the instant of
-- the one before it (a clock standing still) took its nonce, and Discord returned the earlier
-- board for it. The moves trigger now updates the row it owed before, counting one more, where
-- it replaced it (which would start the count again).
ALTER TABLE announcements ADD COLUMN owed_anew INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER moves_announce;

CREATE TRIGGER moves_announce AFTER INSERT ON moves
BEGIN
    INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us)
    SELECT NEW.set_id, NEW.ply + 1, channel_id, NEW.played_us, NEW.played_us + 10000000
    FROM sets WHERE set_id = NEW.set_id
    ON CONFLICT (set_id, ply) DO UPDATE SET
        channel_id = excluded.channel_id, created_us = excluded.created_us, attempts = 0,
        next_try_us = excluded.next_try_us, delivered_us = NULL, message_id = NULL,
        late_cause = NULL, owed_anew = announcements.owed_anew + 1;
END;
