-- Schema version 5: takebacks. A player may ask to take their last move back; the opponent
-- accepts or declines (against the computer it is granted at once). Undone moves leave the
-- move list but are kept, with who asked and who accepted, in undone_moves: never deleted.

CREATE TABLE takebacks (
    takeback_id INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (game_id),
    ply         INTEGER NOT NULL CHECK (ply > 0),  -- the game's ply when asked
    asked_by    INTEGER NOT NULL,
    answered_by INTEGER,
    status      TEXT    NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'accepted', 'declined', 'lapsed')),
    asked_us    INTEGER NOT NULL,
    expires_us  INTEGER NOT NULL,
    answered_us INTEGER,
    message_id  INTEGER
);

CREATE UNIQUE INDEX takebacks_one_open_per_game ON takebacks (game_id) WHERE status = 'open';
CREATE INDEX takebacks_open_expiry ON takebacks (expires_us) WHERE status = 'open';

CREATE TABLE undone_moves (
    game_id     INTEGER NOT NULL REFERENCES games (game_id),
    ply         INTEGER NOT NULL,
    notation    TEXT    NOT NULL,
    captures    TEXT    NOT NULL,
    player_id   INTEGER NOT NULL,
    played_us   INTEGER NOT NULL,
    takeback_id INTEGER NOT NULL REFERENCES takebacks (takeback_id),
    undone_us   INTEGER NOT NULL
);

CREATE INDEX undone_moves_by_game ON undone_moves (game_id, ply);
