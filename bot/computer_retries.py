"""The computer's turns the timers start again: those pending at start-up, and those that
failed (a search that gave up, a turn that died on an error), tried again after a minute, then
after twice the last wait (at most hourly). The timers (bot/timers.py) are these and more."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.services.domain import ActiveGame
from bot.services.errors import NoGameHere
from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

STALLED_RETRY = timedelta(minutes=1)
"""When the computer gave up on a move, it tries again after this (doubling, at most hourly)."""
STALLED_RETRY_MAX = timedelta(hours=1)


class ComputerRetries:
    """The computer's turns started again: at start-up, and after a failure."""

    bot: BrandubhBot
    _stalled: dict[int, StalledTurn]

    async def resume_computer_turns(self) -> None:
        """Let the computer move in every active game where it was to move at shutdown; its
        board replaces the player's "… I am thinking…" line, as it would have without the
        restart."""
        for active in await self.bot.services.games.active():
            if active.computer_to_move:
                await self._start_computer_turn(active)

    async def _start_computer_turn(self, active: ActiveGame) -> None:
        """Start the computer's turn again, its board to replace the player's "… I am
        thinking…" line (the message that went out for the player's move; if the database
        cannot say which now, the board comes as a new message — the turn starts anyway)."""
        try:
            thinking = await self.bot.services.announcements.message_of(active.set_id, active.ply)
        except StorageError as error:
            _log.warning("Could not find game %s's last line: %s", active.set_id, error)
            thinking = None
        self.bot.flow.start_computer_turn(active, reply_in=thinking)

    def computer_stalled(self, active: ActiveGame, line: int | None) -> bool:
        """The computer gave up on its move in ``active`` (its search failed every try): try
        again later. ``line``: the player's line before it, which says "I am thinking…", if
        there is one.

        True while the channel has not been told at this ply that I keep trying (noted by
        :meth:`told_still_trying` once the line is sent).
        """
        return not self._stall(active, line)

    def computer_died(self, active: ActiveGame, line: int | None) -> None:
        """The computer's turn in ``active`` died on an error (the database, Discord): try
        again after the same waits as a failed search. Nobody is told: the computer did not
        fail to find a move, and the next try mostly plays it."""
        self._stall(active, line)

    def told_still_trying(self, active: ActiveGame) -> None:
        """The channel of ``active`` was told that the computer keeps trying at its ply: not
        again at this ply."""
        stalled = self._stalled.get(active.set_id)
        if stalled is not None and stalled.ply == active.ply:
            self._stalled[active.set_id] = replace(stalled, told=True)

    def _stall(self, active: ActiveGame, line: int | None) -> bool:
        """Note a failed computer turn in ``active``: tried again a minute later the first
        time at this ply, after twice the last wait (at most hourly) each time after. Returns
        whether the channel was told at this ply already that I keep trying."""
        previous = self._stalled.get(active.set_id)
        if previous is None or previous.ply != active.ply:
            wait, told = STALLED_RETRY, False
        else:
            wait, told = min(previous.wait * 2, STALLED_RETRY_MAX), previous.told
        retry_at = self.bot.clock() + wait
        self._stalled[active.set_id] = StalledTurn(
            active.ply, retry_at, wait, active.guild_id, active.channel_id, line, told
        )
        return told

    def computer_unstalled(self, set_id: int) -> None:
        """The computer moved in ``set_id``: forget any earlier failure."""
        self._stalled.pop(set_id, None)

    def _forget(self, set_id: int, stalled: StalledTurn) -> None:
        """Forget the failed turn ``stalled`` of ``set_id``, unless a newer entry replaced it."""
        if self._stalled.get(set_id) is stalled:
            del self._stalled[set_id]

    async def retry_stalled(self, now: datetime) -> None:
        """Start again the computer turns that failed and whose retry time has come; forget
        those whose set ended meanwhile (on time, resigned, aborted), whose player's line then
        says no longer that I am thinking: no reply is coming (a retry would have said so,
        but only at its time, up to an hour later).

        An entry is acted on only if it is still there once its game is read: a move the
        computer played meanwhile forgot it (:meth:`computer_unstalled`), or a failure noted
        meanwhile replaced it, and the newer entry is the one to go by. One the database fails
        (its game unread, its set's end) is taken up again at the next check, and the others
        go on; its line, once its set's end ran, is edited at once (that reads no database)."""
        for set_id, stalled in list(self._stalled.items()):
            try:
                active: ActiveGame | None = await self.bot.services.games.get(set_id)
            except NoGameHere:
                active = None
            except StorageError as error:  # asked again at the next check; the others go on
                _log.warning("Game %s (server %s) unread: %r", set_id, stalled.guild_id, error)
                continue
            if self._stalled.get(set_id) is not stalled:
                continue  # forgotten or replaced while the game was read
            if active is None:
                # My move may have ended it, stored though my turn could not tell: the set's
                # end runs now; the database failing it, the next check runs it again, and the
                # other games go on now.
                turns = self.bot.flow.computer_turns
                try:
                    await turns.ended_unseen(set_id, stalled.ply)
                except StorageError as error:
                    _log.warning("Game %s (server %s) ended: %r", set_id, stalled.guild_id, error)
                    continue
                await turns.no_reply(stalled.channel_id, stalled.line)  # reads no database
                self._forget(set_id, stalled)  # the line is read and edited meanwhile
                continue
            if not active.computer_to_move or active.ply != stalled.ply:
                del self._stalled[set_id]
                continue
            if stalled.retry_at > now:
                continue
            # The next try is due after the same wait if this one ends without a word (it
            # died on an error): a turn still under way then is not started twice.
            self._stalled[set_id] = replace(stalled, retry_at=now + stalled.wait)
            await self._start_computer_turn(active)


@dataclass(frozen=True)
class StalledTurn:
    """A computer turn that failed: at which ply, when to try it (again, if a try under way
    ends without a word), the wait, the server and channel of its game (the server is named
    when the database fails it), the player's line that says I am thinking (if any) and
    whether the channel was told I keep trying."""

    ply: int
    retry_at: datetime
    wait: timedelta
    guild_id: int
    channel_id: int
    line: int | None
    told: bool
