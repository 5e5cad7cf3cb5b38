"""Starting a match: one against the computer has its terms checked and starts at once, one from
an accepted challenge starts inside the challenge's transaction (bot/services/challenges.py);
either way the match is stored with its first set, played on from there by bot/services/games.py.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.i18n import _
from bot.services.clock import Clock
from bot.services.domain import (
    COMPUTER_LEVELS,
    MAX_COMPUTER_MATCHES,
    MAX_MEMBER_MATCHES,
    ActiveGame,
)
from bot.services.errors import (
    CannotChallengeSelf,
    InvalidOption,
    TooManyComputerMatches,
    TooManyMatches,
)
from bot.services.game_cache import GameCache
from bot.services.games import owed_board
from bot.services.sets import active_game, insert_set
from bot.services.settings import SettingsService
from bot.services.terms import busy, check_terms
from bot.storage import Database, announcements, places, players, sets
from bot.storage.connection import Connection
from bot.storage.times import duration_us, to_us
from engine import Game, Side


class MatchService:
    """Starting matches: their terms checked, each stored with its first set."""

    def __init__(
        self, database: Database, clock: Clock, settings: SettingsService, cache: GameCache
    ) -> None:
        self._database = database
        self._clock = clock
        self._settings = settings
        self._cache = cache

    async def check_computer_match(
        self,
        guild_id: int,
        channel_id: int,
        human_id: int,
        computer_id: int,
        *,
        level: int = 3,
        ruleset: str | None = None,
        sets_total: int = 2,
        time_per_move: timedelta | None = None,
        thread_of: int | None = None,
    ) -> tuple[str, timedelta]:
        """The ruleset's name and the time per move of a match against the computer in
        ``channel_id`` (``thread_of``: a member's thread of that channel, whose allowance
        counts), once every term is allowed: what :meth:`start_computer_match` checks, without
        storing anything, so that a thread is only opened for a match that will start. Raises
        as :meth:`start_computer_match` does, but never ChannelBusy."""
        if human_id == computer_id:
            raise CannotChallengeSelf()
        if level not in COMPUTER_LEVELS:
            raise InvalidOption(_("The computer's level must be from 1 to 5."))
        settings = await self._settings.get(guild_id)
        return check_terms(
            settings, channel_id, ruleset, time_per_move, sets_total, thread_of=thread_of
        )

    async def check_computer_matches(self, guild_id: int, human_id: int) -> None:
        """Raise TooManyComputerMatches if ``human_id`` may start no other match against the
        computer in ``guild_id`` now (a read: :meth:`start_computer_match` counts again as it
        stores)."""
        async with self._database.snapshot() as db:
            await _check_computer_matches(db, guild_id, human_id)

    async def start_computer_match(
        self,
        guild_id: int,
        channel_id: int,
        human_id: int,
        computer_id: int,
        *,
        level: int = 3,
        ruleset: str | None = None,
        sets_total: int = 2,
        human_side: Side = Side.ATTACKERS,
        time_per_move: timedelta | None = None,
        parent_channel_id: int | None = None,
        line_message_id: int | None = None,
        thread_of: int | None = None,
        threads_here: bool = True,
        account_name: str | None = None,
    ) -> ActiveGame:
        """Start a match against the computer at once and return its first set
        (``account_name``: the name the caller has of the human's account, stored with them).

        ``parent_channel_id``: ``channel_id`` is a thread of that channel (whose allowance
        counts, and which the match's thread records, with ``line_message_id``, the message in
        the parent channel that links the thread). ``thread_of``: ``channel_id`` is a member's
        thread of that channel (not the match's own: its allowance counts, nothing more).
        ``threads_here``: a member's thread could host a game (the busy channel's refusal
        suggests one).

        Computer games are recorded but never rated. Raises ChannelBusy, ChannelNotAllowed,
        CannotChallengeSelf (``human_id == computer_id``), InvalidOption (level not 1-5,
        ruleset, sets, time per move), TooManyComputerMatches (the member already plays
        MAX_COMPUTER_MATCHES against the computer in the server).
        """
        name, per_move = await self.check_computer_match(
            guild_id,
            channel_id if parent_channel_id is None else parent_channel_id,
            human_id,
            computer_id,
            level=level,
            ruleset=ruleset,
            sets_total=sets_total,
            time_per_move=time_per_move,
            thread_of=thread_of,
        )
        async with self._database.transaction() as db:
            # Counted again as stored: presses at once must not pass the limit together.
            await db.lock(f"computer-matches:{guild_id}:{human_id}")
            await _check_computer_matches(db, guild_id, human_id)
            if account_name is not None:
                await players.ensure(db, human_id, self._clock(), account_name)
            started = await self.start_match(
                db,
                guild_id=guild_id,
                channel_id=channel_id,
                player1_id=human_id,
                player2_id=computer_id,
                player1_side=human_side,
                ruleset=name,
                sets_total=sets_total,
                time_per_move=per_move,
                computer_id=computer_id,
                computer_level=level,
                threads_here=threads_here,
            )
            if parent_channel_id is None:
                return started
            await places.set_thread(db, started.match_id, parent_channel_id, line_message_id)
            row = await sets.by_id(db, started.set_id)
        assert row is not None
        return replace(active_game(row, started.game), owed=started.owed)

    async def start_match(
        self,
        db: Connection,
        *,
        guild_id: int,
        channel_id: int,
        player1_id: int,
        player2_id: int,
        player1_side: Side,
        ruleset: str,
        sets_total: int,
        time_per_move: timedelta,
        computer_id: int | None = None,
        computer_level: int | None = None,
        threads: bool = True,
        threads_here: bool = True,
    ) -> ActiveGame:
        """Inside a caller's transaction: store a match and its first set (internal use).

        Raises ChannelBusy if the channel has a game in progress (the database refuses a
        second one), in the words of a challenge refused there (bot/services/terms.py
        ``busy``: ``threads``, the server's setting, and ``threads_here``, a member's thread
        could host the game, decide whether its refusal suggests a thread).
        """
        now = self._clock()
        now_us = to_us(now)
        for user_id in (player1_id, player2_id):
            await players.ensure(db, user_id, now)
        playing = await sets.active_in_channel(db, channel_id)
        if playing is not None:
            raise busy(playing, threads=threads, threads_here=threads_here)
        await places.keep_thread_open(db, channel_id)
        match_id = await sets.insert_match(
            db,
            guild_id=guild_id,
            channel_id=channel_id,
            player1_id=player1_id,
            player2_id=player2_id,
            player1_side=player1_side.value,
            ruleset=ruleset,
            sets_total=sets_total,
            time_per_move_us=duration_us(time_per_move),
            computer_id=computer_id,
            computer_level=computer_level,
            rated=computer_id is None,
            now_us=now_us,
        )
        attacker, defender = (
            (player1_id, player2_id) if player1_side is Side.ATTACKERS else (player2_id, player1_id)
        )
        set_id = await insert_set(
            db,
            match_id=match_id,
            set_number=1,
            guild_id=guild_id,
            channel_id=channel_id,
            ruleset=ruleset,
            attacker_id=attacker,
            defender_id=defender,
            time_per_move=time_per_move,
            now=now,
        )
        # Its first board is owed from now, as a move's is: a restart before it is out (or
        # Discord refusing it) leaves it to the outbox, not the players without a board.
        await announcements.owed(db, set_id, 0, channel_id, now_us)
        owed = await announcements.owed_at(db, set_id, 0)
        row = await sets.by_id(db, set_id)
        assert row is not None
        assert owed is not None
        game = Game(ruleset)
        self._cache.remember(set_id, game)
        # Its first board as owed here: posted, it marks out only itself, not a final board
        # owed anew at ply 0 meanwhile (the match aborted while it was drawn).
        return replace(active_game(row, game), owed=owed_board(set_id, 0, owed))


async def _check_computer_matches(db: Connection, guild_id: int, human_id: int) -> None:
    """Raise TooManyComputerMatches if ``human_id`` already plays the most matches against
    the computer allowed at once in ``guild_id`` (else one member could open a thread, and
    queue a search, per command without end)."""
    if await sets.computer_matches_of(db, guild_id, human_id) >= MAX_COMPUTER_MATCHES:
        raise TooManyComputerMatches(MAX_COMPUTER_MATCHES)


async def check_member_matches(
    db: Connection,
    guild_id: int,
    asker_id: int,
    *player_ids: int,
    lock: bool = False,
    challenging: bool = False,
    rematch: bool = False,
) -> None:
    """Raise TooManyMatches if ``asker_id`` or another of ``player_ids`` (checked in that
    order) already plays the most matches against members allowed at once in ``guild_id``
    (else two members could open a public thread per accepted challenge without end, and
    Discord caps a server's active threads). ``lock``: inside a caller's transaction that
    stores a match, the members' counts are locked until it ends, so that accepts at once
    cannot pass the limit together. ``challenging``: ``player_ids`` are named in a challenge
    ``asker_id`` is about to make (its refusal says to challenge them later; ``rematch``: to
    ask for the rematch again later)."""
    players = (asker_id, *(player for player in player_ids if player != asker_id))
    if lock:
        for player_id in sorted(players):  # always in one order: two locks never deadlock
            await db.lock(f"member-matches:{guild_id}:{player_id}")
    for player_id in players:
        if await sets.member_matches_of(db, guild_id, player_id) >= MAX_MEMBER_MATCHES:
            if player_id == asker_id:
                raise TooManyMatches(MAX_MEMBER_MATCHES)
            raise TooManyMatches(
                MAX_MEMBER_MATCHES, player_id, challenging=challenging, rematch=rematch
            )
