"""Who reads a message, and so in which language it is said.

What one person sees (a refusal, a picker, ``/help``) is said in their Discord language, which
every interaction carries as ``locale``; what a server sees is said in the server's language
(``GameFlow.server_language``).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n.language import Language, language_for


def reader(interaction: discord.Interaction[Any]) -> Language:
    """The language of the person who used ``interaction`` (their Discord ``locale``)."""
    return language_for(interaction.locale.value)


__all__ = ["reader"]
