-- Schema version 26 (PostgreSQL): who aborted a set. As ../0026_aborted_by.sql.
ALTER TABLE sets ADD COLUMN aborted_by BIGINT;
