-- Schema version 20: display names per server. A member's name in one server (a nickname meant
-- for it) is never shown in another: member_names holds each member's name in each server, and
-- players.display_name becomes the account's own name (Discord's global display name, else the
-- username), read only where the member's name in the server is not known (the computer, a
-- member not seen there yet) and outside any server.
CREATE TABLE member_names (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL REFERENCES players (user_id),
    display_name TEXT    NOT NULL,
    seen_us      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
-- Until now one name per user was kept and shown in every server: it stays the name in each
-- server where the user played, was challenged or tried a puzzle (what those servers showed),
-- until the member is next seen there; it also stays the account's name until the user is next
-- seen anywhere.
INSERT INTO member_names (guild_id, user_id, display_name, seen_us)
SELECT seen.guild_id, p.user_id, p.display_name, p.seen_us
FROM players p
JOIN (
    SELECT guild_id, player1_id AS user_id FROM matches
    WHERE computer_id IS NULL OR player1_id <> computer_id
    UNION SELECT guild_id, player2_id FROM matches
    WHERE computer_id IS NULL OR player2_id <> computer_id
    UNION SELECT guild_id, challenger_id FROM challenges
    UNION SELECT guild_id, opponent_id FROM challenges WHERE opponent_id IS NOT NULL
    UNION SELECT guild_id, user_id FROM puzzle_attempts
) seen ON seen.user_id = p.user_id;
