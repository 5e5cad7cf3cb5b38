"""The engine's exceptions: their messages are sentences a player can read."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """A move that cannot be played here; the message names the square or the rule."""


class PositionError(ValueError):
    """A position or game record that cannot be read; the message says where."""


class UnknownRulesetError(ValueError):
    """A ruleset name that is not one of the presets."""
