-- Schema version 42 (PostgreSQL): no new index. SQLite's 0042 adds one by server and player
-- for /puzzle leaderboard's count of a server's finished attempts by player, which SQLite
-- otherwise sorts at every page. PostgreSQL counts them in a hash table read from
-- puzzle_attempts_by_guild (schema 18) and gained nothing from that index in
-- benchmarks/puzzle_board.py (100,000 attempts by 5,000 players: a page took 106-136 ms
-- without it, 112-220 ms with it, the planner then reading the whole table), so the number
-- only says so where a reader of the database looks (the copy tool wants the same number in
-- both dialects).
COMMENT ON INDEX puzzle_attempts_by_guild IS
    'Also counts /puzzle leaderboard by player (hashed); SQLite has puzzle_attempts_by_solver.';
