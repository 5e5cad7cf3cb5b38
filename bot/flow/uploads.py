"""Pictures that fit in one message.

Discord refuses a message whose files pass the server's upload limit (10 MiB without boosts;
each interaction says how much, ``Interaction.filesize_limit``) with 413, and the whole post
is lost. A replay GIF grows with its game: a long game on 15x15 can pass the limit. Before
posting, the pictures are drawn again smaller, the largest first, and if that is not enough
the largest are left out (the message says so; the game's record has every move).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

MESSAGE_OVERHEAD = 64 * 1024
"""Bytes kept free of pictures in a message: its text, the other files' names and
descriptions, the multipart request's own framing."""

ATTACHMENTS_PER_MESSAGE = 10
"""Discord's most files in one message."""

SMALL_WIDTH = 360
"""The width a picture is drawn again at when the pictures are too large together (a
phone's width: still readable)."""

Draw = Callable[[int | None], bytes]
"""Draws one picture: at its own width (None) or at the width given."""


def fit_pictures(draws: Sequence[Draw], budget: int) -> list[bytes | None]:
    """Each of ``draws``' pictures, together at most ``budget`` bytes: drawn at their own
    width; while too large, the largest drawn again at ``SMALL_WIDTH``; then the largest left
    out (None) until the rest fit. Slow (it draws): call it in a worker thread."""
    pictures: list[bytes | None] = [draw(None) for draw in draws]
    for index in _largest_first(pictures):
        if _total(pictures) <= budget:
            return pictures
        pictures[index] = draws[index](SMALL_WIDTH)
    for index in _largest_first(pictures):
        if _total(pictures) <= budget:
            break
        pictures[index] = None
    return pictures


def picture_budget(limit: int, *others: bytes) -> int:
    """How many bytes a message's pictures may take under the upload ``limit``, beside the
    ``others`` files it carries."""
    return limit - MESSAGE_OVERHEAD - sum(len(other) for other in others)


def _largest_first(pictures: Sequence[bytes | None]) -> list[int]:
    return sorted(range(len(pictures)), key=lambda index: -len(pictures[index] or b""))


def _total(pictures: Sequence[bytes | None]) -> int:
    return sum(len(picture or b"") for picture in pictures)
