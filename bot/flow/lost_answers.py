"""Posts that may have been made though their request failed: a post under a nonce, tried
again once (Discord returns the message it made rather than a second one), and an answer's edit
read back. Whether an interaction's own answer was made is :mod:`bot.answers_made`'s.

A board posted in the channel carries the nonce the outbox posts it with, so the outbox's post
of a board whose answer was lost returns the first message instead of a second one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from bot.answers_made import RETRY_PAUSE, maybe_made
from bot.unreachable import UNREACHABLE
from bot.views.common import take_private_answer_away

_log = logging.getLogger(__name__)


async def send_under_nonce(
    channel: discord.abc.Messageable, what: str, **fields: Any
) -> discord.Message:
    """Post ``fields`` in ``channel`` (``what`` names it in the log). They carry a ``nonce``,
    which discord.py sends with ``enforce_nonce``, so a second try returns the message Discord
    made instead of a second one: discord.py's own after a 500, 502 or 504; this one's, once,
    after any other 5xx or no answer at all (:func:`maybe_made`; not after a long 429: nothing
    was made). Files in ``fields`` are read again for it."""
    assert fields.get("nonce") is not None
    try:
        return await channel.send(**fields)
    except (discord.HTTPException, *UNREACHABLE) as error:
        if not maybe_made(error):
            raise
        _log.info("%s: its post is tried again: %r", what, error)
    await asyncio.sleep(RETRY_PAUSE.total_seconds())
    for file in fields.get("files") or ():
        file.reset()
    return await channel.send(**fields)


async def post_apart_under_nonce(
    interaction: discord.Interaction[Any], what: str, **fields: Any
) -> int:
    """Post ``fields`` for everyone in ``interaction``'s channel, ``interaction`` being
    deferred privately (``what`` names the post in the log), then take its private
    "thinking…" away; the message's id. It goes under a nonce (:func:`send_under_nonce`): a
    post whose answer was lost (a 5xx, no answer) is tried again, and Discord returns the
    message it made rather than a second one, so it is not forgotten as never shown while
    shown. The nonce is the interaction's, used once: one named after a stored row's id would
    be reused where SQLite gives a deleted row's id to the next (a takeback request
    withdrawn), and Discord would return the earlier message, even in another channel."""
    assert interaction.channel_id is not None
    channel = interaction.client.get_partial_messageable(
        interaction.channel_id, guild_id=interaction.guild_id
    )
    message = await send_under_nonce(channel, what, nonce=f"ask.{interaction.id}", **fields)
    await take_private_answer_away(interaction)
    return message.id


async def edit_made(
    interaction: discord.Interaction[Any], content: str, error: BaseException
) -> int | None:
    """The id of ``interaction``'s answer if the edit making it ``content``, which failed with
    ``error``, was made all the same (discord.py tries an interaction's edit five times after
    a 5xx, and Discord makes each that lands); None if it was not — or if Discord cannot say
    now (then the caller posts it apart: shown twice beats never shown)."""
    if not maybe_made(error):
        return None
    try:
        # discord.py keeps the answer as first read: read it again, by its id.
        known: discord.Message = await interaction.original_response()
        original: discord.Message = await interaction.followup.fetch_message(known.id)
    except discord.NotFound:
        return None  # deleted: nothing to edit, so it is posted apart
    except (discord.HTTPException, *UNREACHABLE) as unknown:
        _log.warning(
            "Interaction %s: cannot tell whether its answer was edited (%r): posted apart, it "
            "may show twice",
            interaction.id,
            unknown,
        )
        return None
    return original.id if original.content.strip() == content.strip() else None
