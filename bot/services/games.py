"""Games: matches of one or two sets, moves, resignations, timeouts, and the end of each set.

The move list in the database is the truth; positions are rebuilt by replaying it through the
engine, with a small in-memory cache of rebuilt games checked against the stored ply.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.services.clock import Clock
from bot.services.domain import ActiveGame, GameExport, MoveResult, SetEnd
from bot.services.settings import SettingsService
from bot.storage import Database
from engine import Side


class GameService:
    """Everything that happens to a game once it has started."""

    def __init__(self, database: Database, clock: Clock, settings: SettingsService) -> None:
        self._database = database
        self._clock = clock
        self._settings = settings

    # ---------------------------------------------------------------- reading

    async def in_channel(self, channel_id: int) -> ActiveGame | None:
        """The game in progress in ``channel_id``, or ``None``."""
        raise NotImplementedError

    async def get(self, game_id: int) -> ActiveGame:
        """The game in progress with this id. Raises NoGameHere if it is not in progress."""
        raise NotImplementedError

    async def active(self) -> list[ActiveGame]:
        """Every game in progress, rebuilt from its moves (start-up recovery), by game id."""
        raise NotImplementedError

    # ---------------------------------------------------------------- starting

    async def start_computer_match(
        self,
        guild_id: int,
        channel_id: int,
        human_id: int,
        computer_id: int,
        *,
        level: int = 3,
        ruleset: str | None = None,
        sets: int = 2,
        human_side: Side = Side.ATTACKERS,
        time_per_move: timedelta | None = None,
    ) -> ActiveGame:
        """Start a match against the computer at once and return its first set.

        Computer games are recorded but never rated. Raises ChannelBusy, ChannelNotAllowed,
        CannotChallengeSelf (``human_id == computer_id``), InvalidOption (level not 1-5,
        ruleset, sets, time per move).
        """
        raise NotImplementedError

    # ---------------------------------------------------------------- moving

    async def play(
        self,
        channel_id: int,
        user_id: int,
        move_text: str,
        *,
        confirm_repetition: bool = False,
        expected_ply: int | None = None,
    ) -> MoveResult:
        """Play ``user_id``'s move in the channel's game, in one transaction.

        ``move_text`` is lenient (``d1-d3``, ``d1d3``, ``D1 D3``). ``expected_ply`` is the ply
        of the board the player chose the move on (a button's board); ``None`` means "the game
        as it stands". Returns the record, the game after the move and, if the move ended the
        set, a SetEnd (with the next set or the match result and rating changes).

        Raises NoGameHere, NotAPlayer, NotYourTurn, IllegalMove (the engine's sentence),
        RepetitionNeedsConfirmation (unless ``confirm_repetition``), StaleGameError (another
        move landed first: two racing moves never both land).
        """
        raise NotImplementedError

    async def play_computer_move(
        self, game_id: int, move_text: str, expected_ply: int
    ) -> MoveResult:
        """Play the computer's move in game ``game_id``, made against ply ``expected_ply``.

        Raises NoGameHere (the game ended meanwhile), StaleGameError (its ply changed),
        NotYourTurn (the human is to move), IllegalMove.
        """
        raise NotImplementedError

    async def resign(self, channel_id: int, user_id: int) -> SetEnd:
        """``user_id`` resigns the current SET (the other player wins it; set 2 still follows).

        Raises NoGameHere, NotAPlayer.
        """
        raise NotImplementedError

    async def abort(self, channel_id: int) -> SetEnd:
        """Stop the channel's game (admin): recorded, no winner, unrated; the match ends
        without ratings (its MatchEnd has ``aborted=True``). Raises NoGameHere."""
        raise NotImplementedError

    # ---------------------------------------------------------------- timers

    async def time_out_due(self, now: datetime | None = None) -> list[SetEnd]:
        """End every game whose move deadline is at or before ``now`` (default: the clock):
        the player to move loses on time. Returns the ended sets, by game id."""
        raise NotImplementedError

    async def reminders_due(self, now: datetime | None = None) -> list[ActiveGame]:
        """Games past half their time for the current move and not yet reminded (humans to
        move only); each is marked reminded, so it is returned once per move."""
        raise NotImplementedError

    # ---------------------------------------------------------------- records

    async def export(
        self, *, game_id: int | None = None, channel_id: int | None = None
    ) -> GameExport:
        """A set's OpenTafl record (player names as tags) and engine game for a replay.

        Give ``game_id``, or ``channel_id`` for the channel's current or latest game. Raises
        NoGameHere when there is none.
        """
        raise NotImplementedError
