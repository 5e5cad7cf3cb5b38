"""Whether someone is still a member of a server, asked of Discord.

The bot has no members intent, so it does not follow members coming and going: Accept, Rematch
and the departures check (bot/flow/departures.py) ask Discord (GET guild member) when it
matters. Only a clear answer counts as "left": Discord saying Unknown Member (10007). Any other
answer — a 404 for an Unknown Guild, a 5xx, a lost connection — or none within
``MEMBER_LOOKUP_LIMIT`` means Discord cannot say, and the member is taken to be there: an
outage never closes a challenge, refuses a rematch or ends a game. After a lookup in a server
got no answer in time, the timers do not ask about that server's members for
``MEMBER_LOOKUP_PAUSE`` (:meth:`Members.unanswered`): they ask before each reminder and each
game lost on time, and 200 of them due at once behind a rate limit on lookups would each wait
the limit out for nothing. Meanwhile :meth:`Members.cached` gives the member a lookup last
answered with, so a reminder still is not pinged to someone it knows cannot see the channel.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

import discord

from bot.recently_used import RecentlyUsed
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

UNKNOWN_MEMBER = 10007
"""Discord's error code for a user who is not a member of the server."""

MEMBER_LOOKUP_LIMIT = 1.0
"""Seconds to wait for Discord to say whether someone is still a member (a button press must be
answered within 3 s, and discord.py sleeps out rate limits and 5xx retries)."""

MEMBER_LOOKUP_PAUSE = timedelta(seconds=10)
"""How long the timers do not ask about a server's members after a lookup there got no answer
within ``MEMBER_LOOKUP_LIMIT`` (its rate limit, Discord slow): the departures check takes them
to be there, the shut-out check as not answered (the game waits)."""


MEMBERS_REMEMBERED = 4096
"""How many members answered by a lookup are kept for :meth:`Members.cached` (the least
recently answered go first)."""


class Members:
    """Asking Discord whether someone is still a member of a server."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._unanswered_until: dict[int, datetime] = {}
        """Per server, until when (the bot's clock) the timers do not ask about its members."""
        self._answered: RecentlyUsed[tuple[int, int], discord.Member] = RecentlyUsed(
            MEMBERS_REMEMBERED
        )
        """The member each lookup last answered with, by (server, user)."""

    async def member_now(
        self, guild_id: int, user_id: int
    ) -> discord.Member | Literal[False] | None:
        """``user_id`` as a member of ``guild_id``: False if Discord says Unknown Member (they
        have left), None if Discord cannot say within ``MEMBER_LOOKUP_LIMIT`` (any other error)
        or the server is not in the bot's cache (then Discord is only asked whether they left)."""
        guild = self.flow.bot.get_guild(guild_id)
        try:
            if guild is None:
                await asyncio.wait_for(
                    self.flow.bot.http.get_member(guild_id, user_id), MEMBER_LOOKUP_LIMIT
                )
                return None
            member = await asyncio.wait_for(guild.fetch_member(user_id), MEMBER_LOOKUP_LIMIT)
        except discord.NotFound as error:
            if error.code == UNKNOWN_MEMBER:
                self._answered.forget((guild_id, user_id))
                return False
            failure: BaseException = error
        except (discord.HTTPException, *UNREACHABLE) as error:
            failure = error
            if isinstance(error, TimeoutError):
                self._unanswered_until[guild_id] = self.flow.bot.clock() + MEMBER_LOOKUP_PAUSE
        else:
            self._answered.put((guild_id, user_id), member)
            return member
        _log.info("Could not ask whether %s is still in server %s: %r", user_id, guild_id, failure)
        return None

    def cached(self, guild_id: int, user_id: int) -> discord.Member | None:
        """``user_id`` as a member of ``guild_id`` without asking Discord: discord.py's cache,
        else the member a lookup last answered with (its roles may be older; the channel's
        overwrites are read now), else None."""
        guild = self.flow.bot.get_guild(guild_id)
        member = None if guild is None else guild.get_member(user_id)
        return member if member is not None else self._answered.peek((guild_id, user_id))

    async def has_left(self, guild_id: int, user_id: int) -> bool:
        """Whether Discord says ``user_id`` is no longer a member of ``guild_id`` (404 Unknown
        Member). Any other error, or no answer in time, is taken for "still a member", as is
        everyone there for ``MEMBER_LOOKUP_PAUSE`` after a lookup there got no answer in time
        (Discord is not asked)."""
        if self.unanswered(guild_id):
            return False
        return await self.member_now(guild_id, user_id) is False

    def unanswered(self, guild_id: int) -> bool:
        """Whether a lookup in ``guild_id`` got no answer in time within the last
        ``MEMBER_LOOKUP_PAUSE``: the timers do not ask about its members meanwhile (each would
        wait the limit out for nothing)."""
        until = self._unanswered_until.get(guild_id)
        if until is not None and until > self.flow.bot.clock():
            return True
        self._unanswered_until.pop(guild_id, None)
        return False
