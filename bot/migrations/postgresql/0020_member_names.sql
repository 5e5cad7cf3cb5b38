-- Schema version 20 (PostgreSQL): display names per server. As ../0020_member_names.sql.
CREATE TABLE member_names (
    guild_id     BIGINT NOT NULL,
    user_id      BIGINT NOT NULL REFERENCES players (user_id),
    display_name TEXT   NOT NULL,
    seen_us      BIGINT NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
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
