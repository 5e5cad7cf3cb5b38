"""Storage speed: move writes per second, leaderboard latency, start-up recovery time.

Run from the project root::

    .venv/bin/python benchmarks/storage_speed.py

Targets (issue 4): at least 2,000 move writes/s sustained through aiosqlite; a leaderboard page
for a server with 10,000 players and 100,000 games in under 10 ms; start-up recovery of 1,000
active games in under 2 s. Figures are medians over several runs (the machine is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.services import Services
from bot.storage import Database, moves
from bot.storage.times import to_us
from engine import Game

GUILD = 1
DAY_US = 86_400_000_000


def random_moves(rng: random.Random, plies: int) -> list[str]:
    """A random game's first ``plies`` moves (fewer if it ends sooner: the last is dropped)."""
    game = Game()
    moves: list[str] = []
    while len(moves) < plies:
        move = rng.choice(game.legal_moves())
        if game.would_repeat(move):
            continue
        game.play(move)
        if game.outcome is not None:
            game.undo()
            break
        moves.append(str(move))
    return moves


# ---------------------------------------------------------------- move writes


async def move_writes(path: Path, games_count: int, moves_per_game: int, seed: int) -> float:
    """Moves per second through ``services.games.play`` (validated, stored, one transaction
    each), cycling over ``games_count`` games in different channels."""
    rng = random.Random(seed)
    scripts = [random_moves(rng, moves_per_game) for _ in range(games_count)]
    services = await Services.open(path)
    try:
        for index in range(games_count):
            challenge = await services.challenges.create(GUILD, 100 + index, 10, 11 + index)
            await services.challenges.accept(challenge.challenge_id, 11 + index)
        players = {index: (10, 11 + index) for index in range(games_count)}
        total = 0
        start = time.perf_counter()
        for ply in range(moves_per_game):
            for index, script in enumerate(scripts):
                if ply >= len(script):
                    continue
                mover = players[index][ply % 2]
                await services.games.play(100 + index, mover, script[ply])
                total += 1
        elapsed = time.perf_counter() - start
    finally:
        await services.close()
    return total / elapsed


async def raw_move_writes(path: Path, count: int) -> float:
    """Moves per second through the storage layer alone (the one conditional INSERT)."""
    services = await Services.open(path)
    try:
        challenge = await services.challenges.create(GUILD, 1, 10, 11)
        game = await services.challenges.accept(challenge.challenge_id, 11)
        database = services.database
        now = to_us(datetime.now(UTC))
        start = time.perf_counter()
        for ply in range(count):
            async with database.single_statement() as db:
                stored = await moves.add_move(
                    db,
                    game.set_id,
                    expected_ply=ply,
                    notation="a1-a2",
                    captures="",
                    player_id=10 + ply % 2,
                    now_us=now,
                )
                assert stored
        elapsed = time.perf_counter() - start
    finally:
        await services.close()
    return count / elapsed


# ---------------------------------------------------------------- leaderboard


def populate_guild(path: Path, players: int, games_count: int, seed: int) -> None:
    """A server with ``players`` rated players and ``games_count`` finished games (plain SQL)."""
    rng = random.Random(seed)
    asyncio.run(_create(path))
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA synchronous = OFF")
        raw.executemany(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, 0)",
            ((1000 + i, f"Player {i}") for i in range(players)),
        )
        raw.executemany(
            "INSERT INTO matches (match_id, guild_id, channel_id, player1_id, player2_id, "
            "player1_side, ruleset, sets_total, time_per_move_us, rated, status, started_us) "
            "VALUES (?, ?, ?, ?, ?, 'attackers', 'brandubh', 2, ?, 1, 'finished', 0)",
            (
                (m, GUILD, m % 500, 1000 + (m * 7) % players, 1000 + (m * 7 + 1) % players, DAY_US)
                for m in range(1, games_count // 2 + 1)
            ),
        )
        rows = []
        for set_id in range(1, games_count + 1):
            match_id = (set_id + 1) // 2
            a = 1000 + (match_id * 7) % players
            b = 1000 + (match_id * 7 + 1) % players
            attacker, defender = (a, b) if set_id % 2 else (b, a)
            winner = attacker if rng.random() < 0.5 else defender
            side = "attackers" if winner == attacker else "defenders"
            rows.append(
                (set_id, match_id, 2 - set_id % 2, GUILD, match_id % 500, attacker, defender,
                 rng.randint(7, 80), attacker, side, winner, set_id, set_id)
            )  # fmt: skip
        raw.executemany(
            "INSERT INTO sets (set_id, match_id, set_number, guild_id, channel_id, ruleset, "
            "attacker_id, defender_id, status, ply, to_move_id, winner_side, winner_id, reason, "
            "started_us, finished_us, deadline_us, reminder_us) VALUES (?, ?, ?, ?, ?, "
            "'brandubh', ?, ?, 'finished', ?, ?, ?, ?, 'king_captured', ?, ?, 0, 0)",
            rows,
        )
        raw.executemany(
            "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, wins, "
            "losses, draws, matches_won, updated_us, ruleset) "
            "VALUES (?, ?, ?, ?, 0.06, ?, ?, ?, 0, ?, 0, 'brandubh')",
            (
                (GUILD, 1000 + i, rng.gauss(1500, 250), rng.uniform(45, 350), 20, 10, 10, 5)
                for i in range(players)
            ),
        )
        raw.execute("ANALYZE")


async def _create(path: Path) -> None:
    database = await Database.open(path)
    await database.close()


async def leaderboard_times(path: str | Path, runs: int) -> dict[str, float]:
    """Median milliseconds of leaderboard pages (one with the line of an asker not on it, as
    /leaderboard reads it) and a player's stats over ``runs`` calls."""
    services = await Services.open(path)
    figures = {}
    try:
        for label, call in (
            ("leaderboard page 1", lambda: services.standings.leaderboard(GUILD, 0, 10)),
            ("leaderboard page 500", lambda: services.standings.leaderboard(GUILD, 4990, 10)),
            (
                "leaderboard page 1 with the asker's own line (not on it)",
                lambda: services.standings.leaderboard(GUILD, 0, 10, viewer_id=1500),
            ),
            ("player stats", lambda: services.standings.player_stats(GUILD, 1500)),
        ):
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                await call()
                times.append((time.perf_counter() - start) * 1000)
            figures[label] = statistics.median(times)
    finally:
        await services.close()
    return figures


# ---------------------------------------------------------------- recovery


def populate_active(path: Path, count: int, plies: int, seed: int) -> int:
    """``count`` games in progress (random, up to ``plies`` moves each); the moves stored."""
    rng = random.Random(seed)
    asyncio.run(_create(path))
    total = 0
    with sqlite3.connect(path) as raw:
        raw.executemany(
            "INSERT INTO players (user_id, display_name, seen_us) VALUES (?, ?, 0)",
            ((10 + i, f"P{i}") for i in range(count + 1)),
        )
        for index in range(1, count + 1):
            moves = random_moves(rng, rng.randint(plies // 2, plies))
            total += len(moves)
            raw.execute(
                "INSERT INTO matches (match_id, guild_id, channel_id, player1_id, player2_id, "
                "player1_side, ruleset, sets_total, time_per_move_us, rated, started_us) "
                "VALUES (?, ?, ?, 10, ?, 'attackers', 'brandubh', 2, ?, 1, 0)",
                (index, GUILD, index, 10 + index, DAY_US),
            )
            to_move = 10 if len(moves) % 2 == 0 else 10 + index
            raw.execute(
                "INSERT INTO sets (set_id, match_id, set_number, guild_id, channel_id, ruleset, "
                "attacker_id, defender_id, ply, to_move_id, started_us, deadline_us, reminder_us) "
                "VALUES (?, ?, 1, ?, ?, 'brandubh', 10, ?, ?, ?, 0, ?, ?)",
                (index, index, GUILD, index, 10 + index, len(moves), to_move, DAY_US, DAY_US),
            )
            raw.executemany(
                "INSERT INTO moves VALUES (?, ?, ?, '', 10, 0)",
                ((index, ply, move) for ply, move in enumerate(moves)),
            )
    return total


async def recovery_time(path: Path) -> tuple[float, int]:
    """Seconds from opening the database to every active game rebuilt (a cold start)."""
    start = time.perf_counter()
    services = await Services.open(path)
    recovered = await services.games.active()
    elapsed = time.perf_counter() - start
    await services.close()
    return elapsed, len(recovered)


# ---------------------------------------------------------------- main


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions for each median")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke test)")
    options = parser.parse_args()
    runs = max(1, options.runs)
    players, games_total, active_games = (
        (1000, 10_000, 100) if options.quick else (10_000, 100_000, 1000)
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)

        rates = [
            asyncio.run(move_writes(root / f"moves{run}.sqlite3", 20, 40, run))
            for run in range(runs)
        ]
        print(
            f"move writes via services.games.play (validate + 1 transaction): "
            f"median {statistics.median(rates):,.0f} moves/s "
            f"(runs: {', '.join(f'{r:,.0f}' for r in rates)}; target >= 2,000)"
        )
        raw_rates = [
            asyncio.run(raw_move_writes(root / f"raw{run}.sqlite3", 3000)) for run in range(runs)
        ]
        print(f"move writes via storage only: median {statistics.median(raw_rates):,.0f} moves/s")

        board = root / "leaderboard.sqlite3"
        populate_guild(board, players, games_total, 1)
        figures = asyncio.run(leaderboard_times(board, max(runs, 20)))
        for label, value in figures.items():
            print(
                f"{label} ({players:,} players, {games_total:,} games): median {value:.2f} ms"
                + (" (target < 10 ms)" if label == "leaderboard page 1" else "")
            )

        active = root / "active.sqlite3"
        moves = populate_active(active, active_games, 60, 2)
        results = [asyncio.run(recovery_time(active)) for _ in range(runs)]
        seconds = statistics.median(r[0] for r in results)
        print(
            f"start-up recovery of {results[0][1]:,} active games ({moves:,} moves): "
            f"median {seconds:.2f} s (target < 2 s)"
        )


if __name__ == "__main__":
    main()
