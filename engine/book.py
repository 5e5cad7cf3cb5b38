"""The opening book: moves the engine chose for the first plies by searching them deeply.

``engine/opening_book.txt`` is written by ``python -m benchmarks.opening_book`` (see its
docstring for how the positions are chosen and how deep each was searched). Each line is one
position and the move to play in it::

    brandubh <TAB> /3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/ <TAB> attackers <TAB> d2-f2 <TAB> 575 <TAB> 7

(ruleset, OpenTafl position, side to move, move, score for the mover, depth searched). A
position is found whatever moves led to it. Only the strongest levels consult the book
(:data:`engine.search.LEVELS`); the weaker ones would play its moves too well for their level.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from engine.board import ATTACKER, Board
from engine.layout import format_position
from engine.squares import parse_square

BOOK_FILE = "opening_book.txt"
_DEEPEST_PLY = 8
"""Past this many moves of a game the book is not looked at (it covers the first few)."""


@dataclass(frozen=True)
class BookMove:
    """One entry of the book: the move (the board's int), its score and the depth behind it."""

    move: int
    score: int
    depth: int


def position_key(board: Board) -> tuple[str, str, str]:
    """What the book is keyed by: ruleset name, OpenTafl position and side to move."""
    side = "attackers" if board.turn == ATTACKER else "defenders"
    return board.rules.name, format_position(board.rules.size, board.pieces()), side


def parse_book(text: str) -> dict[tuple[str, str, str], tuple[str, int, int]]:
    """The entries of a book file's text: key to ``(move text, score, depth)``.

    Blank lines and lines starting with ``#`` are ignored.
    """
    entries: dict[tuple[str, str, str], tuple[str, int, int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6:
            raise ValueError(f"Line {number} of the opening book has {len(fields)} fields, not 6.")
        ruleset, position, side, move, score, depth = fields
        entries[(ruleset, position, side)] = (move, int(score), int(depth))
    return entries


@functools.cache
def _book() -> dict[tuple[str, str, str], tuple[str, int, int]]:
    path = resources.files("engine").joinpath(BOOK_FILE)
    if not path.is_file():
        return {}
    return parse_book(path.read_text(encoding="utf-8"))


def book_entries() -> dict[tuple[str, str, str], tuple[str, int, int]]:
    """Every entry of the shipped book (empty when the file is missing)."""
    return dict(_book())


def book_move(board: Board) -> BookMove | None:
    """The book's move for ``board``, if the position is in it and the move is legal there and
    does not repeat a position for the third time (the book knows positions, not histories)."""
    if board.outcome is not None or len(board.stack) > _DEEPEST_PLY:
        return None
    book = _book()
    if not book:
        return None
    entry = book.get(position_key(board))
    if entry is None:
        return None
    text, score, depth = entry
    origin, _, target = text.partition("-")
    size = board.rules.size
    move = parse_square(origin, size) << 8 | parse_square(target, size)
    if move not in board.moves() or board.repetitions_after(move) >= 3:
        return None
    return BookMove(move, score, depth)
