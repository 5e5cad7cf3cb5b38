"""Players' names as the bot shows them: never as Markdown, never as a mention, never turning
the rest of the line around."""

from __future__ import annotations

import unicodedata

import discord

_RIGHT_TO_LEFT = frozenset(
    {"R", "AL", "RLE", "RLO", "LRE", "LRO", "RLI", "LRI", "FSI", "PDF", "PDI"}
)
"""Bidirectional classes of the characters that can change the direction of what follows."""

FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


def escaped(name: str) -> str:
    """A display name safe to show in a message: its Markdown and mentions are inert, and a
    name written right to left (or holding direction controls, such as U+202E) is isolated,
    so the sentence around it keeps its own direction."""
    safe = discord.utils.escape_mentions(discord.utils.escape_markdown(name))
    if any(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT for char in safe):
        return f"{FIRST_STRONG_ISOLATE}{safe}{POP_DIRECTIONAL_ISOLATE}"
    return safe
