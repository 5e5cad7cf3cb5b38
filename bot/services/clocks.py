"""The clocks and deadlines of games in progress (bot/services/games.py plays them): the time
given back for the bot's absence, a server's outage or a thread closed to its players
(bot/services/absence.py), the games lost on time, and the reminders due to their players."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.services.absence import Resumed, forget_given, give_time_back
from bot.services.clock import Clock
from bot.services.domain import (
    LAST_REMINDER_AT_MOST,
    LAST_REMINDER_FROM,
    LAST_REMINDER_SHARE,
    ActiveGame,
    SetEnd,
)
from bot.services.errors import StaleGameError
from bot.services.game_cache import GameCache
from bot.services.games import GameService
from bot.services.held import NOTHING, Held, HoldKind
from bot.services.sets import active_game
from bot.shards import Shards, Share
from bot.storage import Database, clocks, holds, sets
from bot.storage.connection import Connection
from bot.storage.sets import EVERY, SetRow
from bot.storage.times import duration_us, to_us
from engine import Game


@dataclass(frozen=True)
class OutOfTime:
    """The games in progress whose player to move was out of time when read (one read per
    timer check): the places to check before they are lost on time, and the games to end."""

    rows: tuple[SetRow, ...]

    @property
    def channel_ids(self) -> list[int]:
        """The channels (or threads) the games are played in, by game id."""
        return [row.channel_id for row in self.rows]

    @property
    def set_ids(self) -> dict[int, int]:
        """Each game's id, by channel (or thread)."""
        return {row.channel_id: row.set_id for row in self.rows}

    def outside(self, held: Held) -> OutOfTime:
        """The same games less those ``held`` (nobody can play where they are now)."""
        return OutOfTime(tuple(_not_held(self.rows, held)))


class ClockService:
    """The move clocks and deadlines of the games in progress in these servers."""

    def __init__(
        self,
        database: Database,
        clock: Clock,
        games: GameService,
        shards: Shards = EVERY,
        cache: GameCache | None = None,
    ) -> None:
        self._shards = shards
        """The servers whose timers and recovery this process drives."""
        self._database = database
        self._clock = clock
        self._games = games
        """Ends the sets lost on time (:meth:`GameService.finish`)."""
        self._cache = cache if cache is not None else GameCache()

    async def resume_clocks(self, now: datetime | None = None) -> Resumed:
        """At start-up: the time since timers that drove these servers last ran (the bot was
        away) is given back to every move clock that was running then, and to the expiry of
        every challenge and takeback request open then — never more than each had run — so
        that nobody loses on time, is reminded, or sees a challenge or request run out for the
        bot's absence (bot/services/absence.py). Returns what was moved on.

        After a change of the shards' layout, each server is given the time since the newest
        note of a process that drove it: one whose process died before the change gets the
        time since that process's last note, not since a living process's."""
        now_us = to_us(now or self._clock())
        async with self._database.transaction() as db:
            resumed = Resumed(timedelta(0), [], [])
            newer: list[Shards] = []
            for last, theirs in await clocks.last_checks(db, self._shards):
                share = Share(self._shards.count, self._shards.ids, theirs, tuple(newer))
                moved = await give_time_back(db, last, now_us, share)
                resumed = Resumed(
                    max(resumed.away, moved.away),
                    resumed.clocks + moved.clocks,
                    resumed.expiries + moved.expiries,
                )
                if theirs.every:
                    break  # it drove every server: the older notes stand for none
                newer.append(theirs)
            await clocks.record_check(db, now_us, self._shards)
        return resumed

    async def give_back_closed(
        self,
        since: datetime,
        now: datetime | None = None,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        shard: Shards | None = None,
        releasing: tuple[HoldKind, int] | None = None,
        line_owed: str | None = None,
    ) -> Resumed:
        """Server ``guild_id`` was unavailable (Discord's outage of it), or thread
        ``channel_id`` locked and archived by a moderator, or the servers of ``shard`` (one of
        this process's shards) out of the gateway's reach, from ``since``: nobody there could
        move, accept a challenge or answer a takeback request, so that time is given back to
        its clocks, challenges and takeback requests, as a start-up gives back the bot's
        absence; the stored hold ``releasing`` ends with it (in one transaction: the time is
        given once), and a player's hold of ``channel_id`` notes its move as held so (once a
        move: bot/player_holds.py), with ``line_owed``, the line it then owes the channel.
        Returns what was moved on."""
        async with self._database.transaction() as db:
            resumed = await give_time_back(
                db,
                to_us(since),
                to_us(now or self._clock()),
                self._shards if shard is None else shard,
                guild_id=guild_id,
                channel_id=channel_id,
            )
            if releasing is not None:
                await holds.release(db, releasing[0].value, releasing[1])
                if releasing[0] is HoldKind.PLAYER and channel_id is not None:
                    # Its move is held so once (bot/player_holds.py), a restart or not.
                    await holds.player_hold_given(db, channel_id, to_us(since), line_owed)
        return resumed

    async def give_back_servers(
        self, outages: Iterable[tuple[int, datetime, datetime]]
    ) -> list[Resumed]:
        """Servers back from their outages, each ``(guild_id, since, until)``: each one's time
        is given back to its clocks, challenges and takeback requests, as by
        :meth:`give_back_closed`, and its stored hold ends — all in one transaction (a shard
        that connects anew brings back many at once). Returns what was moved on, by server."""
        async with self._database.transaction() as db:
            resumed: list[Resumed] = []
            for guild_id, since, until in outages:
                resumed.append(
                    await give_time_back(
                        db,
                        to_us(since),
                        to_us(until),
                        self._shards,
                        guild_id=guild_id,
                    )
                )
                await holds.release(db, HoldKind.SERVER.value, guild_id)
        return resumed

    async def give_back_outage(self, since: datetime, now: datetime | None = None) -> Resumed:
        """Discord's gateway dropped these servers from ``since`` (no interaction could reach
        the bot): that time is given back to every clock, challenge and takeback request of
        the servers of these shards running then, and the timers are noted as running now, in
        one transaction. Returns what was moved on."""
        now_us = to_us(now or self._clock())
        async with self._database.transaction() as db:
            resumed = await give_time_back(db, to_us(since), now_us, self._shards)
            await clocks.record_check(db, now_us, self._shards)
        return resumed

    async def forget_given_back(self) -> None:
        """Forget the time given back to the clocks, challenges and takeback requests no
        longer running in these servers (:func:`~bot.services.absence.forget_given`), a batch
        per transaction: a move or a give-back waits for one batch at most."""
        for kind in clocks.Deadline:
            after: int | None = -1  # every id is above
            while after is not None:
                async with self._database.transaction() as db:
                    after = await forget_given(db, kind, after, self._shards)

    async def timers_ran(self, now: datetime | None = None) -> None:
        """Note that this process's timers are running (the start of an absence, if it ends
        here)."""
        async with self._database.transaction() as db:
            await clocks.record_check(db, to_us(now or self._clock()), self._shards)

    async def out_of_time(self, now: datetime | None = None) -> OutOfTime:
        """The games (in these servers) whose move deadline is at or before ``now`` (default:
        the clock), read once: their places are checked, then :meth:`time_out` ends them."""
        async with self._database.snapshot() as db:
            rows = await sets.due_deadlines(db, to_us(now or self._clock()), self._shards)
        return OutOfTime(tuple(rows))

    async def time_out_due(self, now: datetime | None = None) -> list[SetEnd]:
        """End every game whose move deadline is at or before ``now`` (default: the clock):
        the player to move loses on time. Returns the ended sets, by game id."""
        return await self.time_out(await self.out_of_time(now))

    async def time_out(self, due: OutOfTime) -> list[SetEnd]:
        """End the games of ``due``: the player to move loses on time. One that moved on or
        ended since ``due`` was read (a move, an abort) is left as it is. Returns the ended
        sets, by game id."""
        ended = []
        for row in due.rows:
            async with self._database.snapshot() as db:
                game = await self._cache.load(db, row)
            trial = game.copy()
            trial.time_out(trial.to_move)
            try:
                ended.append(await self._games.finish(row, trial))
            except StaleGameError:
                continue
        return ended

    async def reminders_due(
        self, now: datetime | None = None, *, held: Held = NOTHING
    ) -> list[ActiveGame]:
        """Games past half their time for the current move and not yet reminded (humans to
        move only), but those of the servers or channels ``held`` (nobody can play there now:
        their reminders wait); each is marked reminded, so it is returned once per move."""
        moment = now or self._clock()
        async with self._database.snapshot() as db:
            rows = await sets.due_reminders(db, to_us(moment), self._shards)
        claimed = await self._claim_reminders(_not_held(rows, held), sets.mark_reminded)
        return [active_game(replace(row, reminded=True), game) for row, game in claimed]

    async def reminder_not_posted(self, set_id: int, ply: int) -> None:
        """Discord refused the reminder for move ``ply``: the next check tries it again."""
        async with self._database.transaction() as db:
            await sets.unmark_reminded(db, set_id, ply)

    async def last_reminders_due(
        self, now: datetime | None = None, *, held: Held = NOTHING
    ) -> list[ActiveGame]:
        """Games with ``LAST_REMINDER_FROM`` or more per move whose player to move (a human) has
        a tenth of that time left or an hour, whichever is less, and has not had the last
        reminder for this move (but those of the servers or channels ``held``); each is noted
        as reminded (in the database: a restart does not post it again), so it is returned
        once per move."""
        moment = now or self._clock()
        async with self._database.snapshot() as db:
            rows = await sets.due_last_reminders(
                db,
                to_us(moment),
                from_time_us=duration_us(LAST_REMINDER_FROM),
                share=LAST_REMINDER_SHARE,
                at_most_us=duration_us(LAST_REMINDER_AT_MOST),
                shards=self._shards,
            )
        claimed = await self._claim_reminders(_not_held(rows, held), sets.mark_last_reminded)
        return [active_game(row, game) for row, game in claimed]

    async def _claim_reminders(
        self, rows: list[SetRow], mark: Callable[[Connection, int, int], Awaitable[bool]]
    ) -> list[tuple[SetRow, Game]]:
        """The due ``rows`` this process noted as reminded (``mark``, one transaction each:
        a row another process noted first is left out, and so is one whose position is
        another by now), each with its game."""
        claimed = []
        for row in rows:
            async with self._database.transaction() as db:
                # The position read, not its ply alone: after a takeback and a new move back
                # to that ply, the new move's reminder is not due yet, and not this one's.
                stands = await sets.stands_at(db, row.set_id, row.ply, row.undone)
                marked = stands and await mark(db, row.set_id, row.ply)
            if not marked:
                continue
            async with self._database.snapshot() as db:
                claimed.append((row, await self._cache.load(db, row)))
        return claimed

    async def last_reminder_not_posted(self, set_id: int, ply: int) -> None:
        """Discord could not take the last reminder for move ``ply``: the next check tries it
        again."""
        async with self._database.transaction() as db:
            await sets.unmark_last_reminded(db, set_id, ply)


def _not_held(rows: Iterable[SetRow], held: Held) -> list[SetRow]:
    """``rows`` but those ``held`` (nobody can play where they are now)."""
    return [row for row in rows if not held.covers(row.guild_id, row.channel_id)]
