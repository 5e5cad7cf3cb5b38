"""Services for the bot: plain ids in, domain values out, no Discord anywhere below this line.

Open everything once at start-up and close it at shutdown::

    services = await Services.open("brandubh.sqlite3")
    challenge = await services.challenges.create(guild, channel, alice, bob)
    game = await services.challenges.accept(challenge.challenge_id, bob)
    result = await services.games.play(channel, alice, "d2-c2")
    await services.close()

Refusals raise :class:`~bot.services.errors.GameError` subclasses whose ``str()`` is a sentence
for the player.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from bot.services.analysis import AnalysisService
from bot.services.announcements import AnnouncementService
from bot.services.boards import BoardService
from bot.services.challenges import ChallengeService
from bot.services.clock import Clock, utc_now
from bot.services.clocks import ClockService
from bot.services.domain import (
    CHALLENGE_LIFETIME,
    DEFAULT_RULESET,
    DEFAULT_TIME_PER_MOVE,
    ActiveGame,
    Challenge,
    ChallengeStatus,
    GameExport,
    GameSummary,
    GuildSettings,
    HeadToHead,
    LeaderboardPage,
    MatchEnd,
    MoveResult,
    PlayerStats,
    RatingChange,
    SetEnd,
    SetSummary,
    Standing,
)
from bot.services.game_cache import GameCache
from bot.services.games import GameService
from bot.services.held import HoldService
from bot.services.matches import MatchService
from bot.services.players import PlayerService
from bot.services.pruning import PruningService
from bot.services.puzzles import PuzzleService
from bot.services.rating_pools import rebuild_if_pending
from bot.services.records import RecordService
from bot.services.settings import SettingsService
from bot.services.standings import StandingsService
from bot.services.takebacks import TakebackService
from bot.services.vanished import VanishedService
from bot.shards import Shards
from bot.storage import Database
from bot.storage.sets import EVERY

__all__ = [
    "CHALLENGE_LIFETIME",
    "DEFAULT_RULESET",
    "DEFAULT_TIME_PER_MOVE",
    "ActiveGame",
    "BoardService",
    "Challenge",
    "ChallengeService",
    "ChallengeStatus",
    "Clock",
    "ClockService",
    "GameExport",
    "GameService",
    "GameSummary",
    "GuildSettings",
    "HeadToHead",
    "LeaderboardPage",
    "MatchEnd",
    "MatchService",
    "MoveResult",
    "PlayerService",
    "PlayerStats",
    "RatingChange",
    "RecordService",
    "Services",
    "SetEnd",
    "SetSummary",
    "SettingsService",
    "Standing",
    "StandingsService",
    "utc_now",
]


class Services:
    """Every service over one open database; build it with :meth:`open`."""

    def __init__(
        self,
        database: Database,
        clock: Clock,
        shards: Shards = EVERY,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``monotonic``: the clock (seconds) that ages what is kept in memory, such as a
        server's settings (``KEEP_SECONDS``): tests pass one they can move forward."""
        self.database = database
        self.clock = clock
        self.shards = shards
        """The servers this process drives (its timers, recovery and outbox)."""
        self.players = PlayerService(database, clock)
        self.settings = SettingsService(database, monotonic=monotonic)
        cache = GameCache()
        self.matches = MatchService(database, clock, self.settings, cache)
        self.games = GameService(database, clock, shards, cache)
        self.clocks = ClockService(database, clock, self.games, shards, cache)
        self.boards = BoardService(database, clock, shards)
        self.records = RecordService(database, cache)
        self.challenges = ChallengeService(database, clock, self.settings, self.matches, shards)
        self.standings = StandingsService(database)
        self.takebacks = TakebackService(database, clock, self.games, shards)
        self.announcements = AnnouncementService(database, clock, shards)
        self.analyses = AnalysisService(database, clock, self.records, shards)
        self.puzzles = PuzzleService(database, clock, shards)
        self.vanished = VanishedService(database, clock, self.games, shards)
        self.holds = HoldService(database, shards)
        self.pruning = PruningService(database, clock, shards)

    @classmethod
    async def open(
        cls,
        database: str | Path,
        *,
        clock: Clock = utc_now,
        busy_timeout: timedelta = timedelta(seconds=5),
        shards: Shards = EVERY,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> Services:
        """Open (creating or migrating) the database and return the services.

        ``database`` is an SQLite file path or a ``postgresql://`` URL. Raises
        :class:`~bot.storage.errors.StorageError` naming it when it is not a Brandubh
        database, has a newer schema than this code, is damaged or unreachable, or stays
        locked for longer than ``busy_timeout``. ``shards``: the servers this process drives
        (all of them unless the bot runs as several shard processes). ``monotonic``: as
        :class:`Services` takes it.
        """
        opened = await Database.open(database, busy_timeout=busy_timeout)
        try:
            await rebuild_if_pending(opened)
        except BaseException:
            await opened.close()
            raise
        return cls(opened, clock, shards, monotonic=monotonic)

    async def close(self) -> None:
        """Close the database connections (an SQLite file is checkpointed). Idempotent."""
        await self.database.close()
