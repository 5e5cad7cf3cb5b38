"""Games: matches of one or two sets, moves, resignations, timeouts, and the end of each set.

The move list in the database is the truth; positions are rebuilt by replaying it through the
engine, with a small in-memory cache of rebuilt games checked against the stored ply.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime, timedelta

import aiosqlite

from bot.ratings import rate_game
from bot.services.clock import Clock
from bot.services.domain import (
    COMPUTER_LEVELS,
    ActiveGame,
    GameExport,
    MatchEnd,
    MoveResult,
    RatingChange,
    SetEnd,
    SetSummary,
)
from bot.services.errors import (
    CannotChallengeSelf,
    ChannelBusy,
    ChannelNotAllowed,
    IllegalMove,
    InvalidOption,
    NoGameHere,
    NotAPlayer,
    NotYourTurn,
    RepetitionNeedsConfirmation,
    StaleGameError,
)
from bot.services.settings import SettingsService, check_ruleset, check_time_per_move
from bot.storage import Database, games, players, ratings
from bot.storage.games import ABORTED, FINISHED, GameRow
from bot.storage.times import duration, duration_us, from_us, to_us
from engine import (
    Game,
    IllegalMoveError,
    Outcome,
    Reason,
    SetResult,
    Side,
    score_match,
    square_name,
    write_record,
)

CACHE_SIZE = 4096
"""Rebuilt games kept in memory (each is checked against the stored ply before use)."""


class GameService:
    """Everything that happens to a game once it has started."""

    def __init__(self, database: Database, clock: Clock, settings: SettingsService) -> None:
        self._database = database
        self._clock = clock
        self._settings = settings
        self._cache: OrderedDict[int, Game] = OrderedDict()

    # ---------------------------------------------------------------- reading

    async def in_channel(self, channel_id: int) -> ActiveGame | None:
        """The game in progress in ``channel_id``, or ``None``."""
        async with self._database.reading() as db:
            row = await games.active_in_channel(db, channel_id)
            if row is None:
                return None
            game = await self._load(db, row)
        return _active(row, game)

    async def get(self, game_id: int) -> ActiveGame:
        """The game in progress with this id. Raises NoGameHere if it is not in progress."""
        async with self._database.reading() as db:
            row = await games.game(db, game_id)
            if row is None or row.status != games.ACTIVE:
                raise NoGameHere("That game is over.")
            game = await self._load(db, row)
        return _active(row, game)

    async def active(self) -> list[ActiveGame]:
        """Every game in progress, rebuilt from its moves (start-up recovery), by game id."""
        async with self._database.reading() as db:
            rows = await games.active(db)
            move_lists = await games.active_notations(db)
        found = []
        for row in rows:
            cached = self._cache.get(row.game_id)
            if cached is not None and cached.ply == row.ply and cached.outcome is None:
                game = cached
            else:
                game = _replay(row, move_lists.get(row.game_id, []))
                self._remember(row.game_id, game)
            found.append(_active(row, game))
        return found

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
        if human_id == computer_id:
            raise CannotChallengeSelf()
        if level not in COMPUTER_LEVELS:
            raise InvalidOption("The computer's level must be from 1 to 5.")
        settings = await self._settings.get(guild_id)
        if not settings.allows(channel_id):
            raise ChannelNotAllowed(settings.allowed_channel_ids)
        name = check_ruleset(ruleset or settings.default_ruleset)
        per_move = check_time_per_move(time_per_move or settings.time_per_move)
        check_sets(sets)
        async with self._database.transaction() as db:
            return await self.start_match(
                db,
                guild_id=guild_id,
                channel_id=channel_id,
                player1_id=human_id,
                player2_id=computer_id,
                player1_side=human_side,
                ruleset=name,
                sets_total=sets,
                time_per_move=per_move,
                computer_id=computer_id,
                computer_level=level,
            )

    async def start_match(
        self,
        db: aiosqlite.Connection,
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
    ) -> ActiveGame:
        """Inside a caller's transaction: store a match and its first set (internal use).

        Raises ChannelBusy if the channel has a game in progress (the database refuses a
        second one).
        """
        now = self._clock()
        now_us = to_us(now)
        for user_id in (player1_id, player2_id):
            await players.ensure(db, user_id, now)
        if await games.active_in_channel(db, channel_id) is not None:
            raise ChannelBusy()
        match_id = await games.insert_match(
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
        game_id = await self._insert_set(
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
        row = await games.game(db, game_id)
        assert row is not None
        game = Game(ruleset)
        self._remember(game_id, game)
        return _active(row, game)

    async def _insert_set(
        self,
        db: aiosqlite.Connection,
        *,
        match_id: int,
        set_number: int,
        guild_id: int,
        channel_id: int,
        ruleset: str,
        attacker_id: int,
        defender_id: int,
        time_per_move: timedelta,
        now: datetime,
    ) -> int:
        try:
            return await games.insert_game(
                db,
                match_id=match_id,
                set_number=set_number,
                guild_id=guild_id,
                channel_id=channel_id,
                ruleset=ruleset,
                attacker_id=attacker_id,
                defender_id=defender_id,
                now_us=to_us(now),
                deadline_us=to_us(now + time_per_move),
                reminder_us=to_us(now + time_per_move / 2),
            )
        except sqlite3.IntegrityError as error:
            if "channel" in str(error) or "UNIQUE" in str(error):
                raise ChannelBusy() from None
            raise

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
        async with self._database.reading() as db:
            row = await games.active_in_channel(db, channel_id)
            if row is None:
                raise NoGameHere()
            game = await self._load(db, row)
        if user_id not in (row.attacker_id, row.defender_id):
            raise NotAPlayer()
        if expected_ply is not None and expected_ply != row.ply:
            raise StaleGameError()
        if row.to_move_id != user_id:
            raise NotYourTurn(row.to_move_id)
        return await self._apply(row, game, user_id, move_text, confirm_repetition)

    async def play_computer_move(
        self, game_id: int, move_text: str, expected_ply: int
    ) -> MoveResult:
        """Play the computer's move in game ``game_id``, made against ply ``expected_ply``.

        Raises NoGameHere (the game ended meanwhile), StaleGameError (its ply changed),
        NotYourTurn (the human is to move), IllegalMove.
        """
        async with self._database.reading() as db:
            row = await games.game(db, game_id)
            if row is None or row.status != games.ACTIVE:
                raise NoGameHere("That game is over.")
            game = await self._load(db, row)
        if row.ply != expected_ply:
            raise StaleGameError()
        if row.computer_id is None or row.to_move_id != row.computer_id:
            raise NotYourTurn(row.to_move_id)
        return await self._apply(row, game, row.computer_id, move_text, True)

    async def _apply(
        self, row: GameRow, game: Game, player_id: int, move_text: str, confirm_repetition: bool
    ) -> MoveResult:
        trial = game.copy()
        try:
            move = trial.parse_move(move_text)
            if not confirm_repetition and trial.would_repeat(move):
                raise RepetitionNeedsConfirmation(str(move))
            record = trial.play(move)
        except IllegalMoveError as error:
            raise IllegalMove(str(error)) from None
        now = self._clock()
        now_us = to_us(now)
        next_to_move = row.defender_id if trial.to_move is Side.DEFENDERS else row.attacker_id
        moved = replace(
            row,
            ply=trial.ply,
            to_move_id=next_to_move,
            deadline_us=now_us + row.time_per_move_us,
            reminder_us=now_us + row.time_per_move_us // 2,
            reminded=False,
        )
        captures = "/".join(square_name(sq) for sq in record.captures)

        async def store(db: aiosqlite.Connection) -> None:
            stored = await games.add_move(
                db,
                row.game_id,
                expected_ply=row.ply,
                notation=str(record.move),
                captures=captures,
                player_id=player_id,
                now_us=now_us,
            )
            if not stored:
                raise StaleGameError()

        set_end = None
        if trial.outcome is None:
            # The common case: one INSERT, its own transaction (the trigger advances the game).
            async with self._database.single_statement() as db:
                await store(db)
        else:
            async with self._database.transaction() as db:
                await store(db)
                set_end = await self._end_set(db, moved, trial, now)
        self._remember(row.game_id, trial)
        if set_end is not None:
            return MoveResult(record, set_end.game, set_end)
        return MoveResult(record, _active(moved, trial))

    async def resign(self, channel_id: int, user_id: int) -> SetEnd:
        """``user_id`` resigns the current SET (the other player wins it; set 2 still follows).

        Raises NoGameHere, NotAPlayer.
        """
        async with self._database.reading() as db:
            row = await games.active_in_channel(db, channel_id)
            if row is None:
                raise NoGameHere()
            game = await self._load(db, row)
        if user_id == row.attacker_id:
            side = Side.ATTACKERS
        elif user_id == row.defender_id:
            side = Side.DEFENDERS
        else:
            raise NotAPlayer()
        trial = game.copy()
        trial.resign(side)
        return await self._finish(row, trial)

    async def abort(self, channel_id: int) -> SetEnd:
        """Stop the channel's game (admin): recorded, no winner, unrated; the match ends
        without ratings (its MatchEnd has ``aborted=True``). Raises NoGameHere."""
        async with self._database.reading() as db:
            row = await games.active_in_channel(db, channel_id)
            if row is None:
                raise NoGameHere()
            game = await self._load(db, row)
        trial = game.copy()
        trial.abort()
        return await self._finish(row, trial)

    async def _finish(self, row: GameRow, ended: Game) -> SetEnd:
        now = self._clock()
        async with self._database.transaction() as db:
            set_end = await self._end_set(db, row, ended, now)
        self._remember(row.game_id, ended)
        return set_end

    # ---------------------------------------------------------------- timers

    async def time_out_due(self, now: datetime | None = None) -> list[SetEnd]:
        """End every game whose move deadline is at or before ``now`` (default: the clock):
        the player to move loses on time. Returns the ended sets, by game id."""
        moment = now or self._clock()
        async with self._database.reading() as db:
            rows = await games.due_deadlines(db, to_us(moment))
        ended = []
        for row in rows:
            async with self._database.reading() as db:
                game = await self._load(db, row)
            trial = game.copy()
            trial.time_out(trial.to_move)
            try:
                ended.append(await self._finish(row, trial))
            except StaleGameError:
                continue
        return ended

    async def reminders_due(self, now: datetime | None = None) -> list[ActiveGame]:
        """Games past half their time for the current move and not yet reminded (humans to
        move only); each is marked reminded, so it is returned once per move."""
        moment = now or self._clock()
        async with self._database.reading() as db:
            rows = await games.due_reminders(db, to_us(moment))
        due = []
        for row in rows:
            async with self._database.transaction() as db:
                marked = await games.mark_reminded(db, row.game_id, row.ply)
            if not marked:
                continue
            async with self._database.reading() as db:
                game = await self._load(db, row)
            due.append(_active(replace(row, reminded=True), game))
        return due

    # ---------------------------------------------------------------- records

    async def export(
        self, *, game_id: int | None = None, channel_id: int | None = None
    ) -> GameExport:
        """A set's OpenTafl record (player names as tags) and engine game for a replay.

        Give ``game_id``, or ``channel_id`` for the channel's current or latest game. Raises
        NoGameHere when there is none.
        """
        async with self._database.reading() as db:
            if game_id is not None:
                row = await games.game(db, game_id)
            elif channel_id is not None:
                row = await games.latest_in_channel(db, channel_id)
            else:
                raise NoGameHere("Say which game to export.")
            if row is None:
                raise NoGameHere("There is no game to export here.")
            game = await self._load(db, row)
            names = await players.names(db, [row.attacker_id, row.defender_id])
        attacker = names.get(row.attacker_id, str(row.attacker_id))
        defender = names.get(row.defender_id, str(row.defender_id))
        tags = {
            "attackers": attacker,
            "defenders": defender,
            "set": f"{row.set_number}/{row.sets_total}",
            "date": from_us(row.started_us).strftime("%Y-%m-%d"),
            "game-id": str(row.game_id),
        }
        copy = game.copy()
        return GameExport(row.game_id, write_record(copy, tags), copy, attacker, defender)

    # ---------------------------------------------------------------- internals

    async def _load(self, db: aiosqlite.Connection, row: GameRow) -> Game:
        """The rebuilt game for ``row`` (from the cache if it is at the stored ply)."""
        cached = self._cache.get(row.game_id)
        if cached is not None and cached.ply == row.ply and _ended_alike(cached, row):
            self._cache.move_to_end(row.game_id)
            return cached
        game = _replay(row, await games.notations(db, row.game_id))
        self._remember(row.game_id, game)
        return game

    def _remember(self, game_id: int, game: Game) -> None:
        self._cache[game_id] = game
        self._cache.move_to_end(game_id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    async def _end_set(
        self, db: aiosqlite.Connection, row: GameRow, ended: Game, now: datetime
    ) -> SetEnd:
        """Inside a transaction: store the set's end, rate it, start the next set or settle."""
        outcome = ended.outcome
        assert outcome is not None
        aborted = outcome.reason is Reason.ABORTED
        winner_id = _player_of(row, outcome.winner) if outcome.winner else None
        loser_id = _player_of(row, outcome.winner.opponent) if outcome.winner else None
        stored = await games.finish_game(
            db,
            row.game_id,
            expected_ply=ended.ply,
            status=ABORTED if aborted else FINISHED,
            winner_side=outcome.winner.value if outcome.winner else None,
            winner_id=winner_id,
            reason=outcome.reason.value,
            now_us=to_us(now),
        )
        if not stored:
            raise StaleGameError()
        finished_row = replace(
            row,
            status=ABORTED if aborted else FINISHED,
            winner_side=outcome.winner.value if outcome.winner else None,
            winner_id=winner_id,
            reason=outcome.reason.value,
            finished_us=to_us(now),
        )
        changes: tuple[RatingChange, ...] = ()
        if row.rated and not aborted:
            changes = await self._rate(db, row, winner_id, now)
        next_game = None
        match_end = None
        if not aborted and row.set_number < row.sets_total:
            per_move = duration(row.time_per_move_us)
            next_id = await self._insert_set(
                db,
                match_id=row.match_id,
                set_number=row.set_number + 1,
                guild_id=row.guild_id,
                channel_id=row.channel_id,
                ruleset=row.ruleset,
                attacker_id=row.defender_id,
                defender_id=row.attacker_id,
                time_per_move=per_move,
                now=now,
            )
            next_row = await games.game(db, next_id)
            assert next_row is not None
            fresh = Game(row.ruleset)
            self._remember(next_id, fresh)
            next_game = _active(next_row, fresh)
        else:
            match_end = await self._settle(db, row, aborted, now)
        return SetEnd(
            game=_active(finished_row, ended),
            outcome=outcome,
            winner_id=winner_id,
            loser_id=loser_id,
            moves=ended.ply,
            next_game=next_game,
            match_end=match_end,
            rating_changes=changes,
        )

    async def _rate(
        self, db: aiosqlite.Connection, row: GameRow, winner_id: int | None, now: datetime
    ) -> tuple[RatingChange, ...]:
        attacker, defender = row.attacker_id, row.defender_id
        before_a = await ratings.rating(db, row.guild_id, attacker)
        before_d = await ratings.rating(db, row.guild_id, defender)
        score = 1.0 if winner_id == attacker else 0.0 if winner_id == defender else 0.5
        after_a, after_d = rate_game(before_a, before_d, score)
        changes = []
        for user_id, before, after, points in (
            (attacker, before_a, after_a, score),
            (defender, before_d, after_d, 1.0 - score),
        ):
            await ratings.record_game(
                db,
                guild_id=row.guild_id,
                user_id=user_id,
                game_id=row.game_id,
                before=before,
                after=after,
                score=points,
                now_us=to_us(now),
            )
            changes.append(
                RatingChange(
                    user_id, before.rating, after.rating, before.deviation, after.deviation
                )
            )
        return tuple(changes)

    async def _settle(
        self, db: aiosqlite.Connection, row: GameRow, aborted: bool, now: datetime
    ) -> MatchEnd:
        """Inside a transaction: the match result per RULES.md §11, stored."""
        match = await games.match(db, row.match_id)
        assert match is not None
        sets = tuple(
            _summary(game_row)
            for game_row in await games.match_games(db, row.match_id)
            if game_row.status != games.ACTIVE
        )
        pair = (match.player1_id, match.player2_id)
        if aborted:
            await games.finish_match(
                db,
                row.match_id,
                status=ABORTED,
                winner_id=None,
                reason=Reason.ABORTED.value,
                now_us=to_us(now),
            )
            return MatchEnd(row.match_id, pair, None, None, None, sets, True, match.rated)
        result = score_match(
            pair,
            [SetResult(winner=s.winner_id, moves=s.moves) for s in sets],
        )
        await games.finish_match(
            db,
            row.match_id,
            status=FINISHED,
            winner_id=result.winner,
            reason=result.reason.value,
            now_us=to_us(now),
        )
        if match.rated and result.winner is not None:
            await ratings.add_match_win(db, row.guild_id, result.winner)
        return MatchEnd(
            row.match_id, pair, result.winner, result.reason, result, sets, False, match.rated
        )


def check_sets(sets: int) -> int:
    """``sets`` if it is 1 or 2, else InvalidOption."""
    if sets not in (1, 2):
        raise InvalidOption("A match has 1 or 2 sets.")
    return sets


def _player_of(row: GameRow, side: Side) -> int:
    return row.attacker_id if side is Side.ATTACKERS else row.defender_id


def _ended_alike(game: Game, row: GameRow) -> bool:
    """Whether a cached game agrees with the row on being over."""
    return (game.outcome is None) == (row.status == games.ACTIVE)


def _replay(row: GameRow, notations: list[str]) -> Game:
    """The game rebuilt from its stored moves, with a stored resignation/timeout/abort applied."""
    game = Game.from_moves(notations, ruleset=row.ruleset)
    if game.outcome is None and row.status != games.ACTIVE and row.reason is not None:
        reason = Reason(row.reason)
        if reason is Reason.ABORTED:
            game.abort()
        elif row.winner_side is not None:
            loser = Side(row.winner_side).opponent
            if reason is Reason.TIMEOUT:
                game.time_out(loser)
            else:
                game.resign(loser)
    return game


def _summary(row: GameRow) -> SetSummary:
    winner = Side(row.winner_side) if row.winner_side else None
    outcome = Outcome(winner, Reason(row.reason or Reason.ABORTED.value))
    return SetSummary(
        row.game_id,
        row.set_number,
        row.attacker_id,
        row.defender_id,
        outcome,
        row.winner_id,
        row.ply,
    )


def _active(row: GameRow, game: Game) -> ActiveGame:
    """The domain value for ``row`` with a private copy of ``game``."""
    return ActiveGame(
        game_id=row.game_id,
        match_id=row.match_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        set_number=row.set_number,
        sets_total=row.sets_total,
        ruleset=row.ruleset,
        attacker_id=row.attacker_id,
        defender_id=row.defender_id,
        time_per_move=duration(row.time_per_move_us),
        deadline=from_us(row.deadline_us),
        reminder_at=from_us(row.reminder_us),
        started_at=from_us(row.started_us),
        computer_id=row.computer_id,
        computer_level=row.computer_level,
        game=game.copy(),
    )
