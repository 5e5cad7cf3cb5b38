"""The engine's exceptions: their messages are sentences a player can read.

An :class:`IllegalMoveError` keeps its sentence as a template and its parameters
(``error.template``, ``error.params``) besides the English ``str()``, so a caller can show it in
another language: the templates are marked with ``N_`` (``engine.translation``), which the
bot's message catalogs extract (README, "Languages").
"""

from __future__ import annotations

from engine.translation import N_

ECHO_LIMIT = 24
"""At most this many characters of what a player typed are repeated in a sentence."""


class Echo(str):
    """What a player typed, repeated in a sentence (made by :func:`echoed`). It is plain text
    to show as it was typed: where a sentence is shown as markup (Discord's Markdown), the
    caller escapes it, so ``**a4**`` is not shown as a bold a4."""

    __slots__ = ()


def echoed(text: str) -> Echo:
    """What a player typed, as a sentence repeats it: stripped, and cut with "…" past
    :data:`ECHO_LIMIT` characters (a refusal stays one short line, however long the input)."""
    text = text.strip()
    return Echo(text if len(text) <= ECHO_LIMIT else text[: ECHO_LIMIT - 1].rstrip() + "…")


class IllegalMoveError(ValueError):
    """A move that cannot be played here; the message names the square or the rule.

    ``IllegalMoveError(N_("There is no piece on {square}."), square="c1")``: ``str()`` is the
    English sentence, ``template`` and ``params`` let it be said in another language.
    """

    def __init__(self, template: str, /, **params: str | int) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params))


class InvalidMoveError(IllegalMoveError):
    """Text that is not a move at all (a typo, or a square beyond the board), whatever the
    position; the message says how to write one. Catching :class:`IllegalMoveError` catches it
    too."""


class PositionError(ValueError):
    """A position or game record that cannot be read; the message says where."""


class UnknownRulesetError(ValueError):
    """A ruleset name that is not one of the presets."""


__all__ = [
    "ECHO_LIMIT",
    "N_",
    "Echo",
    "IllegalMoveError",
    "InvalidMoveError",
    "PositionError",
    "UnknownRulesetError",
    "echoed",
]
