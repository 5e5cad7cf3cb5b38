"""How strong the computer opponent is: games against simple players and between its levels.

Run from the repository root, for example::

    .venv/bin/python -m benchmarks.ai_strength --games 100 --nodes 4000
    .venv/bin/python -m benchmarks.ai_strength --only ladder --games 100
    .venv/bin/python -m benchmarks.ai_strength --only selfplay --selfplay-games 10 --time 1.0

Every match is played from both sides (colours alternate game by game) and its result printed,
with how its games ended. In the level ladder each pair of games (one with each colour) starts
from the same random opening of 2-4 plies, and self-play games from random 2-4 ply openings, so
that deterministic players do not replay a single game. Games run in parallel in worker
processes (``--workers``, default: every core). A game that reaches ``--max-plies`` without a
result counts as a win for nobody.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from engine import Game, Move, Side
from engine.board import Board
from engine.search import LEVELS, choose_move


@dataclass(frozen=True)
class Player:
    """Who plays one side: ``random``, ``greedy`` or the search at a level with a budget."""

    kind: str
    level: int = 5
    nodes: int | None = None
    time: float | None = None

    def __str__(self) -> str:
        if self.kind != "ai":
            return self.kind
        share = LEVELS[self.level].effort
        if self.nodes:
            budget = f"{int(self.nodes * share):,} nodes"
        else:
            budget = f"{(self.time or 0.0) * share:g} s"
        return f"level {self.level} ({budget} a move)"


@dataclass(frozen=True)
class GameResult:
    """The winner of one benchmark game (``None`` if it hit the ply limit) and its length."""

    winner: Side | None
    reason: str
    """How the game ended (``king_escaped``, ``king_captured``, ...) or ``unfinished``."""
    plies: int
    nodes: int
    seconds: float


def _greedy_move(board: Board, rng: random.Random) -> int:
    """A win if there is one, else the move capturing most (ties drawn at random)."""
    best: list[int] = []
    best_captures = -1
    for move in board.moves():
        captured = board.push(move)
        outcome = board.outcome
        board.pop()
        if outcome is not None and outcome.winner is board.to_move:
            return move
        if len(captured) > best_captures:
            best, best_captures = [move], len(captured)
        elif len(captured) == best_captures:
            best.append(move)
    return rng.choice(best)


def random_opening(seed: int, low: int, high: int) -> tuple[str, ...]:
    """From ``low`` to ``high`` random plies from the brandubh opening (none if ``high`` is 0)."""
    rng = random.Random(seed)
    game = Game()
    for _ in range(rng.randint(low, high) if high else 0):
        game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
        if game.outcome is not None:
            break
    return tuple(str(record.move) for record in game.records)


def play_game(
    attackers: Player,
    defenders: Player,
    seed: int,
    max_plies: int,
    opening: tuple[str, ...] = (),
) -> GameResult:
    """One game from the brandubh opening, after the moves of ``opening``."""
    rng = random.Random(seed)
    game = Game()
    for move in opening:
        game.play(move)
    nodes = 0
    thinking = 0.0
    while game.outcome is None and game.ply < max_plies:
        player = attackers if game.to_move is Side.ATTACKERS else defenders
        board = game.board
        if player.kind == "random":
            code = rng.choice(sorted(board.moves()))
        elif player.kind == "greedy":
            code = _greedy_move(board, rng)
        else:
            result = choose_move(
                game,
                level=player.level,
                nodes=player.nodes,
                time_limit=player.time,
                seed=rng.randrange(1 << 30),
            )
            nodes += result.nodes
            thinking += result.elapsed
            code = result.move.code
        game.play(str(Move.from_code(code)))
    if game.outcome is None:
        return GameResult(None, "unfinished", game.ply, nodes, thinking)
    return GameResult(game.outcome.winner, str(game.outcome.reason), game.ply, nodes, thinking)


def _play(args: tuple[Player, Player, int, int, tuple[str, ...]]) -> GameResult:
    return play_game(*args)


def _endings(results: Iterable[GameResult]) -> str:
    counts = Counter(result.reason for result in results)
    return ", ".join(f"{reason.replace('_', ' ')} {n}" for reason, n in counts.most_common())


def run_match(
    pool: multiprocessing.pool.Pool,
    first: Player,
    second: Player,
    games: int,
    max_plies: int,
    seed: int,
    opening_plies: tuple[int, int] = (0, 0),
) -> None:
    """``games`` games of ``first`` against ``second``, colours alternating; print the score.

    Each pair of games (one with each colour) starts from the same opening of
    ``opening_plies`` random plies, so deterministic players do not replay one game.
    """
    jobs: list[tuple[Player, Player, int, int, tuple[str, ...]]] = []
    for i in range(games):
        pair = (first, second) if i % 2 == 0 else (second, first)
        opening = random_opening(seed + i // 2, *opening_plies)
        jobs.append((pair[0], pair[1], seed + i, max_plies, opening))
    started = time.perf_counter()
    results = pool.map(_play, jobs, chunksize=1)
    wins_as = {Side.ATTACKERS: 0, Side.DEFENDERS: 0}
    played_as = {Side.ATTACKERS: 0, Side.DEFENDERS: 0}
    unfinished = 0
    for i, result in enumerate(results):
        first_side = Side.ATTACKERS if i % 2 == 0 else Side.DEFENDERS
        played_as[first_side] += 1
        if result.winner is None:
            unfinished += 1
        elif result.winner is first_side:
            wins_as[first_side] += 1
    total = sum(wins_as.values())
    plies = statistics.median(r.plies for r in results)
    low, high = opening_plies
    start = f", from {low}-{high} shared random plies" if high else ""
    print(
        f"{first} vs {second}: {total}/{games} = {100 * total / games:.1f} % "
        f"(as attackers {wins_as[Side.ATTACKERS]}/{played_as[Side.ATTACKERS]}, "
        f"as defenders {wins_as[Side.DEFENDERS]}/{played_as[Side.DEFENDERS]}, "
        f"unfinished {unfinished}{start}; median {plies:.0f} plies; {_endings(results)}; "
        f"{time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def run_selfplay(
    pool: multiprocessing.pool.Pool, player: Player, games: int, max_plies: int, seed: int
) -> None:
    """Full strength against itself after 2-4 random opening plies; print who won how often."""
    jobs = [
        (player, player, seed + i, max_plies, random_opening(seed + i, 2, 4)) for i in range(games)
    ]
    results = pool.map(_play, jobs, chunksize=1)
    attackers = sum(1 for r in results if r.winner is Side.ATTACKERS)
    defenders = sum(1 for r in results if r.winner is Side.DEFENDERS)
    nodes = sum(r.nodes for r in results)
    seconds = sum(r.seconds for r in results)
    print(
        f"self-play {player}: attackers won {attackers}/{games} "
        f"({100 * attackers / games:.0f} %), defenders {defenders}/{games} "
        f"({100 * defenders / games:.0f} %), unfinished {games - attackers - defenders} "
        f"(from 2-4 random plies; {_endings(results)}); "
        f"{nodes / max(seconds, 1e-9):,.0f} positions/s while thinking",
        flush=True,
    )


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100, help="games per match (default 100)")
    parser.add_argument(
        "--nodes", type=int, default=4000, help="node limit per move, full strength"
    )
    parser.add_argument(
        "--ladder-nodes",
        type=int,
        default=40_000,
        help="full-strength node limit per move in the ladder; each level uses its share",
    )
    parser.add_argument(
        "--ladder",
        type=int,
        nargs="+",
        default=[2, 3, 4, 5],
        help="levels to play against the level below (default 2 3 4 5)",
    )
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--workers", type=int, default=0, help="processes (default: every core)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only",
        choices=["random", "greedy", "ladder", "selfplay"],
        action="append",
        help="run only these matches (repeatable); default all but self-play",
    )
    parser.add_argument("--selfplay-games", type=int, default=10)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move in self-play")
    args = parser.parse_args(list(argv) if argv is not None else None)
    which = set(args.only or ["random", "greedy", "ladder"])
    workers = args.workers or multiprocessing.cpu_count()
    full = Player("ai", 5, nodes=args.nodes)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        if "random" in which:
            run_match(pool, full, Player("random"), args.games, args.max_plies, args.seed)
        if "greedy" in which:
            run_match(pool, full, Player("greedy"), args.games, args.max_plies, args.seed)
        if "ladder" in which:
            for level in args.ladder:
                run_match(
                    pool,
                    Player("ai", level, nodes=args.ladder_nodes),
                    Player("ai", level - 1, nodes=args.ladder_nodes),
                    args.games,
                    args.max_plies,
                    args.seed,
                    opening_plies=(2, 4),
                )
        if "selfplay" in which:
            run_selfplay(
                pool,
                Player("ai", 5, time=args.time),
                args.selfplay_games,
                args.max_plies,
                args.seed,
            )


if __name__ == "__main__":
    main()
