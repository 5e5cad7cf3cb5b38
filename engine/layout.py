"""OpenTafl position strings: ``/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/``.

Rows are separated by ``/``, the first row listed is rank 1; ``t`` is an attacker, ``T`` a
defender, ``K`` the king, and a number counts empty squares.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.errors import PositionError
from engine.squares import FILE_LETTERS, Piece, Square, square

_SYMBOLS = {"t": Piece.ATTACKER, "T": Piece.DEFENDER, "K": Piece.KING}


def parse_position(text: str) -> tuple[int, dict[Square, Piece]]:
    """Read an OpenTafl position string into the board size and its pieces.

    A position without a king is the one left after his capture (a finished game).
    """
    body = text.strip()
    if not body.startswith("/") or not body.endswith("/") or len(body) < 3:
        raise PositionError(f"'{text}' is not an OpenTafl position: it must start and end with /.")
    rows = body[1:-1].split("/")
    size = len(rows)
    if size > len(FILE_LETTERS):
        raise PositionError(f"A board of {size} rows is larger than 15x15.")
    pieces: dict[Square, Piece] = {}
    for rank, row in enumerate(rows):
        file = 0
        digits = ""
        for char in row + "\0":
            if char.isdigit():
                digits += char
                continue
            if digits:
                file += int(digits)
                digits = ""
            if char == "\0":
                break
            if char not in _SYMBOLS:
                raise PositionError(
                    f"Row {rank + 1} of the position has '{char}': "
                    "only t, T, K and digits are allowed."
                )
            if file < size:
                pieces[square(file, rank)] = _SYMBOLS[char]
            file += 1
        if file != size:
            raise PositionError(
                f"Row {rank + 1} of the position describes {file} squares, not {size}."
            )
    kings = [sq for sq, piece in pieces.items() if piece is Piece.KING]
    if len(kings) > 1:
        raise PositionError(f"A position has at most one king, not {len(kings)}.")
    return size, pieces


def format_position(size: int, pieces: Mapping[Square, Piece]) -> str:
    """Write ``pieces`` on a ``size`` x ``size`` board as an OpenTafl position string."""
    rows = []
    for rank in range(size):
        row = ""
        empty = 0
        for file in range(size):
            piece = pieces.get(square(file, rank))
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += piece.symbol
        if empty:
            row += str(empty)
        rows.append(row)
    return "/" + "/".join(rows) + "/"
