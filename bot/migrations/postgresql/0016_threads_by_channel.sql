-- Schema version 16 (PostgreSQL): matches by the channel their thread was started from. As
-- ../0016_threads_by_channel.sql.
CREATE INDEX matches_by_parent_channel ON matches (parent_channel_id)
    WHERE parent_channel_id IS NOT NULL;
