"""Moves and move records, and the lenient way people type moves."""

from __future__ import annotations

import re
from typing import NamedTuple

from engine.errors import N_, InvalidMoveError, echoed
from engine.squares import MAX_SIZE, Piece, Side, Square, as_typed, parse_square, square_name

DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d"
"""Every dash a keyboard or a phone may type between two squares: the hyphen-minus, the
hyphens, the figure, en and em dashes, the minus sign and the small and full-width
hyphen-minus."""

ARROWS = ">\u2192"
"""The arrows read between two squares, alone or after a dash: ``d1>d3``, ``d1->d3``, ``d1→d3``
(the arrow a phone may make of ``->``)."""

_MOVE = re.compile(
    r"""^\s*k?\s*
        (?P<from>[a-z]\d{1,2})
        (?:\s*(?:["""
    + DASHES
    + r"""]?["""
    + ARROWS
    + r"""]|["""
    + DASHES
    + r"""]|to)\s*|\s+)?    # d1-d3, d1–d3, d1−d3, d1>d3, d1->d3, d1→d3, d1 to d3, d1 d3
        (?P<to>[a-z]\d{1,2})
        \s*(?:x\s*[a-o0-9/,\s]*)?   # capture suffix, e.g. xd4 or xa5/c5: ignored
        [+\-#]*\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


DESTINATION = re.compile(r"^\s*(?P<to>[a-z]\d{1,2})\s*$", re.IGNORECASE)
"""A destination square alone (``b5``), which names a move when one piece can go there.

Here and in a move any letter is read as a file, so that a square past the board's last file
(``p8`` on 15x15) is refused by :func:`parse_square` naming it and the board's range."""


_GRID = 256
"""Squares are ``rank * 16 + file`` below this on every board; moves between them are interned."""


class Move:
    """A move from one square to another, as a value: ``str(move)`` is ``d1-d3``.

    Two moves are equal when they join the same squares; a move is never equal to a tuple.
    Moves are immutable and interned: ``Move(a, b)`` between squares of any board returns the
    one object for that move, so listing legal moves creates nothing.

    >>> move = Move.parse("D1 to D3")
    >>> move, str(move)
    (Move.parse('d1-d3'), 'd1-d3')
    >>> move is Move(move.from_square, move.to_square), move == Move.from_code(move.code)
    (True, True)
    >>> move == (move.from_square, move.to_square)
    False
    """

    __slots__ = ("code", "from_square", "to_square")

    from_square: Square
    to_square: Square
    code: int
    """The board's int, ``from_square << 8 | to_square`` (``-1`` for squares beyond any board)."""

    def __new__(cls, from_square: Square, to_square: Square) -> Move:
        if 0 <= from_square < _GRID and 0 <= to_square < _GRID:
            return _INTERNED[from_square << 8 | to_square]
        return _new_move(from_square, to_square, -1)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Move cannot change: {name} is fixed")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Move cannot change: {name} is fixed")

    def __reduce__(self) -> tuple[type[Move], tuple[Square, Square]]:
        return Move, (self.from_square, self.to_square)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.from_square == other.from_square and self.to_square == other.to_square
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.from_square, self.to_square))

    def _key(self) -> tuple[Square, Square]:
        return self.from_square, self.to_square

    def __lt__(self, other: Move) -> bool:
        return self._key() < other._key()

    def __le__(self, other: Move) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: Move) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: Move) -> bool:
        return self._key() >= other._key()

    def __str__(self) -> str:
        return f"{square_label(self.from_square)}-{square_label(self.to_square)}"

    def __repr__(self) -> str:
        if _nameable(self.from_square) and _nameable(self.to_square):
            return f"Move.parse({str(self)!r})"
        return f"Move({self.from_square}, {self.to_square})"

    @classmethod
    def parse(cls, text: str, size: int = MAX_SIZE, *, example: str = "d1-c1") -> Move:
        """Read ``d1-d3``, ``d1d3``, ``d1 d3``, ``d1 to d3``, ``d1>d3``, ``d1->d3``, ``d1→d3``,
        ``d1–d3`` (en or em dash) or ``D1-D3``, in full-width characters too; a capture suffix
        ``xd4`` is ignored.

        Text that is not a move on a ``size`` board raises :class:`InvalidMoveError`, showing
        ``example`` as a move to write (a game gives one of its own ruleset's).
        """
        match = _MOVE.match(as_typed(text))
        if match is None:
            raise InvalidMoveError(
                N_(
                    "'{text}' is not a move: write the piece's square and where it goes, like "
                    "{example}."
                ),
                text=echoed(text),
                example=example,
            )
        return cls(parse_square(match["from"], size), parse_square(match["to"], size))

    @classmethod
    def from_code(cls, code: int) -> Move:
        """The move for a board int."""
        if not 0 <= code < _GRID * _GRID:
            raise ValueError(f"{code} is not a move code")
        return _INTERNED[code]


def _new_move(from_square: Square, to_square: Square, code: int) -> Move:
    move = object.__new__(Move)
    object.__setattr__(move, "from_square", from_square)
    object.__setattr__(move, "to_square", to_square)
    object.__setattr__(move, "code", code)
    return move


class _Interned(dict[int, Move]):
    """The one :class:`Move` per board int, made on first use."""

    def __missing__(self, code: int) -> Move:
        move = self[code] = _new_move(code >> 8, code & 255, code)
        return move


_INTERNED = _Interned()
move_for_code = _INTERNED.__getitem__
"""The interned move for a board int (no range check: for codes the board made)."""


def _nameable(sq: Square) -> bool:
    return 0 <= sq < _GRID and (sq & 15) < MAX_SIZE and (sq >> 4) < MAX_SIZE


def square_label(sq: Square) -> str:
    """The square's name (``d4``), or its number when it lies beyond every board (``256``)."""
    return square_name(sq) if _nameable(sq) else str(sq)


class MoveRecord(NamedTuple):
    """A move as it was played: who moved what, and what it captured."""

    ply: int
    """0 for the first move of the game."""
    side: Side
    piece: Piece
    move: Move
    captures: tuple[Square, ...]

    @property
    def move_number(self) -> int:
        """The turn number as game records count it: 1 for the first two plies."""
        return self.ply // 2 + 1

    def __str__(self) -> str:
        """OpenTafl notation: ``d6-a6``, or ``d6-a6xa5/c5`` with captures."""
        text = str(self.move)
        if self.captures:
            text += "x" + "/".join(square_name(sq) for sq in self.captures)
        return text
