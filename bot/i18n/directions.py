"""Text a player wrote right to left (Hebrew, Arabic…) inside the bot's sentences: isolated, so
that neither turns the other around.

A name or an echoed input written right to left would pull the punctuation after it into its
direction (``'שלום' is not a move`` reads with the quote on the wrong side), and a direction
control in it (U+202E, the right-to-left override) would turn the rest of the line. Such text
loses its direction controls and is set between U+2068 (first strong isolate) and U+2069 (pop
directional isolate), as Unicode's bidirectional algorithm advises for text of unknown
direction.

This module imports neither Discord nor Babel.
"""

from __future__ import annotations

import unicodedata

_RIGHT_TO_LEFT = frozenset({"R", "AL"})
"""Bidirectional classes of the letters written right to left (Hebrew, Arabic…), which would
pull the punctuation after the text into their direction."""

FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


_DIRECTION_CONTROLS = dict.fromkeys(
    map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)
"""Embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): taken out of what a player
wrote, so it cannot close the isolate around it early and turn the rest of the line."""


def without_direction_controls(text: str) -> str:
    """``text`` without embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)."""
    return text.translate(_DIRECTION_CONTROLS)


def isolated(text: str) -> str:
    """``text`` (without direction controls: :func:`without_direction_controls`) between U+2068
    and U+2069 if any of its letters is written right to left, else as it is."""
    if any(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT for char in text):
        return f"{FIRST_STRONG_ISOLATE}{text}{POP_DIRECTIONAL_ISOLATE}"
    return text


__all__ = [
    "FIRST_STRONG_ISOLATE",
    "POP_DIRECTIONAL_ISOLATE",
    "isolated",
    "without_direction_controls",
]
