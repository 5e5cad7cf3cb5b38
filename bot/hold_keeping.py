"""Keeping holds: what every hold shares — stored while it lasts, and, at its end, the time
its players could not play given back once (bot/holds.py tells the story; the holds of
threads are in bot/thread_holds.py, those of shards and servers in bot/outage_holds.py, those
of players shut out in bot/player_holds.py)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.services.absence import Resumed
from bot.services.held import Hold, HoldKind
from bot.shards import Shards
from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.client import BrandubhBot
    from bot.timers import Timers

_log = logging.getLogger(__name__)

SHOWN_OUTAGE = timedelta(minutes=1)
"""A hold at least this long has the boards and requests whose deadlines it moved on edited to
show the new times (a shorter one moves them by less than their relative timestamps show)."""


class HoldKeeping:
    """Stores holds, and ends them with their time given back: what the holds of threads,
    shards and servers share (bot/holds.py ``Holds`` composes them)."""

    def __init__(self, bot: BrandubhBot, timers: Timers) -> None:
        self.bot = bot
        self.timers = timers
        self._ending: set[tuple[HoldKind, int]] = set()
        """The holds whose time is being given back: another end of the same hold meanwhile
        (two events for one server's return, say) gives nothing."""
        self._again: dict[tuple[HoldKind, int], tuple[Hold, bool]] = {}
        """Holds that began while their place's last hold was being given its time back (a
        gateway or a moderator quick to drop or lock again), each with whether it is to be
        stored: they begin once that is done (:meth:`_after_end`)."""
        self._unended: dict[tuple[HoldKind, int], datetime] = {}
        """Holds that ended but whose time could not be given back (the database failed), and
        when they ended: still held, and tried again at each check (bot/holds.py
        ``Holds.held``), so that the time is given now rather than, from the stored hold, at
        the next start (all of it since it began) — up to when each ended, not to the retry
        (its players could play meanwhile)."""

    async def _keep(self, hold: Hold) -> None:
        """Store ``hold`` (a restart takes it up again); if the database cannot, it is held
        for as long as this process runs."""
        try:
            await self.bot.services.holds.hold(hold)
        except StorageError as error:
            _log.warning(
                "Could not keep the hold of %s %s: %s", hold.kind.value, hold.place_id, error
            )

    async def _release(self, kind: HoldKind, place_id: int) -> bool:
        """The hold of ``kind`` ``place_id`` is over, with no time to give back. Returns
        whether its row is gone (False: the database failed)."""
        try:
            await self.bot.services.holds.release(kind, place_id)
        except StorageError as error:
            _log.warning("Could not end the hold of %s %s: %s", kind.value, place_id, error)
            return False
        return True

    def _begins_again(self, hold: Hold, *, keep: bool) -> bool:
        """Whether ``hold`` begins while its place's last hold is being given its time back
        (then it is noted, to begin once that is done; ``keep``: to be stored)."""
        place = (hold.kind, hold.place_id)
        if place not in self._ending:
            return False
        self._again.setdefault(place, (hold, keep))
        return True

    def _ends_again(self, hold: tuple[HoldKind, int]) -> bool:
        """Whether ``hold`` is being given its time back already: then this end gives nothing,
        and ends the hold that began meanwhile, if one did (its seconds are not given)."""
        if hold not in self._ending:
            return False
        self._again.pop(hold, None)
        return True

    def _ended(self, hold: tuple[HoldKind, int]) -> datetime:
        """When ``hold``, ending now, ended: now, or when it first did if its time could not
        be given back then (:attr:`_unended`)."""
        return self._unended.get(hold) or self.bot.clock()

    async def _after_end(
        self,
        hold: tuple[HoldKind, int],
        places: dict[int, datetime],
        given: bool,
        until: datetime,
    ) -> None:
        """The give-back of ``hold``, kept in ``places``, ended at ``until``, is done, its
        time ``given`` back or not (the database failed: then it is tried again, up to
        ``until``). A hold of the same place that began
        meanwhile begins now (it was not lost in the give-back); if the give-back failed, the
        first hold simply goes on."""
        kind, place_id = hold
        self._ending.discard(hold)
        again = self._again.pop(hold, None)
        if given:
            self._unended.pop(hold, None)
            places.pop(place_id, None)
        elif again is None:
            self._unended.setdefault(hold, until)
        if again is None:
            return
        self._unended.pop(hold, None)
        begun, keep = again
        if given:
            _log.info("%s %s is held again: its clocks stand still", kind.value, place_id)
            places[place_id] = begun.since
            if keep:
                await self._keep(begun)

    async def _end(
        self,
        hold: tuple[HoldKind, int],
        places: dict[int, datetime],
        *,
        channel_id: int,
    ) -> None:
        """End the hold of a thread kept in ``places``: once its time is given back (to the clock
        and request of the thread ``channel_id``), it is no longer held; until then (or if the
        database fails it) it stays, so a check meanwhile does not end its games. A second end
        meanwhile gives nothing."""
        kind, place_id = hold
        since = places.get(place_id)
        if since is None or self._ends_again(hold):
            return
        self._ending.add(hold)
        until = self._ended(hold)
        given = False
        try:
            given = await self._give_back(
                since, until, f"{kind.value} {place_id}", hold, channel_id=channel_id
            )
        finally:
            await self._after_end(hold, places, given, until)

    async def _give_back(
        self,
        since: datetime,
        until: datetime,
        what: str,
        hold: tuple[HoldKind, int],
        *,
        channel_id: int | None = None,
        shard: Shards | None = None,
        line_owed: str | None = None,
    ) -> bool:
        """Give the time from ``since`` to ``until`` back to the clocks and requests of a thread
        or a shard's servers (``what`` names it in the log) its players could not play
        in — to each the part not given to it already (a restart or another hold during this
        one, say: given once, not twice, and the hours around it still given); after a minute
        or more the boards and requests show their new times. A player's hold notes
        ``line_owed``, the line it then owes, in the same transaction. Returns whether it did
        (False: the database failed, and the hold stays)."""
        if since >= until:
            return await self._release(*hold)
        try:
            resumed = await self.bot.services.clocks.give_back_closed(
                since,
                until,
                channel_id=channel_id,
                shard=shard,
                releasing=hold,
                line_owed=line_owed,
            )
        except StorageError as error:
            _log.warning("Could not give the clocks of %s back its time: %s", what, error)
            return False
        self._given_back(what, resumed)
        if until - since >= SHOWN_OUTAGE:
            self.timers.moved(resumed)
        return True

    @staticmethod
    def _given_back(what: str, resumed: Resumed) -> None:
        """Log what the end of the hold of ``what`` moved on, if anything."""
        if resumed.clocks or resumed.expiries:
            _log.info(
                "Gave %d game clocks and %d challenges or takeback requests of %s back %s",
                len(resumed.clocks),
                len(resumed.expiries),
                what,
                resumed.away,
            )
