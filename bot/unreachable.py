"""What a request to Discord raises when Discord could not take it just now, below the flow
layer and the error handler, which both catch it."""

from __future__ import annotations

import aiohttp
import discord

UNREACHABLE = (
    discord.DiscordServerError,
    aiohttp.ClientError,
    OSError,
    TimeoutError,
    discord.RateLimited,
)
"""What a post raises when Discord could not take it just now (5xx, the connection, a time-out,
a 429 asking to wait longer than the client waits: bot/client.py): worth trying again soon,
unlike a refusal (4xx) that would be refused again."""
