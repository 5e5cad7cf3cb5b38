"""A move's public answer whose request failed: whether Discord made it all the same.

A board posted in the channel carries the nonce the outbox posts it with, so the outbox's post
of a board whose answer was lost returns the first message instead of a second one. An
interaction's own answers (its first response, a followup) cannot carry a nonce: after one of
them failed in a way that may have been done all the same (a 5xx, no answer at all, or the
interaction found answered already), Discord is asked whether the answer is there before its
board is left owed to the outbox, which would otherwise post it twice.

discord.py itself tries a followup answered with a 5xx again (up to five times), and Discord
makes each try that landed. So a press's board is a followup only where I may not post in the
channel (:meth:`bot.flow.player_moves.PlayerMoves._press_answer`), and that one is sent once
(:func:`bot.flow.followups_once.tried_once`): after its first 5xx the channel is read for it,
and it is sent again only if it is not there (:func:`not_made`), or left owed if Discord cannot
say; elsewhere it is posted there with the outbox's nonce.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from datetime import timedelta
from typing import Any

import discord

from bot.unreachable import UNREACHABLE
from bot.views.common import take_private_answer_away

_log = logging.getLogger(__name__)


class Answer(enum.Enum):
    """How an interaction's public answer goes out when it cannot carry a nonce."""

    RESPONSE = enum.auto()
    """As its first response (found again as ``@original``)."""
    FOLLOWUP = enum.auto()
    """As a followup after its first response (found again in the channel's history)."""

    @classmethod
    def next_of(cls, interaction: discord.Interaction[Any]) -> Answer:
        """How ``interaction``'s next answer, not posted apart, goes out."""
        return cls.FOLLOWUP if interaction.response.is_done() else cls.RESPONSE


ALREADY_ACKNOWLEDGED = 40060
"""Discord's code refusing an interaction's first response as made already: discord.py sent it
again after a 5xx whose request Discord had done."""

HISTORY_LOOKED_AT = 20
"""How many of the channel's newest messages are read for a followup whose answer was lost."""

RETRY_PAUSE = timedelta(seconds=1)
"""How long a post under a nonce, which may have been made though it failed, waits before it
is tried again (discord.py's own first pause after a 5xx)."""


def maybe_made(error: BaseException) -> bool:
    """Whether a request (an answer, an edit) that failed with ``error`` may have been done all
    the same: Discord's 5xx, no answer at all, or an interaction's first response refused as
    made already; any other 4xx is a refusal, and nothing was done — a 429 asking to wait
    longer than the client waits too (discord.RateLimited, raised on its answer or before
    sending: bot/client.py), whose request a second try at once would only repeat."""
    if isinstance(error, discord.RateLimited):
        return False
    if not isinstance(error, discord.HTTPException):
        return True
    return error.status >= 500 or error.code == ALREADY_ACKNOWLEDGED


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


async def made_anyway(
    interaction: discord.Interaction[Any], answer: Answer, error: BaseException
) -> int | None:
    """The id of ``interaction``'s public answer (sent as ``answer``) that Discord made though
    its request failed with ``error``; None if it was not made — or if Discord cannot say now
    (then it is left owed: a board shown twice beats one never shown)."""
    if not maybe_made(error):
        return None
    try:
        return await _made(interaction, answer)
    except (discord.HTTPException, *UNREACHABLE) as unknown:
        _log.warning(
            "Interaction %s: cannot tell whether its answer was made (%r): its board is owed, "
            "and may show twice",
            interaction.id,
            unknown,
        )
    return None


async def not_made(interaction: discord.Interaction[Any], answer: Answer) -> bool:
    """Whether Discord shows ``interaction``'s public answer (sent as ``answer``) not made, so
    that sending it again cannot show it twice; False if it was made, or if Discord cannot
    say now."""
    try:
        return await _made(interaction, answer) is None
    except (discord.HTTPException, *UNREACHABLE) as unknown:
        _log.info(
            "Interaction %s: cannot tell whether its answer was made: %r", interaction.id, unknown
        )
        return False


async def _made(interaction: discord.Interaction[Any], answer: Answer) -> int | None:
    """The id of ``interaction``'s public answer (sent as ``answer``) if Discord made it, else
    None; raises what Discord answers if it cannot say (other than 404: not made)."""
    try:
        if answer is Answer.RESPONSE:
            original: discord.Message = await interaction.original_response()
            return original.id
        assert interaction.channel_id is not None
        channel: discord.PartialMessageable = interaction.client.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id
        )
        async for message in channel.history(limit=HISTORY_LOOKED_AT):
            made = message.interaction_metadata
            if made is not None and made.id == interaction.id and not message.flags.ephemeral:
                return message.id
    except discord.NotFound:
        return None
    return None


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
