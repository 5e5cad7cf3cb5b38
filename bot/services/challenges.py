"""Challenges: one member asks another for a match; the answer starts it (or not)."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.services.clock import Clock
from bot.services.domain import ActiveGame, Challenge
from bot.services.games import GameService
from bot.services.settings import SettingsService
from bot.storage import Database
from engine import Side


class ChallengeService:
    """Create, answer, withdraw and expire challenges."""

    def __init__(
        self, database: Database, clock: Clock, settings: SettingsService, games: GameService
    ) -> None:
        self._database = database
        self._clock = clock
        self._settings = settings
        self._games = games

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        *,
        ruleset: str | None = None,
        sets: int = 2,
        challenger_side: Side = Side.ATTACKERS,
        time_per_move: timedelta | None = None,
        opponent_is_bot: bool = False,
    ) -> Challenge:
        """Open a challenge that expires 10 minutes from now and return it.

        ``ruleset`` and ``time_per_move`` default to the server's settings. Raises
        CannotChallengeSelf, CannotChallengeBot (``opponent_is_bot``), ChannelNotAllowed,
        ChannelBusy (a game is in progress in the channel), InvalidOption (ruleset, sets not
        1 or 2, time per move).
        """
        raise NotImplementedError

    async def get(self, challenge_id: int) -> Challenge:
        """The challenge with this id in whatever state it is. Raises ChallengeNotFound."""
        raise NotImplementedError

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the bot's message that shows the challenge (to edit it on expiry)."""
        raise NotImplementedError

    async def accept(self, challenge_id: int, user_id: int) -> ActiveGame:
        """The opponent accepts: the match starts and its first set is returned.

        Raises ChallengeNotFound (not open), NotYourChallenge (not the opponent),
        ChallengeExpired (past its expiry; it is marked expired), ChannelBusy (a game started
        in the channel meanwhile), ChannelNotAllowed.
        """
        raise NotImplementedError

    async def decline(self, challenge_id: int, user_id: int) -> Challenge:
        """The opponent declines; returns the closed challenge.

        Raises ChallengeNotFound, NotYourChallenge.
        """
        raise NotImplementedError

    async def withdraw(self, challenge_id: int, user_id: int) -> Challenge:
        """The challenger takes the challenge back; returns the closed challenge.

        Raises ChallengeNotFound, NotYourChallenge (not the challenger).
        """
        raise NotImplementedError

    async def expire_due(self, now: datetime | None = None) -> list[Challenge]:
        """Mark every open challenge whose expiry is at or before ``now`` (default: the clock)
        expired, and return them (so the bot can edit their messages)."""
        raise NotImplementedError

    async def pending(self) -> list[Challenge]:
        """Every open challenge, oldest first (to re-arm expiry after a restart)."""
        raise NotImplementedError
