"""Generate the puzzle bank: ``python -m benchmarks.generate_puzzles`` (prints its rate).

Source positions come from the computer's games against itself (levels 2 to 5 with chance, from
random openings, so that both sides make the mistakes puzzles are made of) and, with
``--records``, from finished server games exported with ``/export`` (OpenTafl records, one or
more per file). From every decided game the last positions before its end are tried: each is
kept when :func:`engine.puzzles.find_puzzle` proves a unique forced win in 1 to 4 moves. The
bank (``bot/data/puzzles.txt``) keeps what it had and adds the new puzzles, sorted by rating;
``--check`` proves every puzzle of the bank again instead (a puzzle that fails is reported).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from pathlib import Path

from engine import Game, Move, read_record, split_records
from engine.puzzles import MAX_MOVES, Puzzle, TooHard, find_puzzle, verify
from engine.search import choose_move

BANK = Path(__file__).resolve().parent.parent / "bot" / "data" / "puzzles.txt"
HEADER = """\
# Brandubh puzzles: a unique forced win in 1 to 4 moves for the side to move, each proven by
# engine.puzzles (the win and that no other first move reaches it as fast).
# Regenerate or extend: python -m benchmarks.generate_puzzles [--games N] [--records FILE...]
# Check every puzzle again: python -m benchmarks.generate_puzzles --check
# Fields: id ruleset side-to-move win-in rating tempting-alternatives position solution...
"""
TAIL = 2 * MAX_MOVES + 1
"""How many positions before a game's end are tried."""


def self_play(seed: int, nodes: int, max_plies: int = 160) -> Game:
    """A game of the computer against itself at chance-playing levels."""
    rng = random.Random(seed)
    game = Game()
    for _ in range(rng.randint(2, 6)):
        game.play(str(Move.from_code(rng.choice(sorted(game.board.moves())))))
    while game.outcome is None and game.ply < max_plies:
        level = rng.choice((2, 3, 4, 5))
        game.play(choose_move(game, level=level, nodes=nodes, seed=rng.randrange(2**31)).move)
    return game


def candidates(game: Game) -> list[Game]:
    """The positions of the last plies of a decided game."""
    if game.outcome is None or game.outcome.winner is None:
        return []
    replay = Game.from_position(game.starting_position, game.starting_side, game.ruleset)
    out = []
    for index, record in enumerate(game.records):
        if index >= len(game.records) - TAIL:
            out.append(replay.copy())
        replay.play(record.move)
    return out


def puzzles_of(game: Game, node_limit: int) -> tuple[list[Puzzle], int, int]:
    """The puzzles among a game's last positions; also positions tried and given up."""
    found = []
    tried = hard = 0
    for position in candidates(game):
        tried += 1
        try:
            puzzle = find_puzzle(position, node_limit=node_limit)
        except TooHard:
            hard += 1
            continue
        if puzzle is not None:
            found.append(puzzle)
    return found, tried, hard


def _from_self_play(args: tuple[int, int, int]) -> tuple[list[Puzzle], int, int]:
    seed, nodes, node_limit = args
    return puzzles_of(self_play(seed, nodes), node_limit)


def read_bank(path: Path = BANK) -> list[Puzzle]:
    """The puzzles of a bank file."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [Puzzle.parse(line) for line in lines if line.strip() and not line.startswith("#")]


def write_bank(puzzles: list[Puzzle], path: Path = BANK) -> None:
    """Write the bank, sorted by rating then id."""
    ordered = sorted(puzzles, key=lambda p: (p.rating, p.puzzle_id))
    path.write_text(HEADER + "".join(f"{p}\n" for p in ordered))


def main() -> None:
    """Generate (or check) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="self-play games to mine")
    parser.add_argument("--nodes", type=int, default=3000, help="search budget a self-play move")
    parser.add_argument("--node-limit", type=int, default=200_000, help="per proof")
    parser.add_argument("--records", nargs="*", default=[], help="OpenTafl record files")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bank", type=Path, default=BANK)
    parser.add_argument("--check", action="store_true", help="prove the bank's puzzles again")
    args = parser.parse_args()
    bank = read_bank(args.bank)
    if args.check:
        started = time.perf_counter()
        failures = [reason for reason in map(verify, bank) if reason is not None]
        for reason in failures:
            print(reason)
        print(
            f"{len(bank) - len(failures)} of {len(bank)} puzzles proven again in "
            f"{time.perf_counter() - started:.1f} s"
        )
        raise SystemExit(1 if failures else 0)
    started = time.perf_counter()
    jobs = [(args.seed * 100_000 + i, args.nodes, args.node_limit) for i in range(args.games)]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(_from_self_play, jobs)
    for name in args.records:
        for text in split_records(Path(name).read_text()):
            results.append(puzzles_of(read_record(text), args.node_limit))
    seconds = time.perf_counter() - started
    known = {p.puzzle_id: p for p in bank}
    new = 0
    for found, _, _ in results:
        for puzzle in found:
            if puzzle.puzzle_id not in known:
                known[puzzle.puzzle_id] = puzzle
                new += 1
    tried = sum(t for _, t, _ in results)
    hard = sum(h for _, _, h in results)
    write_bank(list(known.values()), args.bank)
    depths = sorted(p.moves for p in known.values())
    spread = ", ".join(f"{depths.count(n)} in {n}" for n in range(1, MAX_MOVES + 1))
    print(
        f"{len(results)} games, {tried:,} positions tried ({hard} too hard to prove), "
        f"{new} new puzzles in {seconds:.0f} s: {new / seconds * 60:.1f} puzzles a minute, "
        f"{tried / seconds:.1f} positions a second"
    )
    print(f"bank {args.bank.name}: {len(known)} puzzles (wins {spread})")


if __name__ == "__main__":
    main()
