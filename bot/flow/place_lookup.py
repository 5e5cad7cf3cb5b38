"""Asking Discord about a game's place the bot has not in its cache, to judge whether its games
may be given out to the whole server (/games, /export game:, /analyse game:).

discord.py keeps every channel of a server and its active threads; a place missing from them
is a thread archived since (discord.py drops archived threads), or a channel or thread deleted.
Which it is, and who could see it, only Discord can say: GET /channels/{id}, asked once and
its answer kept a few minutes, so that paging /games or asking again costs no request; commands
asking at once about the same place wait for the same request. What is
kept is Discord's answer (the thread, or that it is gone), not the verdict: a thread's channel
is judged from the cache each time, so an overwrite hiding it counts at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.flow.vanished import Gone, unknown_channel
from bot.services.domain import Unshown
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

KEPT_FOR = timedelta(minutes=5)
"""How long Discord's answer about a place is taken as still true."""
KEPT_AT_MOST = 1000
"""Answers kept at once (the oldest are dropped first)."""
ASKED_AT_ONCE = 4
"""Requests under way at once for one command (a /games page may hold many unknown places)."""
WAITED_AT_MOST = 5.0
"""Seconds a command waits for Discord's answers: discord.py tries a 5xx again for 25 seconds,
and one place asked after another would add up. Past it, a place is unanswered."""

Answer = discord.abc.GuildChannel | discord.abc.PrivateChannel | discord.Thread | Unshown
"""What Discord said of a place: the channel or thread, or that it is deleted or out of sight."""


class PlaceLookup:
    """Discord's word on places the bot has not in its cache, kept a few minutes."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._answers: dict[tuple[int, int], tuple[datetime, Answer]] = {}
        self._asking: dict[tuple[int, int], asyncio.Task[Answer | None]] = {}
        """The requests under way, each awaited by every command asking about its place."""
        self.waited_at_most = WAITED_AT_MOST
        """:data:`WAITED_AT_MOST` (a test may shorten it)."""

    async def judge_all(
        self, guild: discord.Guild, channel_ids: Iterable[int], *, here: Collection[int] = ()
    ) -> dict[int, Unshown]:
        """:meth:`judge` for each of ``channel_ids``, at most :data:`ASKED_AT_ONCE` asked at a
        time and all within :attr:`waited_at_most` seconds (a place Discord has not answered
        about by then is :attr:`Unshown.UNANSWERED`). Returns those not given out, with why."""
        ids = list(dict.fromkeys(channel_ids))
        if not ids:
            return {}
        turns = asyncio.Semaphore(ASKED_AT_ONCE)

        async def judged(channel_id: int) -> Unshown | None:
            async with turns:
                return await self.judge(guild, channel_id, here=here)

        tasks = {channel_id: asyncio.ensure_future(judged(channel_id)) for channel_id in ids}
        try:
            await asyncio.wait(tasks.values(), timeout=self.waited_at_most)
        finally:
            for task in tasks.values():
                task.cancel()  # those still waiting: a cancelled command cancels them too
            await asyncio.gather(*tasks.values(), return_exceptions=True)
        verdicts: dict[int, Unshown] = {}
        for channel_id, task in tasks.items():
            if task.cancelled():
                _log.info("Discord did not say in time what channel %s is", channel_id)
                verdicts[channel_id] = Unshown.UNANSWERED
            elif (why := task.result()) is not None:
                verdicts[channel_id] = why
        return verdicts

    async def judge(
        self, guild: discord.Guild, channel_id: int, *, here: Collection[int] = ()
    ) -> Unshown | None:
        """Why the games of ``channel_id`` (a channel or thread of ``guild`` the cache lacks)
        are not given out to the whole server, or None when they may be: a public thread of a
        channel @everyone can see (archived, say), or of a channel of ``here`` (where they are
        asked for), or such a channel. Discord's 404 Unknown
        Channel is :attr:`Unshown.DELETED`, 403 Missing Access :attr:`Unshown.OUT_OF_SIGHT`, a
        channel of a type discord.py does not know (it raises InvalidData)
        :attr:`Unshown.UNKNOWN_KIND`;
        when it cannot answer, :attr:`Unshown.UNANSWERED` (not kept: asked again next time)."""
        key = (guild.id, channel_id)
        kept = self._answers.get(key)
        if kept is not None and self.flow.bot.clock() - kept[0] < KEPT_FOR:
            answer: Answer | None = kept[1]
        else:
            asking = self._asking.get(key)
            if asking is None:  # else another command's request is under way: it is shared
                asking = self.flow.bot.spawn(self._ask(key), name=f"asking about {channel_id}")
                self._asking[key] = asking
                asking.add_done_callback(lambda _done: self._asking.pop(key, None))
            # Shielded: a command that stops waiting (its time is up) leaves the request to
            # the others, and its answer is kept for the next.
            answer = await asyncio.shield(asking)
        if answer is None:
            return Unshown.UNANSWERED
        if isinstance(answer, Unshown):
            return answer
        return None if public(guild, answer, here) else Unshown.PRIVATE

    async def _ask(self, key: tuple[int, int]) -> Answer | None:
        """Discord's answer about the place ``key`` names (a server and a channel), kept; None
        when it cannot answer (not kept: asked again next time)."""
        channel_id = key[1]
        try:
            answer: Answer = await self.flow.bot.fetch_channel(channel_id)
        except discord.Forbidden:
            answer = Unshown.OUT_OF_SIGHT
        except discord.InvalidData as error:  # a channel type discord.py does not know
            _log.info("Discord shows channel %s as a kind I do not know: %s", channel_id, error)
            answer = Unshown.UNKNOWN_KIND
        except (discord.HTTPException, *UNREACHABLE) as error:
            if not unknown_channel(error):
                _log.info("Could not ask Discord about channel %s: %s", channel_id, error)
                return None
            answer = Unshown.DELETED
            # A game still played there is aborted, as when a post there is refused (the
            # vanished flow asks again first): not waited for, not cut short with this.
            self.flow.bot.spawn(
                self.flow.vanished.channel_gone(channel_id, Gone.UNKNOWN),
                name=f"channel {channel_id} gone",
            )
        self._keep(key, self.flow.bot.clock(), answer)
        return answer

    def _keep(self, key: tuple[int, int], now: datetime, answer: Answer) -> None:
        self._answers.pop(key, None)
        self._answers[key] = (now, answer)
        while len(self._answers) > KEPT_AT_MOST:
            del self._answers[next(iter(self._answers))]


def public(
    guild: discord.Guild,
    channel: discord.abc.GuildChannel | discord.abc.PrivateChannel | discord.Thread,
    here: Collection[int] = (),
) -> bool:
    """Whether @everyone of ``guild`` can see ``channel``, as Discord just gave it: a public
    thread of a channel they can see, or such a channel (another server's never is); or,
    asked in a channel of ``here``, a public thread of it (seen by whoever sees it)."""
    everyone = guild.default_role
    if isinstance(channel, discord.Thread):
        if channel.guild.id != guild.id or channel.type is discord.ChannelType.private_thread:
            return False
        parent = guild.get_channel(channel.parent_id)
        return parent is not None and (
            parent.id in here or parent.permissions_for(everyone).view_channel
        )
    if isinstance(channel, discord.abc.GuildChannel):
        return channel.guild.id == guild.id and channel.permissions_for(everyone).view_channel
    return False
