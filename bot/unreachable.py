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


def not_taken_now(error: BaseException) -> bool:
    """Whether a request that failed with ``error`` is worth trying again soon: one of
    :data:`UNREACHABLE`, or a 429 discord.py gave up on (it raises a plain HTTPException after
    five 429s in a row) — Discord asked to wait, it did not refuse what was asked."""
    if isinstance(error, UNREACHABLE):
        return True
    return isinstance(error, discord.HTTPException) and error.status == 429
