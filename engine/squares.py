"""Squares, sides and pieces: the small values every other module speaks in.

A square is an ``int``: ``rank * 16 + file`` with file ``a`` = 0 and rank ``1`` = 0, so ``d4`` is
``3 * 16 + 3``. The encoding is the same for every board size up to 15x15, which lets
:func:`square_name` name any square without knowing the board.
"""

from __future__ import annotations

import enum
import unicodedata
from typing import TypeAlias

from engine.errors import N_, InvalidMoveError, echoed

Square: TypeAlias = int

FILE_LETTERS = "abcdefghijklmno"
MAX_SIZE = 15


def square(file: int, rank: int) -> Square:
    """The square on ``file`` and ``rank``, both counted from 0 (``square(3, 3)`` is d4)."""
    return rank * 16 + file


def square_file(sq: Square) -> int:
    """The file of ``sq``, 0 for ``a``."""
    return sq & 15


def square_rank(sq: Square) -> int:
    """The rank of ``sq``, 0 for rank ``1``."""
    return sq >> 4


def square_name(sq: Square) -> str:
    """The name of a square as players write it: ``square_name(square(3, 3)) == "d4"``."""
    return f"{FILE_LETTERS[sq & 15]}{(sq >> 4) + 1}"


LOOK_ALIKES = str.maketrans(
    # Cyrillic асеоіјһ АВСЕНІЈКМО, then Greek ο ΑΒΕΗΙΚΜΝΟ
    "асеоіјһАВСЕНІЈКМОοΑΒΕΗΙΚΜΝΟ",
    "aceoijhABCEHIJKMOoABEHIKMNO",
)
"""Cyrillic and Greek letters drawn as the Latin file letters ``a``–``o`` are (Cyrillic ``а``,
``с``, ``е``, Greek omicron ``ο``, capital alpha ``Α``…), as a keyboard left in another script
types them: read as those letters. Only true look-alikes: Greek ``α`` or ``κ``, drawn apart
from ``a`` and ``k``, are not."""


def as_typed(text: str) -> str:
    """``text`` as a plain keyboard types it: a full-width keyboard's letters, digits and dashes
    (``ｄ１－ｄ３``, as a Chinese or Japanese phone may write them) read as ``d1-d3``, so do
    other scripts' digits (``d١-d٣``, Arabic-Indic, as an Arabic or Persian keyboard types
    them) and the Cyrillic and Greek letters that look like Latin ones (``с1-с3``, a Cyrillic
    ``с``: :data:`LOOK_ALIKES`), and the invisible characters a pasted move may carry (a
    zero-width space, a word joiner, a byte order mark, a soft hyphen: Unicode's format
    characters) are left out."""
    normal = unicodedata.normalize("NFKC", text)
    if normal.isascii():
        return normal
    return "".join(
        str(unicodedata.decimal(ch)) if ch.isdecimal() else ch
        for ch in normal.translate(LOOK_ALIKES)
        if unicodedata.category(ch) != "Cf"
    )


def parse_square(text: str, size: int = MAX_SIZE) -> Square:
    """Read a square name such as ``d4`` (either case, full-width too), else raise
    ``InvalidMoveError``."""
    name = as_typed(text).strip().lower()
    if len(name) < 2 or not "a" <= name[0] <= "z" or not name[1:].isdecimal():
        raise InvalidMoveError(
            N_("'{text}' is not a square: write a file letter and a rank, like d4."),
            text=echoed(text),
        )
    file = ord(name[0]) - ord("a")  # past the board's last file (p8 on 15x15): named below
    rank = int(name[1:]) - 1
    if file >= size or not 0 <= rank < size:
        last = f"{FILE_LETTERS[size - 1]}{size}"
        raise InvalidMoveError(
            N_("{square} is not on the {size}x{size} board (a1 to {last})."),
            square=name,
            size=size,
            last=last,
        )
    return square(file, rank)


class Side(enum.Enum):
    """The two sides of a tafl game."""

    ATTACKERS = "attackers"
    DEFENDERS = "defenders"

    @property
    def opponent(self) -> Side:
        """The other side."""
        return Side.DEFENDERS if self is Side.ATTACKERS else Side.ATTACKERS

    def __str__(self) -> str:
        return self.value


class Piece(enum.IntEnum):
    """What can stand on a square. The integer values are the engine's board cells."""

    ATTACKER = 1
    DEFENDER = 2
    KING = 3

    @property
    def side(self) -> Side:
        """The side this piece plays for."""
        return Side.ATTACKERS if self is Piece.ATTACKER else Side.DEFENDERS

    @property
    def symbol(self) -> str:
        """The OpenTafl letter: ``t`` attacker, ``T`` defender, ``K`` king."""
        return "tTK"[self - 1]

    def __str__(self) -> str:
        return self.name.lower()
