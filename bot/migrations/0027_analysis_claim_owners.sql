-- Schema version 27: which process made (or last joined) each analysis claim, so that a process
-- starting again drops the claims its earlier run died with, instead of refusing their members
-- for up to 15 minutes. owner: the shards that process runs ('every', or '0-3 of 8': see
-- bot/shards.py), the same in its next run; '' for a claim made before this schema.
ALTER TABLE analysis_claims ADD COLUMN owner TEXT NOT NULL DEFAULT '';
