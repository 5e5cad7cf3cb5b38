"""Making a new challenge (from /challenge or a Rematch press): its creation past earlier
challenges nobody can see any more (a deleted message, a post a restart cut off), the claim of
its opponent's ping, and forgetting one that was never shown."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.answers_made import maybe_made
from bot.services.domain import Challenge
from bot.services.errors import ChallengeHeld, ChallengeNotFound, TooManyChallenges
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)


UNKNOWN_MESSAGE = 10008
"""Discord's error code for a message that does not exist (deleted)."""


POSTED_WITHIN = timedelta(minutes=15)
"""How far either side of a challenge's creation its post may be dated: a /challenge's answer
is its interaction's, whose placeholder (a deferral) comes before the challenge is stored and
whose token lasts 15 minutes; a Rematch's post follows its storing at once. The channel's
messages of that window are read for a post a restart may have cut off, however many, and no
others, however long the bot was away (an open challenge is given that time back)."""


async def create_unheld(
    bot: BrandubhBot, create: Callable[[Callable[[int], None]], Awaitable[Challenge]]
) -> Challenge:
    """``create(stored)`` a challenge, ``stored`` noting its id as made by this process before
    it is committed (before another command can see it stored without its message and take it
    for one a restart cut off). Refused for earlier ones still open (one between two
    members, one open to anyone, five at once) of which Discord no longer has the message (a
    moderator deleted it: nobody can accept, decline or withdraw it, and the refusal would
    point at nothing for up to ten minutes), those are closed and ``create()`` is tried once
    more. Discord does not tell the bot of a deleted message without the message intents, so
    it is asked for each message here. So are earlier ones stored by a process before this one
    but never noted as shown (a restart cut their post off): one found posted among its
    channel's messages of its making's time is noted so (the refusal links it), one not found is
    closed, nobody having seen it."""
    flow = bot.flow.challenges
    noted: list[int] = []

    def stored(challenge_id: int) -> None:
        noted.append(challenge_id)
        flow.made(challenge_id, bot.clock())

    try:
        return await _create_past_unseen(bot, lambda: create(stored))
    except BaseException:
        for challenge_id in noted:  # rolled back (or never returned): not made after all
            flow.made_here.pop(challenge_id, None)
        raise


async def _create_past_unseen(
    bot: BrandubhBot, create: Callable[[], Awaitable[Challenge]]
) -> Challenge:
    """``create()``, and once more past earlier challenges nobody can see (as
    :func:`create_unheld` says)."""
    try:
        return await create()
    except (ChallengeHeld, TooManyChallenges) as held:
        made_here = bot.flow.challenges.made_here
        gone = [
            (earlier.challenge_id, earlier.message_id)
            for earlier in held.held_by
            if earlier.message_id is not None
            and await message_deleted(bot, earlier.channel_id, earlier.message_id)
        ]
        cut_off = [
            earlier
            for earlier in held.held_by
            if earlier.message_id is None and earlier.challenge_id not in made_here
        ]
        if not gone and not await _settle_cut_off(bot, cut_off):
            raise
        for challenge_id, message_id in gone:
            await bot.services.challenges.message_gone(challenge_id, message_id)
            _log.info(
                "Challenge %s was withdrawn: its message %s was deleted", challenge_id, message_id
            )
        return await create()


async def _settle_cut_off(bot: BrandubhBot, cut_off: list[Challenge]) -> bool:
    """The challenges of ``cut_off``, stored before this process started and never noted as
    shown: each found among its channel's messages of its making's time is noted as shown
    by it, and each not found (never posted) is closed as unshown. Whether any was settled so
    (one Discord cannot say about now is left as it is)."""
    settled = False
    for earlier in cut_off:
        try:
            message_id = await posted_challenge(bot, earlier)
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info(
                "Cannot tell whether challenge %s was posted: %r", earlier.challenge_id, error
            )
            continue
        if message_id is None:
            await bot.services.challenges.forget_unshown(earlier.challenge_id)
            _log.info("Challenge %s was closed: a restart cut its post off", earlier.challenge_id)
        else:
            with contextlib.suppress(ChallengeNotFound):
                await bot.services.challenges.set_message(earlier.challenge_id, message_id)
            _log.info("Challenge %s was found posted as %s", earlier.challenge_id, message_id)
        settled = True
    return settled


async def posted_challenge(bot: BrandubhBot, challenge: Challenge) -> int | None:
    """The id of the message of mine showing ``challenge`` (its Accept button) among the
    messages of its channel dated around its making (:data:`POSTED_WITHIN`), if there is one:
    all of them, however busy the channel (bounded by time, not by a count a busy channel
    outruns, taking a challenge shown for one never posted). Raises discord.HTTPException."""
    accept = f"challenge:accept:{challenge.challenge_id}"
    channel = bot.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
    since = challenge.created_at - POSTED_WITHIN
    until = challenge.created_at + POSTED_WITHIN
    async for message in channel.history(limit=None, after=since, oldest_first=True):
        if message.created_at > until:
            break
        if bot.user is not None and message.author.id != bot.user.id:
            continue
        for row in message.components:
            for item in getattr(row, "children", ()):
                if getattr(item, "custom_id", None) == accept:
                    return message.id
    return None


async def shown_anyway(bot: BrandubhBot, challenge: Challenge, error: BaseException) -> int | None:
    """The id of ``challenge``'s post, whose request failed with ``error``, if Discord made it
    all the same (a 5xx or no answer, also on the last try under its nonce: the answer of a
    post made was lost); None if it was not made — or if Discord cannot say now (then it is
    taken for never shown, as before)."""
    if not maybe_made(error):
        return None
    try:
        return await posted_challenge(bot, challenge)
    except (discord.HTTPException, *UNREACHABLE) as unknown:
        _log.warning(
            "Cannot tell whether challenge %s was posted (%r): taken for never shown",
            challenge.challenge_id,
            unknown,
        )
        return None


async def message_deleted(bot: BrandubhBot, channel_id: int, message_id: int) -> bool:
    """Whether Discord says message ``message_id`` is no more (404 Unknown Message); anything
    else — it is there (or was, less than ``SHOWN_RECENTLY`` ago), no access to read it,
    Discord unreachable — counts as there."""
    shown = bot.flow.challenges.shown
    now = bot.clock()
    seen = shown.get(message_id)
    if seen is not None and now - seen < SHOWN_RECENTLY:
        return False
    channel = bot.get_partial_messageable(channel_id)
    try:
        await channel.fetch_message(message_id)
    except discord.NotFound as error:
        return error.code == UNKNOWN_MESSAGE
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not ask Discord for message %s: %s", message_id, error)
        return False
    for old in [seen for seen, at in shown.items() if now - at >= SHOWN_RECENTLY]:
        del shown[old]
    shown[message_id] = now
    return False


async def opponent_ping(bot: BrandubhBot, challenge_id: int) -> datetime | None:
    """Claim the ping of the challenge's opponent for its post: None when its post pings them
    (also when the claim cannot be stored: a challenge must reach the member it names), else
    until when its challenger's challenges to them go out without a ping."""
    try:
        return await bot.services.challenges.claim_opponent_ping(challenge_id)
    except (StorageError, ChallengeNotFound) as error:
        _log.warning(
            "Challenge %s pings its opponent: the ping could not be claimed (%s)",
            challenge_id,
            error,
        )
        return None


async def forget_unshown(bot: BrandubhBot, challenge_id: int) -> None:
    """Forget a challenge that was stored but never shown (its post or its answer failed), so
    it does not hold the pair until it expires. A storage error is not told (the failure that
    kept it from being shown is the one to tell): the challenge, left open, is no longer taken
    for a post of this process under way, so the next challenge it holds up asks Discord
    whether it was shown and closes it then (:func:`create_unheld`), not an hour later."""
    try:
        await bot.services.challenges.forget_unshown(challenge_id)
    except StorageError as error:
        bot.flow.challenges.made_here.pop(challenge_id, None)
        _log.warning(
            "Challenge %s was never shown, but could not be closed (%s): the next challenge "
            "it holds up closes it",
            challenge_id,
            error,
        )


SHOWN_RECENTLY = timedelta(minutes=1)
"""How long a challenge's or takeback request's message Discord showed is taken to be still
there: a member refused again and again (one challenge between two members, one takeback request
of a game) costs one request a minute."""
