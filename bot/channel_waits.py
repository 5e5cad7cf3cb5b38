"""Discord's long waits in a channel, kept for every post and edit made there.

A 429 asking my posts (or my edits) in a channel to wait longer than discord.py waits is raised
as discord.RateLimited (bot/client.py). discord.py learns a bucket's reset only from answers
that went through, not from a 429, so the next post there went out into the same limit: the
flow's own (a move's board, a set's end, a rematch) while the outbox held its boards back.
Each such wait is kept here, and every request of that kind in that channel — the outbox's and
the flow's — is refused at once with discord.RateLimited (as discord.py refuses one into a
bucket it knows to be spent) until the wait is up. The flow takes that as an outage, as it did
the 429: a board is left owed to the outbox, which posts it after the wait.

A long 429 of Discord's *global* limit (all my requests, in every channel) is no channel's wait:
it is raised as :class:`GlobalRateLimited` and not kept. discord.py 2.7's RateLimited does not
say which it was (it has ``retry_after`` only), so the answer's ``X-RateLimit-Global`` header is
read on the way (:func:`global_limit_trace`, the client's ``http_trace``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
from discord.http import HTTPClient
from discord.http import Route as HTTPRoute

_log = logging.getLogger(__name__)


class Route(enum.Enum):
    """The requests in a channel that Discord rate-limits apart."""

    POST = enum.auto()
    """Posting a message (a board, a line, a challenge)."""
    EDIT = enum.auto()
    """Editing one of my messages (a takeback request showing how it ended, say)."""


_ROUTES = {
    ("POST", "/channels/{channel_id}/messages"): Route.POST,
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): Route.EDIT,
}


_GLOBAL_LIMIT: ContextVar[bool] = ContextVar("global_limit", default=False)
"""Whether the last answer Discord gave a request of this task was a 429 of its global limit."""


class GlobalRateLimited(discord.RateLimited):
    """A long 429 of Discord's global limit: every request of mine waits, not one channel's."""


def global_limit_trace() -> aiohttp.TraceConfig:
    """The ``http_trace`` that notes, for the task making a request, whether Discord's answer
    was a 429 of its global limit (:data:`_GLOBAL_LIMIT`, read by :meth:`ChannelWaits.guard`)."""

    async def answered(
        _session: aiohttp.ClientSession,
        _context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        headers = params.response.headers
        _GLOBAL_LIMIT.set(
            params.response.status == 429
            and (
                headers.get("X-RateLimit-Global", "").lower() == "true"
                or headers.get("X-RateLimit-Scope") == "global"
            )
        )

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(answered)
    return trace


class ChannelWaits:
    """Until when Discord asked each route in each channel to wait."""

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self._clock = clock
        self._until: dict[tuple[Route, int], datetime] = {}

    def wait(self, route: Route, channel_id: int, retry_after: float) -> datetime:
        """Discord asked ``route`` in ``channel_id`` to wait ``retry_after`` seconds: until
        when nothing more of it is sent there."""
        now = self._clock()
        for kept in [kept for kept, up in self._until.items() if up <= now]:
            del self._until[kept]  # up: not kept until its channel is asked again
        until = now + timedelta(seconds=retry_after)
        self._until[route, channel_id] = max(until, self._until.get((route, channel_id), until))
        _log.info("Channel %s asked to wait until %s (%s)", channel_id, until, route.name)
        return self._until[route, channel_id]

    def __len__(self) -> int:
        """How many waits are kept (those not up yet, and those up since the last :meth:`wait`
        whose channel was not asked again)."""
        return len(self._until)

    def waiting(self, route: Route, channel_id: int) -> datetime | None:
        """Until when ``route`` in ``channel_id`` still waits, if it does."""
        until = self._until.get((route, channel_id))
        if until is None:
            return None
        if until <= self._clock():
            del self._until[route, channel_id]
            return None
        return until

    def guard(self, http: HTTPClient) -> None:
        """Make every request of ``http`` keep these waits: one into a channel's wait is
        refused without being sent, and a long 429 starts one (not one of Discord's global
        limit: :class:`GlobalRateLimited`; ``http`` must trace :func:`global_limit_trace`)."""
        send = http.request

        async def request(route: HTTPRoute, **kwargs: Any) -> Any:
            kind = _route_of(route)
            if kind is not None:
                until = self.waiting(*kind)
                if until is not None:
                    raise discord.RateLimited((until - self._clock()).total_seconds())
            _GLOBAL_LIMIT.set(False)
            try:
                return await send(route, **kwargs)
            except discord.RateLimited as limited:
                if _GLOBAL_LIMIT.get():
                    _log.info("Discord's global limit asks to wait %s s", limited.retry_after)
                    raise GlobalRateLimited(limited.retry_after) from limited
                if kind is not None:
                    self.wait(*kind, limited.retry_after)
                raise

        http.request = request  # type: ignore[method-assign]  # discord.py has no hook for it


def _route_of(route: HTTPRoute) -> tuple[Route, int] | None:
    """Which of the rate-limited routes ``route`` is, and in which channel, if one."""
    kind = _ROUTES.get((route.method, route.path))
    if kind is None or route.channel_id is None:
        return None
    return kind, int(route.channel_id)
