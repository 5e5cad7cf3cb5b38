-- Schema version 9 (PostgreSQL): the language of a server's public messages, chosen with
-- /settings language:. As ../0009_guild_language.sql (NULL: follow the server's own language).
ALTER TABLE guild_settings ADD COLUMN language TEXT;
