"""A followup sent once: discord.py's webhook requests (an interaction's followups) try a 5xx
again, up to five times, and Discord makes each try that landed; a followup carries no nonce, so
one whose answer was lost would show twice. Sent under :func:`tried_once`, the first 5xx is
raised instead, and Discord is asked whether it was made
(:func:`bot.answers_made.answer_made`) before it is sent again or left owed.

It swaps discord.py's private webhook adapter (``async_context``, a ContextVar: only the
current task's requests, and tasks it starts inside, see the swap; no public setting turns the
tries off in discord.py 2.7). A discord.py that no longer reads it fails
``tests/test_bot_followups_once.py`` (a board shown twice); one without it, the import here.

:func:`followup_once` sends a public followup so: a press's board where I may not post, and
any public answer after a deferral (:func:`bot.views.common.answer`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import discord
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.answers_made import RETRY_PAUSE, Answer, answer_made
from bot.unreachable import UNREACHABLE

_log = logging.getLogger(__name__)


class _FirstAnswer:
    """An aiohttp session whose requests raise a 5xx answer at once (DiscordServerError)."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session

    @contextlib.asynccontextmanager
    async def request(self, *args: Any, **kwargs: Any) -> AsyncIterator[aiohttp.ClientResponse]:
        async with self._session.request(*args, **kwargs) as response:
            if response.status >= 500:
                raise discord.DiscordServerError(response, await response.text())
            yield response


class _OneTry(AsyncWebhookAdapter):
    """discord.py's webhook adapter, its 5xx answers raised rather than tried again."""

    async def request(self, route: Any, session: Any, **kwargs: Any) -> Any:
        return await super().request(route, _FirstAnswer(session), **kwargs)  # type: ignore[arg-type]  # duck-typed session


_ONE_TRY = _OneTry()  # type: ignore[no-untyped-call]  # discord.py's __init__ is untyped


@contextlib.contextmanager
def tried_once() -> Iterator[None]:
    """Within it, an interaction's followups (webhook requests) are not tried again after a
    5xx: the error is raised, whatever Discord made."""
    token = async_context.set(_ONE_TRY)
    try:
        yield
    finally:
        async_context.reset(token)


async def followup_once(interaction: discord.Interaction[Any], **fields: Any) -> int:
    """Send ``fields`` as ``interaction``'s public followup, shown once; its id. Sent under
    :func:`tried_once`: after a 5xx the channel is read for it (:func:`answer_made`), and it
    is sent again (once) only if it is not there; if Discord cannot say, the 5xx is raised
    (the caller leaves it owed, or apologises: shown twice is not risked). Files in ``fields``
    are read again for the second try."""
    try:
        with tried_once():
            return (await interaction.followup.send(wait=True, **fields)).id
    except discord.DiscordServerError as error:
        try:
            made = await answer_made(interaction, Answer.FOLLOWUP)
        except (discord.HTTPException, *UNREACHABLE) as unknown:
            _log.warning("Interaction %s: its followup may be made: %r", interaction.id, unknown)
            raise error from unknown
        if made is not None:
            _log.info("Interaction %s: its followup was made, only its answer lost", interaction.id)
            return made
    await asyncio.sleep(RETRY_PAUSE.total_seconds())
    for file in fields.get("files") or ():
        file.reset()
    with tried_once():
        return (await interaction.followup.send(wait=True, **fields)).id
