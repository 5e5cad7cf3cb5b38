"""Moves and move records, and the lenient way people type moves."""

from __future__ import annotations

import re
from typing import NamedTuple

from engine.errors import N_, IllegalMoveError
from engine.squares import MAX_SIZE, Piece, Side, Square, parse_square, square_name

_MOVE = re.compile(
    r"""^\s*k?\s*
        (?P<from>[a-o]\d{1,2})
        (?:\s*(?:-|\u2013|\u2014|>|to)\s*|\s+)?    # d1-d3, d1–d3, d1—d3, d1>d3, d1 to d3, d1 d3
        (?P<to>[a-o]\d{1,2})
        \s*(?:x\s*[a-o0-9/,\s]*)?   # capture suffix, e.g. xd4 or xa5/c5: ignored
        [+\-#]*\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


DESTINATION = re.compile(r"^\s*(?P<to>[a-o]\d{1,2})\s*$", re.IGNORECASE)
"""A destination square alone (``b5``), which names a move when one piece can go there."""


class Move(NamedTuple):
    """A move from one square to another; ``str(move)`` is ``d1-d3``."""

    from_square: Square
    to_square: Square

    def __str__(self) -> str:
        return f"{square_name(self.from_square)}-{square_name(self.to_square)}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str, size: int = MAX_SIZE) -> Move:
        """Read ``d1-d3``, ``d1d3``, ``d1 d3``, ``d1 to d3``, ``d1>d3``, ``d1–d3`` (en or em
        dash) or ``D1-D3``; a capture suffix ``xd4`` is ignored."""
        match = _MOVE.match(text)
        if match is None:
            raise IllegalMoveError(
                N_(
                    "'{text}' is not a move: write the piece's square and where it goes, like "
                    "d1-d3."
                ),
                text=text.strip(),
            )
        return cls(parse_square(match["from"], size), parse_square(match["to"], size))

    @property
    def code(self) -> int:
        """The board's int for this move."""
        return self.from_square << 8 | self.to_square

    @classmethod
    def from_code(cls, code: int) -> Move:
        """The move for a board int."""
        return cls(code >> 8, code & 255)


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
