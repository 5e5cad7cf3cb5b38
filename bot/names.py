"""Players' names as the bot shows them: never as Markdown, never as a mention, never turning
the rest of the line around."""

from __future__ import annotations

import re
import unicodedata

import discord

_RIGHT_TO_LEFT = frozenset({"R", "AL"})
"""Bidirectional classes of the letters written right to left (Hebrew, Arabic…), which would
pull the punctuation after a name into their direction."""

FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


_DIRECTION_CONTROLS = dict.fromkeys(
    map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)
"""Embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): taken out of names, so a
name cannot close the isolate around it early and turn the rest of the line."""


ZERO_WIDTH_SPACE = "\u200b"

_MARKUP = re.compile(r"(?<=<)(?=[#/:]|a:|t:|id:)|(?<=:)(?=//)")
"""Where Discord reads more than text in a message: the ``<`` of a channel, command, emoji,
timestamp or server guide mention (``<#123…>``, ``</move:123…>``, ``<t:…>``), and the ``//``
after a link's scheme (``https://…``, linked and previewed). A zero-width space there leaves
the name as it reads and makes it plain text."""


def escaped(name: str) -> str:
    """A display name safe to show in a message: its Markdown, mentions, links and other
    Discord markup are inert, its direction controls (such as U+202E) are taken out, and a
    name written right to left is isolated, so the sentence around it keeps its own
    direction."""
    name = without_direction_controls(name)
    safe = discord.utils.escape_mentions(discord.utils.escape_markdown(name))
    safe = _MARKUP.sub(ZERO_WIDTH_SPACE, safe)
    if any(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT for char in safe):
        return f"{FIRST_STRONG_ISOLATE}{safe}{POP_DIRECTIONAL_ISOLATE}"
    return safe


def without_direction_controls(name: str) -> str:
    """``name`` without embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)."""
    return name.translate(_DIRECTION_CONTROLS)
