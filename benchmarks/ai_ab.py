"""A/B match between two versions of the computer opponent: is a change to the search better?

Run from the repository root, for example::

    git archive main | tar -x -C /tmp/base            # today's engine, read-only copy
    .venv/bin/python -m benchmarks.ai_ab --b /tmp/base --pairs 100 --nodes 10000
    .venv/bin/python -m benchmarks.ai_ab --b /tmp/base --pairs 100 --time 0.5 --jobs 2
    .venv/bin/python -m benchmarks.ai_ab --b . --level-b 3 --ruleset hnefatafl --pairs 10

Version A is the checkout named by ``--a`` (default: this repository), version B the one named
by ``--b``. Each version runs in its own Python process with its checkout first on the path, so
the two engines never share code or tables. Each pair of games starts from the same random
opening of 2-4 plies (``--opening``); A plays the attackers in one game and the defenders in the
other. The moves are checked by this repository's rules. A game reaching ``--max-plies``
counts half a point to each. The score printed is A's share of the points with a 95 %
confidence interval (normal approximation over pairs, which removes the openings' own bias from
the error), and A's results as attackers and as defenders.

Node budgets (``--nodes``) make a match reproducible and immune to a busy machine; ``--time``
plays at a time budget and prints the time each version actually used per move. At a node
budget a slower evaluation costs nothing: ``--nodes-a`` gives A a smaller budget to charge it
its time (compare the nodes/s printed for each version). ``--time-a`` gives A other seconds a
move than ``--time``: what a faster A would score, before anyone makes it faster. Level 5
leaves nothing to chance, so two versions from the same opening play the same game every time
(and a version against itself plays the same game twice in a pair); a match of the weaker
levels differs by its seeds. ``--save-games FILE`` writes every game (who attacked, the
opening's length, the moves, the result) as JSON lines, to replay or study the games lost.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from engine import Game, Move, Side

_WORKER = r"""
import json, sys
from engine import Game
from engine.search import choose_move
for line in sys.stdin:
    job = json.loads(line)
    game = Game.from_moves(job["moves"], ruleset=job["ruleset"])
    r = choose_move(game, level=job["level"], nodes=job["nodes"], time_limit=job["time"],
                    seed=job["seed"])
    print(json.dumps({"move": str(r.move), "nodes": r.nodes, "elapsed": r.elapsed,
                      "depth": r.depth}), flush=True)
"""


class Engine:
    """One version of the engine in a worker process, answering moves over a pipe."""

    def __init__(self, checkout: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(checkout)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(checkout),
        )

    def move(self, job: dict[str, object]) -> dict[str, object]:
        """The engine's answer to one position."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("an engine worker stopped")
        answer: dict[str, object] = json.loads(line)
        return answer

    def close(self) -> None:
        """End the worker process."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


@dataclass
class Tally:
    """A's points and the time and nodes each version used."""

    pair_points: list[float] = field(default_factory=list)
    as_attackers: list[float] = field(default_factory=list)
    as_defenders: list[float] = field(default_factory=list)
    unfinished: int = 0
    a_third_repetitions: int = 0
    b_third_repetitions: int = 0
    used: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    nodes: dict[str, list[int]] = field(default_factory=lambda: {"A": [], "B": []})
    depth: dict[str, list[int]] = field(default_factory=lambda: {"A": [], "B": []})
    games: list[dict[str, object]] = field(default_factory=list)
    """Every game played: who attacked, the opening's length, the moves and the result."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def random_opening(ruleset: str, seed: int, low: int = 2, high: int = 4) -> list[str]:
    """From ``low`` to ``high`` random plies from the start of ``ruleset``."""
    rng = random.Random(seed)
    game = Game.from_moves([], ruleset=ruleset)
    for _ in range(rng.randint(low, high)):
        game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
        if game.outcome is not None:
            break
    return [str(record.move) for record in game.records]


def play(
    attackers: tuple[str, Engine],
    defenders: tuple[str, Engine],
    opening: list[str],
    args: argparse.Namespace,
    seed: int,
    tally: Tally,
) -> tuple[Side | None, str]:
    """One game; the winner (``None`` if unfinished) and how it ended."""
    rng = random.Random(seed)
    game = Game.from_moves(opening, ruleset=args.ruleset)
    moves = list(opening)
    while game.outcome is None and game.ply < args.max_plies:
        name, engine = attackers if game.to_move is Side.ATTACKERS else defenders
        answer = engine.move(
            {
                "ruleset": args.ruleset,
                "moves": moves,
                "level": args.level_b if name == "B" and args.level_b else args.level,
                "nodes": _own(name, args.nodes_a, args.nodes),
                "time": _own(name, args.time_a, args.time),
                "seed": rng.randrange(1 << 30),
            }
        )
        text = str(answer["move"])
        game.play(text)
        moves.append(text)
        with tally.lock:
            tally.used[name].append(float(str(answer["elapsed"])))
            tally.nodes[name].append(int(str(answer["nodes"])))
            tally.depth[name].append(int(str(answer["depth"])))
    won = game.outcome.winner if game.outcome else None
    with tally.lock:
        tally.games.append(
            {
                "seed": seed,
                "attackers": attackers[0],
                "defenders": defenders[0],
                "opening": len(opening),
                "moves": moves,
                "winner": won.value if won else None,
                "reason": "unfinished" if game.outcome is None else game.outcome.reason.value,
            }
        )
    if game.outcome is None:
        return None, "unfinished"
    reason = game.outcome.reason.value
    if reason == "repetition":
        loser = attackers[0] if game.outcome.winner is Side.DEFENDERS else defenders[0]
        with tally.lock:
            if loser == "A":
                tally.a_third_repetitions += 1
            else:
                tally.b_third_repetitions += 1
    return game.outcome.winner, reason


T = TypeVar("T")


def _own(name: str, a_value: T | None, value: T) -> T:
    """A version's own budget: ``a_value`` (``--nodes-a``, ``--time-a``) for A when given, else
    the budget both play at."""
    return a_value if name == "A" and a_value else value


def _points(winner: Side | None, side: Side) -> float:
    return 0.5 if winner is None else float(winner is side)


def run_pair(index: int, args: argparse.Namespace, tally: Tally, pool: list[list[Engine]]) -> str:
    """Both games of one opening, A as attackers then as defenders."""
    with tally.lock:
        a, b = pool.pop()
    try:
        low, _, high = args.opening.partition("-")
        opening = random_opening(
            args.ruleset, args.seed * 100_003 + index, int(low), int(high or low)
        )
        game_seed = (args.seed * 100_003 + index) * 2
        w1, r1 = play(("A", a), ("B", b), opening, args, game_seed, tally)
        w2, r2 = play(("B", b), ("A", a), opening, args, game_seed + 1, tally)
    finally:
        with tally.lock:
            pool.append([a, b])
    p1 = _points(w1, Side.ATTACKERS)
    p2 = _points(w2, Side.DEFENDERS)
    with tally.lock:
        tally.as_attackers.append(p1)
        tally.as_defenders.append(p2)
        tally.pair_points.append(p1 + p2)
        tally.unfinished += (w1 is None) + (w2 is None)
    return f"pair {index + 1}: A attacking {p1:g} ({r1}), A defending {p2:g} ({r2})"


def score_line(tally: Tally) -> str:
    """A's score with its 95 % confidence interval."""
    pairs = tally.pair_points
    n = len(pairs)
    games = 2 * n
    points = sum(pairs)
    share = points / games
    mean = points / n
    var = sum((p - mean) ** 2 for p in pairs) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n) / 2 if n > 1 else 0.5
    att = sum(tally.as_attackers)
    dfd = sum(tally.as_defenders)
    return (
        f"A scores {points:g}/{games} = {share:.1%} ± {half:.1%} (95 %); "
        f"as attackers {att:g}/{n}, as defenders {dfd:g}/{n}; "
        f"the attackers (either version) won {att + n - dfd:g}/{games}; "
        f"unfinished {tally.unfinished}; third repetitions made by A {tally.a_third_repetitions}, "
        f"by B {tally.b_third_repetitions}"
    )


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A/B match between two engine checkouts.")
    parser.add_argument("--a", type=Path, default=Path.cwd(), help="checkout of version A")
    parser.add_argument("--b", type=Path, required=True, help="checkout of version B")
    parser.add_argument("--pairs", type=int, default=50, help="openings (two games each)")
    parser.add_argument("--nodes", type=int, default=None, help="node budget a move")
    parser.add_argument(
        "--nodes-a",
        type=int,
        default=None,
        help="A's node budget if not --nodes (to charge a slower evaluation its time)",
    )
    parser.add_argument("--time", type=float, default=None, help="seconds a move")
    parser.add_argument(
        "--time-a",
        type=float,
        default=None,
        help="A's seconds a move if not --time (what a faster engine would buy)",
    )
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument("--level-b", type=int, default=None, help="B's level if not --level")
    parser.add_argument("--ruleset", default="brandubh")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--opening", default="2-4", help="random plies before the engines play: LOW-HIGH or N"
    )
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    parser.add_argument(
        "--save-games", type=Path, default=None, help="write every game's moves here (JSON lines)"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.time_a and not args.time:
        parser.error("--time-a is A's budget beside B's --time; give --time too.")
    if args.nodes is None and args.time is None:
        args.nodes = 10_000
    budget = f"{args.nodes:,} nodes" if args.nodes else f"{args.time:g} s"
    if args.nodes_a:
        budget += f" (A {args.nodes_a:,})"
    if args.time_a and args.time:
        budget += f" (A {args.time_a:g} s)"
    levels = f"level {args.level}"
    if args.level_b:
        levels = f"A level {args.level}, B level {args.level_b} (its share of)"
    print(
        f"A = {args.a}, B = {args.b}: {args.ruleset}, {levels} {budget} a move, "
        f"{args.pairs} pairs of games",
        flush=True,
    )
    tally = Tally()
    pool = [[Engine(args.a), Engine(args.b)] for _ in range(args.jobs)]
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as executor:
            futures = [executor.submit(run_pair, i, args, tally, pool) for i in range(args.pairs)]
            for done, future in enumerate(futures, 1):
                print(future.result(), flush=True)
                if done % 10 == 0 and done < args.pairs:
                    print("  " + score_line(tally), flush=True)
    finally:
        for engines in pool:
            for engine in engines:
                engine.close()
    print(score_line(tally))
    if args.save_games is not None:
        with args.save_games.open("w") as out:
            for record in sorted(tally.games, key=lambda g: int(str(g["seed"]))):
                out.write(json.dumps(record) + "\n")
        print(f"{len(tally.games)} games written to {args.save_games}")
    for name in ("A", "B"):
        used = tally.used[name]
        if used:
            line = (
                f"{name}: {sum(used) / len(used):.3f} s a move on average "
                f"(max {max(used):.3f}), {sum(tally.nodes[name]) / len(used):,.0f} nodes, "
                f"mean depth {sum(tally.depth[name]) / len(used):.1f}, "
                f"{sum(tally.nodes[name]) / max(1e-9, sum(used)):,.0f} nodes/s"
            )
            if args.time:
                allowed = _own(name, args.time_a, args.time)
                line += f"; used/budget {sum(used) / len(used) / allowed:.0%}"
            print(line)


if __name__ == "__main__":
    main()
