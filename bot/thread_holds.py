"""Thread holds: the game threads a moderator closed to their players (locked and archived, or
locked where I lack Manage Threads: bot/flow/locked_threads.py), and since when; and Discord's
word, from the interactions, on my Manage Threads, which says whether a locked thread is closed
(bot/holds.py tells the story)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from bot.hold_keeping import HoldKeeping
from bot.services.held import Hold, HoldKind
from bot.storage.errors import StorageError
from bot.thread_locks import thread_closed_to_players

if TYPE_CHECKING:
    import discord

    from bot.client import BrandubhBot
    from bot.services.domain import ActiveGame
    from bot.timers import Timers

_log = logging.getLogger(__name__)

_FORGOTTEN_WHEN_HEARD = "brandubh-forgotten-when-heard"
"""An interaction's note (its ``extras``) of how many times the told words had been forgotten
when it came (:meth:`ThreadHolds.heard`)."""


class ThreadHolds(HoldKeeping):
    """The game threads closed to their players, held while they are."""

    def __init__(self, bot: BrandubhBot, timers: Timers) -> None:
        super().__init__(bot, timers)
        self._closed_threads: dict[int, datetime] = {}
        """The game threads closed to their players (locked and archived, or locked where I
        lack Manage Threads), and since when."""
        self.told: dict[int, bool] = {}
        """Whether I have Manage Threads in a channel (a thread's parent), by Discord's word in
        the last interaction from one of its threads: the cache's may lag behind it (an event
        it missed), and a hold follows what the interactions show, as the refusals do
        (bot/flow/locked_threads.py). Forgotten when an event changes the server's
        permissions (:meth:`forget_told`): the cache is as fresh then."""
        self._forgotten = 0
        """How many times the told words were forgotten: a word from an interaction that came
        before the last time (:meth:`heard`) is older than the cache, and not kept."""
        self._weighing: dict[int, tuple[asyncio.Lock, int]] = {}
        """Per thread, the lock under which its hold begins or ends, and how many use it
        (:meth:`in_turn`)."""

    async def recheck_closed_threads(self) -> None:
        """After the gateway was down (a thread opened meanwhile sent me nothing, and would
        otherwise be held for as long as the bot runs): each held thread is asked of Discord,
        and one no longer closed to its players is opened, its time given back. One whose game
        ended meanwhile (an admin's ``/abort`` from the channel) is held no more, and not
        asked about: nothing there is left to give time back to."""
        for thread_id in list(self._closed_threads):
            if await self._without_game(thread_id):
                continue
            if not await self.bot.flow.vanished.still_closed(thread_id):
                await self.thread_opened(thread_id)

    async def _without_game(self, thread_id: int) -> bool:
        """Whether held thread ``thread_id`` has no game in progress any more: then its hold
        ends, with nothing to give back (if the database cannot say, it stays held)."""
        if (HoldKind.THREAD, thread_id) in self._ending:
            return False
        if await self._game_played_in(thread_id) is not False:  # a game, or none can say
            return False
        self._closed_threads.pop(thread_id, None)
        await self._release(HoldKind.THREAD, thread_id)
        return True

    def heard(self, extras: dict[str, object]) -> None:
        """An interaction came (``extras``, its own notes): when its word is told, a change of
        permissions heard of since it came is fresher (:meth:`tell`)."""
        extras.setdefault(_FORGOTTEN_WHEN_HEARD, self._forgotten)

    def tell(self, channel_id: int, manage_threads: bool, extras: dict[str, object]) -> None:
        """An interaction from a thread of ``channel_id`` (``extras``, its own notes) shows
        whether I have Manage Threads there (:attr:`told`) — as it was when the interaction
        came: if an event changed the server's permissions since (heard of as its answer was
        made, say), the cache is fresher, and the word is not kept."""
        if extras.get(_FORGOTTEN_WHEN_HEARD, self._forgotten) == self._forgotten:
            self.told[channel_id] = manage_threads

    def forget_told(self, channel_ids: Iterable[int]) -> None:
        """An event changed permissions in ``channel_ids`` (a server's): the cache is fresh."""
        self._forgotten += 1
        for channel_id in channel_ids:
            self.told.pop(channel_id, None)

    @contextlib.asynccontextmanager
    async def in_turn(self, thread_id: int) -> AsyncIterator[None]:
        """Begin or end thread ``thread_id``'s hold after the changes heard of before, whoever
        heard of them (a gateway event, an interaction from the thread: bot/flow/locked_threads.py):
        a lock undone at once is heard as two events, and the lock's (which asks the database
        whether a game is played there) must not end after the unlock's, holding a thread open
        to all."""
        lock, users = self._weighing.get(thread_id, (asyncio.Lock(), 0))
        self._weighing[thread_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._weighing[thread_id]
            if users == 1:
                del self._weighing[thread_id]
            else:
                self._weighing[thread_id] = (lock, users - 1)

    async def in_play(self, thread_ids: list[int]) -> dict[int, int] | None:
        """Of ``thread_ids``, those with a game in progress, each with its server, in one read
        (a server's locked threads weighed at once); None if the database cannot say (then
        each closed one is held, as :meth:`thread_locked` holds it)."""
        try:
            return await self.bot.services.games.guilds_in_play(thread_ids)
        except StorageError as error:
            count = len(thread_ids)
            _log.warning("Could not tell which of %d threads have games: %s", count, error)
            return None

    async def refused_in(self, thread_id: int, still_closed: Callable[[], bool]) -> bool:
        """An interaction from thread ``thread_id`` was refused as locked for me (Discord's own
        word, in the interaction: fresher than the cache the events keep, which may have missed
        the lock or my Manage Threads taken away): if a game is played there and the thread is
        not held, its hold begins, from when its player's turn began — Discord does not say
        since when it is locked, and the lock may be as old as that (held from now, its player
        would be left less time than the turn had when it was locked: as for a lock found at
        the deadline, bot/flow/locked_threads.py). ``still_closed`` says whether the thread is
        still closed once the changes heard of before are weighed (an unlock, or Manage Threads
        given me, heard of since the interaction came: then it is not held). Returns whether
        the thread is held (False: no game there, or the database cannot say)."""
        async with self.in_turn(thread_id):  # after the lock's or unlock's event heard before
            if self.thread_held(thread_id):
                return True
            active = await self._game_played_in(thread_id)
            if not active:  # no game there, or the database cannot say: not held
                return False
            since = await self.turn_began(active.set_id)
            if not still_closed():  # weighed after the reads: a change heard of meanwhile
                return False
            _log.info("An interaction from thread %s was refused as locked for me", thread_id)
            await self.thread_closed(thread_id, since, guild_id=active.guild_id)
            return self.thread_held(thread_id)

    async def turn_began(self, set_id: int) -> datetime:
        """When the turn of set ``set_id``'s player to move began — its last move, or the
        takeback that gave it back, or the set's start (``GameService.turn_began``) — from which
        a lock found late is held: not its deadline less its time per move, which time given
        back during the turn makes later than that (and the hold's give-back, less the time
        given meanwhile, would leave the player short). Now if it is not in progress or the
        database cannot say."""
        try:
            began = await self.bot.services.games.turn_began(set_id)
        except StorageError as error:
            _log.warning("Could not tell when the turn of game %s began: %s", set_id, error)
            return self.bot.clock()
        return self.bot.clock() if began is None else began

    async def played_in(self, thread_id: int, still_open: Callable[[], bool]) -> None:
        """An interaction from thread ``thread_id`` was answered for all to see (Discord took a
        message of mine there): if the thread is held, it is not closed to its players after
        all (the cache held it locked for me; or missed its unlock, which Discord showed before
        the interaction went on — then called at once, however it is answered:
        bot/locked_refusals.py ``still_locked_for_me``; or my Manage Threads
        given back), so its hold ends, its time given back once. ``still_open`` says whether the
        thread is still open once the changes heard of before are weighed (a lock heard of as
        the interaction was answered keeps it held)."""
        if not self.thread_held(thread_id):
            return
        async with self.in_turn(thread_id):
            if self.thread_held(thread_id) and still_open():
                _log.info("An interaction from held thread %s was answered there", thread_id)
                await self.thread_opened(thread_id)

    async def answered_in(
        self,
        thread: discord.Thread,
        manage_threads: bool,
        extras: dict[str, object],
        *,
        shown_open: bool = False,
    ) -> None:
        """An interaction from ``thread`` (``extras``, its own notes) was answered, not refused
        as locked for me (bot/locked_refusals.py ``locked_for_me``), or Discord showed the
        thread it came from, which the cache held locked for me, unlocked (``shown_open``): its
        word on my Manage Threads (``manage_threads``) is told (:meth:`tell`). A held thread is
        not closed to its players after all when Discord's word shows it: ``shown_open``, the
        interaction's own, that I have Manage Threads there (my Manage Threads given back, an
        event missed), or, without either, the thread as Discord shows it now — not the cache,
        which may be what missed the lock (a hold found on a refused post: bot/timers.py
        ``_found_closed``), nor the answer, which may be one only its reader sees (Discord
        takes those in a locked thread) or a post that went apart. Then its hold ends, its time
        given back once (:meth:`played_in`) — unless, once the changes heard of before are
        weighed, it is closed after all (a lock heard of as the interaction was answered)."""
        self.tell(thread.parent_id, manage_threads, extras)
        if not self.thread_held(thread.id):
            return
        if not (shown_open or manage_threads) and await self.bot.flow.vanished.still_closed(
            thread.id
        ):
            return
        await self.played_in(thread.id, lambda: not self.closed(thread))

    def closed(self, thread: discord.Thread) -> bool:
        """Whether ``thread`` (cached or fetched) is closed to its players, my Manage Threads
        in its parent as an interaction last told it, else as the cache shows it
        (bot/thread_locks.py ``thread_closed_to_players``)."""
        return thread_closed_to_players(self.bot, thread, self.told)

    def thread_held(self, thread_id: int) -> bool:
        """Whether thread ``thread_id`` is held, closed to its players by a moderator's lock."""
        return thread_id in self._closed_threads

    async def thread_locked(self, thread_id: int, guild_id: int | None = None) -> None:
        """A moderator closed thread ``thread_id`` to its players (of server ``guild_id``, as
        Discord's event says): held (:meth:`thread_closed`) when a game is being played in it
        — any other thread is not kept; if the database cannot say, it is held (and stored
        with its server, so that the process running that server takes it up again)."""
        active = await self._game_played_in(thread_id)
        if active is False:
            return
        if active is not None:  # else the database cannot say: held all the same
            guild_id = active.guild_id
        await self.thread_closed(thread_id, guild_id=guild_id)

    async def _game_played_in(self, thread_id: int) -> ActiveGame | Literal[False] | None:
        """The game played in thread ``thread_id``; False if none is; None if the database
        cannot say (each caller says what that means for the thread's hold)."""
        try:
            active = await self.bot.services.games.in_channel(thread_id)
        except StorageError as error:
            _log.warning("Could not tell whether thread %s has a game: %s", thread_id, error)
            return None
        return False if active is None else active

    async def thread_closed(
        self, thread_id: int, since: datetime | None = None, *, guild_id: int | None = None
    ) -> None:
        """A moderator closed thread ``thread_id`` to its players (at ``since``, if it was
        before now): locked and archived (only members with Manage Threads may open it again,
        and Discord's clients offer no commands in an archived thread), or locked where I lack
        Manage Threads (Discord takes no message of mine there), so its players cannot play.
        Its game is not lost on time meanwhile (:meth:`thread_opened` gives the time back,
        from ``since``, less what was given back to its clock meanwhile); an admin's ``/abort``
        still ends it."""
        now = self.bot.clock()
        if since is None or since > now:
            since = now
        hold = Hold(HoldKind.THREAD, thread_id, since, guild_id)
        if self._begins_again(hold, keep=True):
            return
        if thread_id in self._closed_threads:  # its hold goes on (one whose end failed too)
            self._unended.pop((HoldKind.THREAD, thread_id), None)
            return
        _log.info("Thread %s is locked for its players: its clocks stand still", thread_id)
        self._closed_threads[thread_id] = since
        await self._keep(hold)

    async def thread_opened(self, thread_id: int) -> None:
        """Thread ``thread_id`` is no longer closed to its players: its game's clock, and its
        takeback request's expiry, are given back the time it was."""
        await self._end((HoldKind.THREAD, thread_id), self._closed_threads, channel_id=thread_id)
