"""What a player typed, shown in a message as typed: never as Markdown, a mention or a link.

A refusal repeats what was typed (``'**a4**' is not a move``); Discord would show ``**a4**`` as
a bold a4, `` `d1-d3` `` as code and ``||d1||`` as a spoiler, so the player would see a valid
move refused. :func:`as_shown` escapes the text the way ``discord.utils.escape_markdown`` and
``escape_mentions`` do (and as :func:`bot.names.escaped` shows names), without importing
Discord: the services, which never import it, fill such text into their refusals.

This module imports neither Discord nor Babel.
"""

from __future__ import annotations

import re

from bot.i18n.directions import isolated, without_direction_controls

_INLINE = re.compile(r"[\\*_~|`<\[]")
"""Markdown read anywhere in a line: emphasis, strikethrough, spoilers, code, masked links
(``[x](url)``), and the ``<`` of mentions, channels, commands, emoji and timestamps. A backslash
before any of them makes Discord show the character itself."""

_LINE_START = re.compile(r"^(?=\s*(?:[>#-]|\d+\.\s))(\s*\d*)", re.MULTILINE)
"""Markdown read at the start of a line: a quote, a heading, subtext (``-#``), a list item."""

_PINGS = re.compile(r"@(?=everyone|here|[!&]?[0-9]{17,20})")
"""``@everyone``, ``@here`` and a raw user or role id, which Discord styles as mentions."""

_LINK = re.compile(r"(?<=:)(?=//)")
"""The ``//`` after a link's scheme (``https://…``), which Discord links and previews."""

ZERO_WIDTH_SPACE = "\u200b"


def as_shown(text: str) -> str:
    """``text`` escaped so that Discord shows it as typed: ``**a4**`` → ``\\*\\*a4\\*\\*``.

    Each Markdown character gets a backslash (a leading ``#``, ``>`` or ``-`` and a list's
    ``1.`` too), and a zero-width space breaks ``@everyone`` and a link's ``://``; what the
    reader sees is the text itself. Text written right to left is isolated as names are
    (:mod:`bot.i18n.directions`), so the sentence repeating it keeps its own direction."""
    shown = _INLINE.sub(r"\\\g<0>", without_direction_controls(text))
    shown = _LINE_START.sub(r"\1\\", shown)
    shown = _PINGS.sub("@" + ZERO_WIDTH_SPACE, shown)
    return isolated(_LINK.sub(ZERO_WIDTH_SPACE, shown))


__all__ = ["as_shown"]
