"""Players' names as the bot shows them: never as Markdown, never as a mention."""

from __future__ import annotations

import discord


def escaped(name: str) -> str:
    """A display name safe to show in a message: its Markdown and mentions are inert."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))
