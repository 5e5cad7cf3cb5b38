"""Players who left the server: their games end instead of waiting out their time.

The bot has no members intent, so it asks Discord (GET guild member) — only at the two moments
it matters: before reminding a player to move (both players are asked about), and when a
match's next set is about to start. A player who has left loses the set at once, whoever is to
move in it, and a match's next set is not played with them: it is lost by them at once,
without a move (docs/rules.md §11), which ends the match. Only a clear answer counts: Discord
saying Unknown Member (bot/flow/members.py). Any other answer, or none within a second, means
they are still there — an outage never ends a game.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.services.domain import ActiveGame, SetEnd
from bot.services.errors import GameError, NoGameHere
from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


class Departures:
    """Ends the sets of players who left the server, and plays no further set with them."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow

    async def forfeit_if_left(
        self, active: ActiveGame, *, to_move_left: bool | None = None
    ) -> SetEnd | None:
        """Before reminding the player to move in ``active``: if they, or else their opponent,
        have left the server, the set ends now, lost by the one who left (and the match's
        next set is not played with them): the player to move is neither reminded to play
        someone gone nor left to lose on time to them. Returns that end, to announce
        (:meth:`next_set` then finds its loser gone); None if both are still there, or if the
        set ended meanwhile. ``to_move_left``: whether the player to move has left, if Discord
        was just asked (else it is asked here)."""
        gone = None
        opponent = active.player_of(active.game.to_move.opponent)
        for player in (active.player_to_move, opponent):
            if player == active.computer_id:
                continue
            if player == active.player_to_move and to_move_left is not None:
                left = to_move_left
            else:
                left = await self.flow.members.has_left(active.guild_id, player)
            if left:
                gone = player
                break
        if gone is None:
            return None
        try:
            end = await self.flow.bot.services.games.forfeit(active.set_id, gone)
        except NoGameHere:
            return None
        _log.info("Game %s: %s has left the server and loses the set", active.set_id, gone)
        return end

    async def next_set(self, end: SetEnd, *, present: int | None = None) -> SetEnd:
        """``end`` once the match's next set, if it has just started, was checked for players
        who left the server (``present`` just acted: they are there; the loser of a set lost
        by leaving is known to be gone). If one has left, that set is lost by them at once,
        without a move, and ``end`` carries it as its ``walkover`` with the match's result
        instead of the next set; its board is not owed (``end``'s post tells of it)."""
        following = end.next_game
        if following is None:
            return end
        gone = end.loser_id if end.left_server else None
        for player in following.player_ids:
            if gone is not None:
                break
            if player in (present, following.computer_id):
                continue
            if await self.flow.members.has_left(following.guild_id, player):
                gone = player
        if gone is None:
            return end
        try:
            walkover = await self.flow.bot.services.games.forfeit(
                following.set_id, gone, walkover=True
            )
        except NoGameHere:
            return end  # it was ended meanwhile (an admin's /abort): its own post says so
        except (StorageError, GameError) as error:
            # Not now (a busy database): the set that just ended stays stored and announced,
            # the next set begins, and the reminder's check ends it for the player who left.
            _log.warning(
                "Match %s: set %s could not be forfeited now: %r",
                following.match_id,
                following.set_number,
                error,
            )
            return end
        _log.info(
            "Match %s: %s has left the server; set %s is not played",
            following.match_id,
            gone,
            following.set_number,
        )
        await self.flow.announced(walkover.game, None)  # told with the set's end
        return replace(end, next_game=None, match_end=walkover.match_end, walkover=walkover)
