-- Schema version 16: matches found by the channel their thread was started from (/export and
-- /analyse in a channel take the newest finished match of its threads).
CREATE INDEX matches_by_parent_channel ON matches (parent_channel_id)
    WHERE parent_channel_id IS NOT NULL;
