"""Games once started (bot/services/matches.py starts them): moves, resignations, aborts, and
the end of each set (one lost on time too, which bot/services/clocks.py finds), which starts a
match's next set or ends the match.

The move list in the database is the truth; positions are rebuilt by replaying it through the
engine, with a small in-memory cache of rebuilt games checked against the stored ply. A move is
first tried against the set as this process last stored it, in one round trip (the write lands
only at that ply, while the set is in progress); when that fails, the set is read again and the
move is judged on it, so a refusal always speaks of the set as stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime

from bot.i18n import _
from bot.i18n.text import engine_sentence
from bot.services.clock import Clock
from bot.services.domain import (
    ActiveGame,
    MoveResult,
    OwedBoard,
    SetEnd,
    moves_stamp,
)
from bot.services.errors import (
    GameError,
    IllegalMove,
    NoGameHere,
    NotAPlayer,
    NotYourTurn,
    RepetitionNeedsConfirmation,
    StaleGameError,
    TimeRanOut,
    set_over,
)
from bot.services.game_cache import GameCache
from bot.services.sets import (
    NO_NOTES,
    EndNotes,
    active_game,
    check_in_time,
    end_set,
    replay,
    stored_end,
)
from bot.shards import Shards
from bot.storage import Database, announcements, moves, sets
from bot.storage.connection import Connection
from bot.storage.errors import StorageError
from bot.storage.sets import EVERY, SetRow
from bot.storage.times import from_us, to_us
from engine import (
    Game,
    IllegalMoveError,
    MoveRecord,
    Reason,
    Side,
    square_name,
)

END_ATTEMPTS = 5
"""How often a resignation or abort is tried again when moves keep landing first."""


class GameService:
    """Everything that happens to a game once it has started but its clocks
    (bot/services/clocks.py) and its boards (bot/services/boards.py)."""

    def __init__(
        self,
        database: Database,
        clock: Clock,
        shards: Shards = EVERY,
        cache: GameCache | None = None,
    ) -> None:
        self._shards = shards
        """The servers whose timers and recovery this process drives."""
        self._database = database
        self._clock = clock
        self._cache = cache if cache is not None else GameCache()

    # ---------------------------------------------------------------- reading

    async def in_channel(self, channel_id: int) -> ActiveGame | None:
        """The game in progress in ``channel_id``, or ``None``."""
        found = await self._read(lambda db: sets.active_in_channel(db, channel_id))
        return None if found is None else active_game(*found)

    async def guilds_in_play(self, channel_ids: list[int]) -> dict[int, int]:
        """Of ``channel_ids``, those with a game in progress, each with its server (one read
        for all of them)."""
        if not channel_ids:
            return {}
        async with self._database.single_read() as db:
            return await sets.guilds_in_play(db, channel_ids)

    async def turn_began(self, set_id: int) -> datetime | None:
        """When the turn of set ``set_id``'s player to move began (its last move, the takeback
        that gave the turn back, or the set's start), if it is in progress."""
        async with self._database.single_read() as db:
            began = await sets.turn_began(db, set_id)
        return None if began is None else from_us(began)

    async def get(self, set_id: int) -> ActiveGame:
        """The game in progress with this id. Raises NoGameHere if it is not in progress."""
        found = await self._read(lambda db: sets.active_by_id(db, set_id))
        if found is None:
            raise NoGameHere(_("That game is over."))
        return active_game(*found)

    async def ended(self, set_id: int) -> SetEnd:
        """How the finished set ``set_id`` ended, and what followed, as its end was told
        (for a post of it made late). Raises NoGameHere if it is unknown or not over."""
        async with self._database.snapshot() as db:
            row = await sets.by_id(db, set_id)
            if row is None or row.status == sets.ACTIVE:
                raise NoGameHere()
            return await stored_end(db, row, self._cache.load)

    async def active(self) -> list[ActiveGame]:
        """Every game in progress, rebuilt from its moves (start-up recovery), by game id."""
        async with self._database.snapshot() as db:
            rows = await sets.active(db, self._shards)
            move_lists = await moves.active_notations(db, self._shards)
        found = []
        for row in rows:
            game = self._cache.game(row)
            if game is None:
                game = replay(row, move_lists.get(row.set_id, []))
                self._cache.remember(row.set_id, game)
            found.append(active_game(row, game))
        return found

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
        move landed first: two racing moves never both land). A move whose set ended while it
        was on its way (the opponent resigned, an admin aborted it) is refused with NoGameHere
        saying that the set (a one-set match's game) is over.
        """
        known = self._cache.set_in(channel_id)
        game = None if known is None else self._cache.game(known)
        raced: SetRow | None = None  # the set a write was refused in: it had moved on
        if (
            known is not None
            and game is not None
            and known.to_move_id == user_id
            and expected_ply in (None, known.ply)
        ):
            # The common case, in one round trip: the write lands only if the set is still in
            # progress at this ply. Any refusal is decided again on the set as stored now.
            try:
                return await self._apply(known, game, user_id, move_text, confirm_repetition)
            except StaleGameError as stale:
                self._cache.drop_set_in(channel_id)
                raced = None if isinstance(stale, TimeRanOut) else known
            except (IllegalMove, RepetitionNeedsConfirmation):
                self._cache.drop_set_in(channel_id)
        found = await self._read(lambda db: sets.active_in_channel(db, channel_id))
        if raced is not None and (found is None or found[0].set_id != raced.set_id):
            raise set_over(one_set=raced.sets_total == 1)
        if found is None:
            raise NoGameHere()
        row, game = found
        self._cache.store(row)
        if user_id not in (row.attacker_id, row.defender_id):
            raise NotAPlayer()
        if expected_ply is not None and expected_ply != row.ply:
            raise StaleGameError()
        if row.to_move_id != user_id:
            raise NotYourTurn(row.to_move_id, computer=row.to_move_id == row.computer_id)
        try:
            return await self._apply(row, game, user_id, move_text, confirm_repetition)
        except StaleGameError as stale:
            if isinstance(stale, TimeRanOut) or await self._in_progress(row.set_id):
                raise
            raise set_over(one_set=row.sets_total == 1) from None

    async def play_computer_move(
        self, set_id: int, move_text: str, expected_ply: int
    ) -> MoveResult:
        """Play the computer's move in game ``set_id``, made against ply ``expected_ply``.

        Raises NoGameHere (the game ended meanwhile), StaleGameError (its ply changed),
        NotYourTurn (the human is to move), IllegalMove.
        """
        found = await self._read(lambda db: sets.active_by_id(db, set_id))
        if found is None:
            raise NoGameHere(_("That game is over."))
        row, game = found
        if row.ply != expected_ply:
            raise StaleGameError()
        if row.computer_id is None or row.to_move_id != row.computer_id:
            raise NotYourTurn(row.to_move_id)
        return await self._apply(row, game, row.computer_id, move_text, True)

    async def check_move(
        self, channel_id: int, user_id: int, move_text: str, *, confirm_repetition: bool = False
    ) -> None:
        """Raise what :meth:`play` would refuse this move with, judged on the game as stored
        now, writing nothing: a read the flow can answer from before it must defer (the
        answer is then the player's alone). :meth:`play` judges again when it stores.

        The game this process knows (its cache) decides a move it finds good; a refusal is
        judged again on the game as stored, which another process may have moved on."""
        now_us = to_us(self._clock())
        known = self._cache.set_in(channel_id)
        game = None if known is None else self._cache.game(known)
        if known is not None and game is not None:
            try:
                _refusal(known, game, user_id, move_text, confirm_repetition, now_us)
                return
            except GameError:
                pass
        found = await self._read(lambda db: sets.active_in_channel(db, channel_id))
        if found is None:
            raise NoGameHere()
        row, game = found
        _refusal(row, game, user_id, move_text, confirm_repetition, now_us)

    async def _apply(
        self, row: SetRow, game: Game, player_id: int, move_text: str, confirm_repetition: bool
    ) -> MoveResult:
        now = self._clock()
        now_us = to_us(now)
        trial, record = _judge(row, game, move_text, confirm_repetition, now_us)
        captures = "/".join(square_name(sq) for sq in record.captures)

        async def store(db: Connection) -> tuple[SetRow, int]:
            moved = await moves.add_move(
                db,
                row.set_id,
                expected_ply=row.ply,
                notation=str(record.move),
                captures=captures,
                player_id=player_id,
                now_us=now_us,
            )
            if moved is None:
                raise StaleGameError()
            return moved

        set_end = None
        if trial.outcome is None:
            # The common case: one statement, its own transaction (it advances the game too).
            async with self._database.single_statement() as db:
                moved, owed_anew = await store(db)
        else:
            async with self._database.transaction() as db:
                moved, owed_anew = await store(db)
                set_end, fresh = await end_set(db, moved, trial, now)
        # The board this move owed, as the move owed it: not a board owed anew at its ply
        # before the flow posts it (an abort there), whose nonce it would take.
        owed = owed_board(row.set_id, moved.ply, (now_us, owed_anew))
        self._cache.remember(row.set_id, trial)
        if set_end is None:
            self._cache.store(moved)
        else:
            self._cache.drop_set_in(row.channel_id)
            self._remember_next(set_end, fresh)
            return MoveResult(record, replace(set_end.game, owed=owed), set_end)
        return MoveResult(record, replace(active_game(moved, trial), owed=owed))

    async def resign(self, channel_id: int, user_id: int, *, set_id: int | None = None) -> SetEnd:
        """``user_id`` resigns the current SET (the other player wins it; set 2 still follows).

        ``set_id`` pins the set meant (a button's set): if another set is being played by
        then, nothing is resigned. A move landing at the same moment does not stop the
        resignation; it takes effect after that move.

        Raises NoGameHere ("That set is already over." when ``set_id`` or the set that was
        read has ended meanwhile), NotAPlayer.
        """

        def resigned(row: SetRow, game: Game) -> Game:
            side = _side_of(row, user_id)
            trial = game.copy()
            trial.resign(side)
            return trial

        return await self._end_current(channel_id, set_id, resigned)

    async def forfeit(self, set_id: int, player_id: int, *, walkover: bool = False) -> SetEnd:
        """``player_id`` has left the server: they lose set ``set_id`` at once, whoever is to
        move, recorded as a loss on time — the end its timer would have brought (docs/rules.md
        §11: unrated if they never moved in it). ``walkover``: the set is a match's next set,
        lost before it began (not played), as its stored end says. Raises NoGameHere if the
        set is over, NotAPlayer if they do not play in it."""

        def walked_out(row: SetRow, game: Game) -> Game:
            side = _side_of(row, player_id)
            trial = game.copy()
            trial.time_out(side)
            return trial

        channel_id = (await self.get(set_id)).channel_id
        notes = EndNotes(left_server=True, walkover=walkover)
        return await self._end_current(channel_id, set_id, walked_out, notes)

    async def abort(
        self, channel_id: int, *, set_id: int | None = None, by: int | None = None
    ) -> SetEnd:
        """Stop the channel's game (admin): recorded, no winner, unrated; the match ends
        without ratings (its MatchEnd has ``aborted=True``). A move landing at the same moment
        does not stop the abort. ``set_id`` pins the set meant (a confirmation's): if another
        set is being played by then, nothing is aborted. ``by``: the admin who aborts it,
        stored (a post of its end made late names them). Raises NoGameHere."""

        def aborted(row: SetRow, game: Game) -> Game:
            trial = game.copy()
            trial.abort()
            return trial

        return await self._end_current(channel_id, set_id, aborted, EndNotes(aborted_by=by))

    async def _end_current(
        self,
        channel_id: int,
        set_id: int | None,
        end: Callable[[SetRow, Game], Game],
        notes: EndNotes = NO_NOTES,
    ) -> SetEnd:
        """End the channel's set as ``end`` says (stored with ``notes``), again on the new
        board if a move lands first.

        Only the set first read (or ``set_id``) is ended: if it is over when retrying,
        NoGameHere says so rather than ending the next set.
        """
        one_set = False  # a one-set match is one game: it has no set to speak of
        for _attempt in range(END_ATTEMPTS):
            async with self._database.snapshot() as db:
                row = await sets.active_in_channel(db, channel_id)
                if row is None and set_id is None:
                    raise NoGameHere()
                if row is None or (set_id is not None and row.set_id != set_id):
                    one_set = one_set or (set_id is not None and await _one_set(db, set_id))
                    raise set_over(one_set=one_set)
                game = await self._cache.load(db, row)
            ended = end(row, game)
            set_id, one_set = row.set_id, row.sets_total == 1
            try:
                return await self.finish(row, ended, notes)
            except StaleGameError:
                continue  # a move landed meanwhile: end the set on the new board
        raise StaleGameError(
            _("The game kept changing while I tried to end the set: please try again.")
        )

    async def finish(self, row: SetRow, ended: Game, notes: EndNotes = NO_NOTES) -> SetEnd:
        """End set ``row`` as ``ended`` (its game, ended) says, stored with ``notes``, its end
        owed to its channel like a move. Raises StaleGameError if the set is no longer in
        progress at ``ended``'s ply."""
        now = self._clock()
        async with self._database.transaction() as db:
            set_end, fresh = await end_set(db, row, ended, now, notes)
            # The set's end is announced like a move: posted later if it cannot be now.
            await announcements.owed(db, row.set_id, ended.ply, row.channel_id, to_us(now))
            owed = await announcements.owed_at(db, row.set_id, ended.ply)
        if owed is not None:  # its final board as owed here: its nonce, marked out only so
            game = replace(set_end.game, owed=owed_board(row.set_id, ended.ply, owed))
            set_end = replace(set_end, game=game)
        self._cache.remember(row.set_id, ended)
        self._remember_next(set_end, fresh)
        return set_end

    async def with_move_board(self, stored: ActiveGame, *, ended_by_it: bool) -> ActiveGame:
        """``stored``, read just after its last move was found stored though its write failed,
        with that move's board as the move owed it (:attr:`ActiveGame.owed`: its nonce, and
        what alone its post marks out), read in one snapshot: the board owed at its ply while
        the set stands there as read (in progress, nothing taken back since) or ended by that
        move (``ended_by_it``); if the set ended there since without a move (a resignation, an
        abort, time: the one board owed there after the move's), the one owed before it, at
        the move's instant. ``stored`` as it is when the set left that position (the board is
        an old one) or the database fails the read (its nonce is then read when posted)."""
        try:
            async with self._database.snapshot() as db:
                row = await sets.by_id(db, stored.set_id)
                owed = await announcements.owed_at(db, stored.set_id, stored.ply)
                played = await moves.played_us(db, stored.set_id, stored.ply - 1)
        except StorageError:
            return stored
        if row is None or owed is None or played is None:
            return stored
        if (row.ply, row.undone) != (stored.ply, stored.undone):
            return stored
        if row.status != sets.ACTIVE and not ended_by_it and owed[1] > 0:
            owed = (played, owed[1] - 1)  # the set's end owed the board there anew
        return replace(stored, owed=owed_board(stored.set_id, stored.ply, owed))

    # ---------------------------------------------------------------- internals

    async def _read(
        self, find: Callable[[Connection], Awaitable[SetRow | None]]
    ) -> tuple[SetRow, Game] | None:
        """The set that ``find`` reads, with its game; ``None`` if it finds none.

        One read statement when the game is cached at the stored ply (the common case: a
        move in a game this process drives); otherwise one snapshot that reads the set again
        with its moves, so the row and the moves agree.
        """
        async with self._database.single_read() as db:
            row = await find(db)
        if row is None:
            return None
        game = self._cache.game(row)
        if game is not None:
            return row, game
        async with self._database.snapshot() as db:
            row = await find(db)
            if row is None:
                return None
            return row, await self._cache.load(db, row)

    async def _in_progress(self, set_id: int) -> bool:
        """Whether set ``set_id`` is still being played, as stored now."""
        async with self._database.single_read() as db:
            return await sets.active_by_id(db, set_id) is not None

    def _remember_next(self, set_end: SetEnd, fresh: Game | None) -> None:
        if set_end.next_game is not None and fresh is not None:
            self._cache.remember(set_end.next_game.set_id, fresh)

    def forget(self, set_id: int) -> None:
        """Drop the cached position of ``set_id`` (its moves changed other than by a move)."""
        self._cache.forget(set_id)


async def _one_set(db: Connection, set_id: int) -> bool:
    """Whether set ``set_id`` is the one set of its match."""
    row = await sets.by_id(db, set_id)
    return row is not None and row.sets_total == 1


def _side_of(row: SetRow, user_id: int) -> Side:
    """The side ``user_id`` plays in the set ``row``; NotAPlayer if neither."""
    if user_id == row.attacker_id:
        return Side.ATTACKERS
    if user_id == row.defender_id:
        return Side.DEFENDERS
    raise NotAPlayer()


def _refusal(
    row: SetRow, game: Game, user_id: int, move_text: str, confirm_repetition: bool, now_us: int
) -> None:
    """Raise what ``user_id``'s ``move_text`` would be refused with in this set, if anything."""
    if user_id not in (row.attacker_id, row.defender_id):
        raise NotAPlayer()
    if row.to_move_id != user_id:
        raise NotYourTurn(row.to_move_id, computer=row.to_move_id == row.computer_id)
    _judge(row, game, move_text, confirm_repetition, now_us)


def _judge(
    row: SetRow, game: Game, move_text: str, confirm_repetition: bool, now_us: int
) -> tuple[Game, MoveRecord]:
    """The game after ``move_text`` (played on a copy) and its record, or the refusal: too
    late, an illegal move, or a losing repetition not confirmed."""
    check_in_time(row, now_us)  # a move made too late is refused, never played
    trial = game.copy()
    try:
        record = trial.play(move_text)
    except IllegalMoveError as error:
        raise IllegalMove(engine_sentence(error)) from None
    repeated = trial.outcome is not None and trial.outcome.reason is Reason.REPETITION
    if repeated and not confirm_repetition:
        # Played on a copy, so nothing happened: the player must confirm the losing move.
        raise RepetitionNeedsConfirmation(
            str(record.move), set_id=row.set_id, ply=game.ply, stamp=moves_stamp(game)
        )
    return trial, record


def owed_board(set_id: int, ply: int, owed: tuple[int, int]) -> OwedBoard:
    """The board of ``set_id`` at ``ply`` owed since ``owed`` (when, and how many were owed
    there before it: :func:`announcements.owed_at`), with its nonce."""
    return OwedBoard(*owed, announcements.nonce(set_id, ply, *owed))
