"""The engine's exceptions: their messages are sentences a player can read."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """A move that cannot be played here; the message names the square or the rule."""


class InvalidMoveError(IllegalMoveError):
    """Text that is not a move at all (a typo, or a square beyond the board), whatever the
    position; the message says how to write one. Catching :class:`IllegalMoveError` catches it
    too."""


class PositionError(ValueError):
    """A position or game record that cannot be read; the message says where."""


class UnknownRulesetError(ValueError):
    """A ruleset name that is not one of the presets."""
