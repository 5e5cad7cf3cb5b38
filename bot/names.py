"""Players' names as the bot shows them: never as Markdown, never as a mention, never turning
the rest of the line around."""

from __future__ import annotations

import re

import discord

from bot.i18n.directions import isolated, without_direction_controls
from bot.i18n.language import Language

ZERO_WIDTH_SPACE = "\u200b"

_MARKUP = re.compile(r"(?<=<)(?=[#/:]|a:|t:|id:)|(?<=:)(?=//)")
"""Where Discord reads more than text in a message: the ``<`` of a channel, command, emoji,
timestamp or server guide mention (``<#123…>``, ``</move:123…>``, ``<t:…>``), and the ``//``
after a link's scheme (``https://…``, linked and previewed). A zero-width space there leaves
the name as it reads and makes it plain text."""


def account_name(user: discord.abc.User) -> str:
    """The name of ``user``'s account, the same in every server: their global display name,
    else their username (a nickname belongs to one server)."""
    return user.global_name or user.name


def escaped(name: str) -> str:
    """A display name safe to show in a message: its Markdown, mentions, links and other
    Discord markup are inert, its direction controls (such as U+202E) are taken out, and a
    name written right to left is isolated, so the sentence around it keeps its own
    direction."""
    name = without_direction_controls(name)
    safe = discord.utils.escape_mentions(discord.utils.escape_markdown(name))
    return isolated(_MARKUP.sub(ZERO_WIDTH_SPACE, safe))


def player_name(name: str | None, lang: Language) -> str:
    """A player's stored ``name`` as a message shows it (:func:`escaped`); ``None``, a player
    the bot was never told the name of, is "a player" in ``lang`` — never a mention, which
    shows bare digits to a reader Discord does not show that member (one who left)."""
    return escaped(lang._("a player") if name is None else name)
