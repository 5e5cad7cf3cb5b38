"""Write the opening book (``engine/opening_book.txt``) by deep searches of the first plies.

Run from the repository root (about 5 minutes on one core at the default budget)::

    nice -n 10 .venv/bin/python -m benchmarks.opening_book
    .venv/bin/python -m benchmarks.opening_book --nodes 200000 --out /tmp/book.txt  # quicker

Which positions: for the attackers, the start and every position after the book's first move
and any defenders' reply (plies 0 and 2, ``--attacker-plies 3``); for the defenders, every
position after any first move of the attackers (ply 1, ``--defender-plies 2``). Each is
searched by level 5 with ``--nodes`` positions (deterministic: the same command writes the same
book), ignoring any book already written. The boards of the presets are symmetric under the
eight rotations and reflections of the square, so a position is searched once and its answer
stored for each of its images (a symmetry is used only when it maps the start position onto
itself). The figures printed are the positions searched, the depth reached and the time taken.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from engine import Game, Side, square_name
from engine.board import Board
from engine.book import BOOK_FILE, position_key
from engine.rules import get_ruleset
from engine.search import choose_move
from engine.squares import Piece, Square, square

Transform = Callable[[Square], Square]


def symmetries(size: int) -> list[Transform]:
    """The eight rotations and reflections of a ``size`` x ``size`` board, on squares."""
    last = size - 1

    def make(swap: bool, flip_file: bool, flip_rank: bool) -> Transform:
        def transform(sq: Square) -> Square:
            f, r = sq & 15, sq >> 4
            if swap:
                f, r = r, f
            if flip_file:
                f = last - f
            if flip_rank:
                r = last - r
            return square(f, r)

        return transform

    return [make(s, ff, fr) for s in (False, True) for ff in (False, True) for fr in (False, True)]


def _image(board: Board, transform: Transform) -> Board:
    pieces: dict[Square, Piece] = {transform(sq): p for sq, p in board.pieces().items()}
    return Board(board.rules, pieces, board.to_move)


def _move_text(move: int) -> str:
    return f"{square_name(move >> 8)}-{square_name(move & 255)}"


class BookWriter:
    """Searches the book's positions and keeps their answers with their symmetric images."""

    def __init__(self, ruleset: str, nodes: int) -> None:
        self.ruleset = ruleset
        self.nodes = nodes
        rules = get_ruleset(ruleset)
        start = Game(ruleset).board
        start_pieces = start.pieces()
        self.transforms = [
            t
            for t in symmetries(rules.size)
            if {t(sq): p for sq, p in start_pieces.items()} == start_pieces
        ]
        self.entries: dict[tuple[str, str, str], tuple[str, int, int]] = {}
        self.searched = 0
        self.depths: list[int] = []
        self.seconds = 0.0

    def answer(self, game: Game) -> str:
        """The book's move for the game's position, searching it first if it is new."""
        key = position_key(game.board)
        if key not in self.entries:
            result = choose_move(game, level=5, nodes=self.nodes, book=False)
            self.searched += 1
            self.depths.append(result.depth)
            self.seconds += result.elapsed
            code = result.move.code
            for t in self.transforms:
                image = position_key(_image(game.board, t))
                move = t(code >> 8) << 8 | t(code & 255)
                self.entries.setdefault(image, (_move_text(move), result.score, result.depth))
            print(
                f"  {' '.join(str(r.move) for r in game.records) or 'start'}: {result.move} "
                f"(score {result.score}, depth {result.depth}, {result.elapsed:.1f} s)",
                flush=True,
            )
        return self.entries[key][0]

    def visit(self, game: Game, book_side: Side, plies: int) -> None:
        """Cover every position of the first ``plies`` plies where ``book_side`` follows the
        book and the other side plays anything."""
        if game.outcome is not None or game.ply >= plies:
            return
        if game.to_move is book_side:
            moves = [self.answer(game)]
        else:
            moves = [str(m) for m in game.legal_moves()]
        for move in moves:
            game.play(move)
            self.visit(game, book_side, plies)
            game.undo()

    def lines(self) -> list[str]:
        """The book file's entry lines, sorted."""
        return sorted(
            "\t".join((*key, move, str(score), str(depth)))
            for key, (move, score, depth) in self.entries.items()
        )


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the opening book by deep searches.")
    parser.add_argument("--ruleset", action="append", help="default: brandubh")
    parser.add_argument("--nodes", type=int, default=1_000_000, help="node budget a position")
    parser.add_argument("--attacker-plies", type=int, default=3)
    parser.add_argument("--defender-plies", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("engine") / BOOK_FILE)
    args = parser.parse_args(list(argv) if argv is not None else None)
    rulesets = args.ruleset or ["brandubh"]
    lines: list[str] = []
    began = time.perf_counter()
    for ruleset in rulesets:
        writer = BookWriter(ruleset, args.nodes)
        print(f"{ruleset}: the attackers' book", flush=True)
        writer.visit(Game(ruleset), Side.ATTACKERS, args.attacker_plies)
        print(f"{ruleset}: the defenders' book", flush=True)
        writer.visit(Game(ruleset), Side.DEFENDERS, args.defender_plies)
        lines += writer.lines()
        mean_depth = sum(writer.depths) / max(1, len(writer.depths))
        print(
            f"{ruleset}: {writer.searched} positions searched at {args.nodes:,} nodes "
            f"(mean depth {mean_depth:.1f}, {writer.seconds:.0f} s), "
            f"{len(writer.entries)} entries with their symmetric images",
            flush=True,
        )
    header = [
        "# The opening book of the computer opponent (levels 4 and 5), written by",
        f"# python -m benchmarks.opening_book --nodes {args.nodes} "
        f"--attacker-plies {args.attacker_plies} --defender-plies {args.defender_plies}"
        + "".join(f" --ruleset {r}" for r in rulesets),
        "# ruleset, position (OpenTafl), side to move, move, score for the mover, depth searched",
    ]
    args.out.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} entries written to {args.out} in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
