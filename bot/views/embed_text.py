"""A list's embed as a message's text, for a channel where the bot lacks Embed Links.

Discord drops a message's embeds where the bot lacks Embed Links (a server that denies it to
stop link previews), without an error: the message is posted without them, or refused when
nothing is left. An interaction's answer keeps them (Discord's changelog of 2022-06-29 leaves
Embed Links out of the bot's permissions there), so only a post in the channel (a public answer
deferred privately, posted apart) needs the text.
"""

from __future__ import annotations

import discord

CONTENT_LIMIT = 2000
"""Discord's limit on a message's text, in characters."""


def embed_as_text(embed: discord.Embed, content: str | None = None) -> str:
    """``content`` (if any), then ``embed``'s title in bold, its description, each field (its
    name in bold, then its value) and its footer, one part a paragraph, cut to Discord's 2000
    characters at a line's end with an ellipsis."""
    parts = [content] if content else []
    if embed.title:
        parts.append(f"**{embed.title}**")
    if embed.description:
        parts.append(embed.description)
    for field in embed.fields:
        parts.append(f"**{field.name}**\n{field.value}")
    if embed.footer.text:
        parts.append(embed.footer.text)
    text = "\n\n".join(parts)
    if len(text) <= CONTENT_LIMIT:
        return text
    cut = text[: CONTENT_LIMIT - 1]
    if "\n" in cut:
        cut = cut[: cut.rindex("\n")]
    return cut.rstrip() + "\n…"
