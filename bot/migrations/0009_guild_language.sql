-- Schema version 9: the language of a server's public messages, chosen with /settings language:.
-- NULL: follow the server's own language (Discord's Community setting, sent as guild_locale).
ALTER TABLE guild_settings ADD COLUMN language TEXT;
