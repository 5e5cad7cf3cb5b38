"""Whether an interaction's public answer whose request failed was made all the same.

An interaction's own answers (its first response, a followup) cannot carry a nonce: after one
of them failed in a way that may have been done all the same (a 5xx, no answer at all, or the
interaction found answered already), Discord is asked whether the answer is there before it is
sent again (:func:`bot.followups_once.followup_once`) or its board left owed to the outbox,
which would otherwise post it twice. Outside the flow, so that :func:`bot.views.common.answer`
sends its followups once too.
"""

from __future__ import annotations

import enum
import logging
from datetime import timedelta
from typing import Any

import discord

from bot.unreachable import UNREACHABLE

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


async def made_anyway(
    interaction: discord.Interaction[Any], answer: Answer, error: BaseException
) -> int | None:
    """The id of ``interaction``'s public answer (sent as ``answer``) that Discord made though
    its request failed with ``error``; None if it was not made — or if Discord cannot say now
    (then it is left owed: a board shown twice beats one never shown)."""
    if not maybe_made(error):
        return None
    try:
        return await answer_made(interaction, answer)
    except (discord.HTTPException, *UNREACHABLE) as unknown:
        _log.warning(
            "Interaction %s: cannot tell whether its answer was made (%r): its board is owed, "
            "and may show twice",
            interaction.id,
            unknown,
        )
    return None


async def answer_made(interaction: discord.Interaction[Any], answer: Answer) -> int | None:
    """The id of ``interaction``'s public answer (sent as ``answer``) if Discord made it, else
    None (a deferral's "thinking…" not filled in yet is not made); raises what Discord answers
    if it cannot say (other than 404: not made)."""
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
            # A public deferral's "thinking…" (loading) is the interaction's too: the first
            # followup fills it in, and until then it is not that followup.
            if made is None or made.id != interaction.id or message.flags.ephemeral:
                continue
            if not message.flags.loading:
                return message.id
    except discord.NotFound:
        return None
    return None
