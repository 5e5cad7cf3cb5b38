"""Places that are gone: a game's channel or thread was deleted, or the bot left its server.

Nobody can play, answer or read anything there any more. Every game in progress there is
aborted as ``/abort`` aborts it (recorded, no result, unrated), and whatever would still wait on
the place or post to it is closed: the boards owed there, open challenges (a rematch offered to
a member is one too), open takeback requests, the archiving of its threads, a server's match
results owed on their lines, and a daily puzzle posted there (switched off, as ``/puzzle daily
off:True`` does, noting why: /settings and /puzzle daily say so).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.services.clock import Clock
from bot.services.domain import SetEnd
from bot.services.errors import NoGameHere
from bot.services.games import GameService
from bot.shards import Shards
from bot.storage import Database, places, puzzles, vanished
from bot.storage.errors import DatabaseBusy
from bot.storage.sets import EVERY
from bot.storage.times import to_us

_log = logging.getLogger(__name__)


class VanishedService:
    """Abort the games of a place that is gone and close what waits on it."""

    def __init__(
        self, database: Database, clock: Clock, games: GameService, shards: Shards = EVERY
    ) -> None:
        self._database = database
        self._clock = clock
        self._games = games
        self._shards = shards

    async def guild_of(self, channel_id: int) -> int | None:
        """The server ``channel_id`` belongs to, as recorded here (None if nothing was)."""
        async with self._database.snapshot() as db:
            return await vanished.guild_of_channel(db, channel_id)

    async def guilds_served(self) -> list[int]:
        """The servers (of these shards) with a game in progress, a daily puzzle on or an
        open challenge: those a removal of the bot while it was away would leave waiting on a
        server it cannot reach (an open challenge there counts towards its challenger's five
        in every server, and nobody can withdraw it)."""
        async with self._database.snapshot() as db:
            return await vanished.guilds_served(db, self._shards)

    async def channel_gone(self, channel_id: int) -> list[SetEnd]:
        """``channel_id`` (a channel or a thread) was deleted, and with a channel the threads in
        it (Discord deletes them too). Aborts the games in progress there and closes what
        waits on them; returns the sets it ended. Calling it again ends nothing more."""
        async with self._database.snapshot() as db:
            threads = await vanished.threads_in_play(db, channel_id)
        gone = [channel_id, *threads]
        ended = await self._abort(gone)
        try:
            async with self._database.transaction() as db:
                withdrawn = await vanished.close_in_channels(db, gone, to_us(self._clock()))
                server = await vanished.guild_of_channel(db, channel_id) if withdrawn else None
                for guild_id in await vanished.daily_puzzles_in_channels(db, [channel_id]):
                    await puzzles.stop_daily(
                        db, guild_id, puzzles.CHANNEL_DELETED, to_us(self._clock())
                    )
                    _log.info(
                        "Daily puzzle of server %s switched off: its channel is gone", guild_id
                    )
        except DatabaseBusy as busy:
            # The aborts are stored, and the sets they ended must reach the caller (a retry
            # would end nothing more). What is left is done when a post there next meets
            # Unknown Channel (an owed board, a challenge's expiry, the daily puzzle).
            _log.warning("Channel %s is gone; the rest waits for a later try: %s", channel_id, busy)
            return ended
        if withdrawn:
            _log.info(
                "Withdrew %d open challenge(s) of channel %s of server %s: it is gone",
                withdrawn,
                channel_id,
                server,
            )
        return ended

    async def guild_gone(self, guild_id: int) -> list[SetEnd]:
        """The bot was removed from the server ``guild_id`` (or the server was deleted). Aborts
        every game in progress there and closes what waits on them; returns the sets it
        ended. Calling it again ends nothing more."""
        async with self._database.snapshot() as db:
            in_play = await places.in_progress(db, guild_id)
        ended = await self._abort([channel_id for channel_id, _parent in in_play])
        async with self._database.transaction() as db:
            withdrawn = await vanished.close_in_guild(db, guild_id, to_us(self._clock()))
            stopped = await puzzles.stop_daily(
                db, guild_id, puzzles.LEFT_SERVER, to_us(self._clock())
            )
        if withdrawn:
            _log.info(
                "Withdrew %d open challenge(s) of server %s: the bot was removed",
                withdrawn,
                guild_id,
            )
        if stopped:
            _log.info("Daily puzzle of server %s switched off: the bot was removed", guild_id)
        return ended

    async def _abort(self, channel_ids: Sequence[int]) -> list[SetEnd]:
        """Abort the game in progress in each of ``channel_ids``, if it still is."""
        ended = []
        for channel_id in channel_ids:
            try:
                ended.append(await self._games.abort(channel_id))
            except NoGameHere:
                continue  # ended meanwhile (a move, time, another report of the same place)
        return ended
