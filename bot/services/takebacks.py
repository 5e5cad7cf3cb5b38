"""Takebacks: a player asks to take their last move back; the opponent accepts or declines.

Against the computer a takeback is granted at once and undoes the player's last move together
with the computer's reply. Undone moves are kept in an audit table with who asked and who
accepted; the game's record and replay show the game as played after the takeback.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from bot.i18n import Text, _
from bot.services.clock import Clock
from bot.services.domain import (
    TAKEBACK_LIFETIME,
    ActiveGame,
    OwedBoard,
    Takeback,
    TakebackStatus,
)
from bot.services.errors import (
    CannotTakeBack,
    ForeignButton,
    NoGameHere,
    NotAPlayer,
    TakebackLapsed,
    TakebackWaiting,
    set_over,
)
from bot.services.games import GameService, owed_board
from bot.services.held import NOTHING, Held
from bot.services.sets import check_in_time
from bot.shards import Shards
from bot.storage import Database, announcements, sets, takebacks
from bot.storage.connection import Connection
from bot.storage.sets import EVERY, SetRow
from bot.storage.takebacks import TakebackRow
from bot.storage.times import from_us, to_us

MOVED_ON = _("The game moved on: nothing was taken back.")
"""Why a takeback against the computer took nothing back: the game is no longer where it was
asked (a move or the set's end came first, or, to a typed /takeback, another takeback)."""
YOU_TOOK_BACK_SINCE = _(
    "You took back moves since this board was posted: nothing more was taken back. To take "
    "back more, press Takeback on the newest board."
)
"""Why a Takeback against the computer took nothing back: the player (only they take back
there) took back moves since the board it is under, with another press of it, say."""
OPPONENT_MOVED = _("Your opponent has moved since: nothing was taken back.")
"""Why a Takeback under a member's board took nothing back: the opponent's move came next."""
YOU_MOVED = _("You have moved since: nothing was taken back.")
"""Why a Takeback (or an accept) took nothing back: the player's own move came next."""
TAKEN_BACK_SINCE = _(
    "A move was taken back since this board was posted: nothing more was taken back."
)
"""Why a Takeback under a member's board took nothing back: a takeback was accepted since."""


class TakebackService:
    """Ask for, answer and lapse takebacks."""

    def __init__(
        self, database: Database, clock: Clock, games: GameService, shards: Shards = EVERY
    ) -> None:
        self._shards = shards
        self._database = database
        self._clock = clock
        self._games = games

    async def ask(
        self, channel_id: int, user_id: int, *, board: tuple[int, int] | None = None
    ) -> Takeback | ActiveGame:
        """``user_id`` asks to take back their last move in this channel's game; with
        ``board``, the position of the board they pressed Takeback under: its ply and how many
        moves had been taken back in the set (a double press against the computer would
        otherwise take back the round before too, and a board from before a takeback, once a
        new move brought the game back to its ply, a move it never showed).

        Against a member: an open request for the opponent to answer (a :class:`Takeback`).
        Against the computer: granted at once; the game after undoing the player's move and
        the computer's reply (an :class:`ActiveGame`). Raises NoGameHere, NotAPlayer and
        CannotTakeBack (no move of theirs to undo, the opponent moved since, the computer is
        still thinking, a request already open).
        """
        active = await self._games.in_channel(channel_id)
        if active is None:
            raise NoGameHere()
        if active.side_of(user_id) is None:
            raise NotAPlayer()
        if board is not None and board != (active.ply, active.undone):
            raise CannotTakeBack(_moved_on(active, board, user_id))
        records = active.game.records
        one_set = active.sets_total == 1  # one game, with no set to speak of
        if not records:
            if one_set:
                raise CannotTakeBack(_("There is no move to take back in this game yet."))
            raise CannotTakeBack(_("There is no move to take back in this set yet."))
        mover = active.player_of(records[-1].side)
        now = self._clock()
        if active.computer_id is not None:
            if mover != active.computer_id:
                raise CannotTakeBack(_("Wait for my reply first, then ask to take your move back."))
            if len(records) < 2:
                raise CannotTakeBack(_not_moved_yet(one_set))
            return await self._undo_against_computer(
                active, user_id, now, pressed=board is not None
            )
        if mover != user_id:
            if all(active.player_of(record.side) != user_id for record in records):
                raise CannotTakeBack(_not_moved_yet(one_set))
            raise CannotTakeBack(
                _("Only your own last move can be taken back, and your opponent has moved since.")
            )
        async with self._database.transaction() as db:
            # Checked under a lock on the set until the insert commits: of two requests at
            # once (a double press), the second finds the first, on PostgreSQL too.
            await db.lock(f"takebacks:{active.set_id}")
            playing = await sets.by_id(db, active.set_id)
            if playing is not None and playing.status == sets.ACTIVE:
                # The opponent's time ran out (the timer has not said so yet): the set is lost
                # on time as it stands, and a request would ask them to answer too late.
                check_in_time(playing, to_us(now), asked_by=user_id)
            if not await sets.stands_at(db, active.set_id, active.ply, active.undone):
                # The opponent's move (or the set's end) landed since the game was read: the
                # request would ask them about a move they have answered.
                stored = await sets.by_id(db, active.set_id)
                if stored is None or stored.status != sets.ACTIVE:
                    raise set_over(one_set=active.sets_total == 1)
                raise CannotTakeBack(
                    _(
                        "Only your own last move can be taken back, and your opponent has "
                        "moved since."
                    )
                )
            waiting = await takebacks.open_for_game(db, active.set_id)
            if waiting is not None:
                raise TakebackWaiting(_takeback(waiting, active), moot=waiting.ply != active.ply)
            if await takebacks.declined_at(db, active.set_id, active.ply):
                # Asked again and again, the opponent would be pinged each time.
                raise CannotTakeBack(
                    _(
                        "{player} already declined to take this move back: play on.",
                        player=f"<@{active.player_of(records[-1].side.opponent)}>",
                    )
                )
            asked_before = await takebacks.lapsed_at(db, active.set_id, active.ply)
            takeback_id = await takebacks.insert(
                db,
                set_id=active.set_id,
                ply=active.ply,
                asked_by=user_id,
                now_us=to_us(now),
                expires_us=to_us(now + TAKEBACK_LIFETIME),
            )
            row = await takebacks.get(db, takeback_id)
        assert row is not None
        return replace(
            _takeback(row, active),
            asked_before=asked_before,
            asked_of=active.player_of(records[-1].side.opponent),
            move=str(records[-1].move),
        )

    async def _undo_against_computer(
        self, active: ActiveGame, user_id: int, now: datetime, *, pressed: bool = False
    ) -> ActiveGame:
        """Undo ``user_id``'s last move and my reply in ``active`` as it was read (``pressed``:
        asked with the Takeback under a board, not typed), or refuse if the set moved since."""
        assert active.computer_id is not None
        async with self._database.transaction() as db:
            # One takeback of the set at a time (a double press), on PostgreSQL too: the
            # second finds the position the first left.
            await db.lock(f"takebacks:{active.set_id}")
            stored = await sets.by_id(db, active.set_id)
            if stored is not None:
                check_in_time(stored, to_us(now), asked_by=user_id)  # lost on time: nothing to undo
            if not await sets.stands_at(db, active.set_id, active.ply, active.undone):
                # Moved on since the game was read: a takeback and new moves back to the same
                # ply would otherwise be the moves undone.
                taken_back = pressed and stored is not None and stored.undone != active.undone
                raise CannotTakeBack(YOU_TOOK_BACK_SINCE if taken_back else MOVED_ON)
            takeback_id = await takebacks.insert(
                db,
                set_id=active.set_id,
                ply=active.ply,
                asked_by=user_id,
                answered_by=active.computer_id,
                status=TakebackStatus.ACCEPTED.value,
                now_us=to_us(now),
                expires_us=to_us(now),
            )
            # From the ply the player saw: a move of theirs landing meanwhile is not undone
            # (nor the computer's reply before it), the whole takeback is refused.
            for ply in (active.ply, active.ply - 1):
                if not await takebacks.undo_last_move(
                    db, active.set_id, takeback_id, to_us(now), from_ply=ply
                ):
                    raise CannotTakeBack(MOVED_ON)
            # The board after it is owed like a move's: posted by the outbox if the flow's
            # post is refused (a thread locked) or cut off.
            await announcements.owed(
                db, active.set_id, active.ply - 2, active.channel_id, to_us(now), taken_back=True
            )
            owed = await _owed(db, active.set_id)
        self._games.forget(active.set_id)
        return _with_owed(await self._games.get(active.set_id), owed)

    async def withdraw(self, takeback_id: int) -> None:
        """Forget the open request ``takeback_id``, whose message Discord refused: nobody was
        shown it, so nobody can answer it, and it must not stand in the way of asking again."""
        async with self._database.transaction() as db:
            await takebacks.withdraw(db, takeback_id)

    async def lapse_moot(self, takeback_id: int) -> Takeback | None:
        """Lapse the open request ``takeback_id`` if its game has moved on or ended since it
        was asked (the timers' next check would lapse it); return it (to edit), or None if it
        is no longer open or still stands."""
        async with self._database.transaction() as db:
            row = await takebacks.get(db, takeback_id)
            if row is None:
                return None
            game = await sets.by_id(db, row.set_id)
            if game is not None and game.status == sets.ACTIVE and game.ply == row.ply:
                return None
            if not await takebacks.close(
                db, takeback_id, TakebackStatus.LAPSED.value, to_us(self._clock())
            ):
                return None
        return _takeback(row, game)

    async def message_gone(self, takeback_id: int, message_id: int) -> None:
        """The request's message ``message_id`` is gone (a moderator deleted it): nobody can
        answer it any more, so it lapses, and a new request may be asked. It did ping the
        opponent, so the new one, asked about the same move, does not ping them again. Nothing
        if it is no longer open, or is shown by another message (one it notes: ``message_id``
        may be one whose note the database failed, TakebackFlow._unnoted)."""
        async with self._database.transaction() as db:
            row = await takebacks.get(db, takeback_id)
            if row is None or row.message_id not in (None, message_id):
                return
            await takebacks.close(
                db, takeback_id, TakebackStatus.LAPSED.value, to_us(self._clock())
            )

    async def set_message(self, takeback_id: int, message_id: int) -> None:
        """Remember the message asking the opponent (to edit it when the request lapses)."""
        async with self._database.transaction() as db:
            await takebacks.set_message(db, takeback_id, message_id)

    async def answer(
        self,
        takeback_id: int,
        user_id: int,
        *,
        accept: bool,
        pressed_on: tuple[int, int] | None = None,
    ) -> ActiveGame:
        """The opponent accepts (the move is undone) or declines; returns the game now.
        ``pressed_on``: the channel and message the answer came from, which must be the
        request's own (a forged button naming another request would answer it, edit the
        message pressed and post the game's board there).

        Raises ForeignButton (not the request's message), CannotTakeBack (not theirs to
        answer, already answered, lapsed because a move was played or ten minutes passed, or
        the set is over).
        """
        now = self._clock()
        async with self._database.transaction() as db:
            row = await takebacks.get(db, takeback_id)
            if row is None:
                raise CannotTakeBack(_("That takeback request is unknown."))
            if pressed_on is not None and row.message_id not in (None, pressed_on[1]):
                raise ForeignButton()
            if user_id == row.asked_by:
                raise CannotTakeBack(_("Your opponent answers your takeback request, not you."))
            if row.status != TakebackStatus.OPEN.value:
                raise CannotTakeBack(_("That takeback request was already answered or lapsed."))
        active = await self._games.get(row.set_id)  # NoGameHere once the set is over
        if pressed_on is not None and pressed_on[0] != active.channel_id:
            raise ForeignButton()
        if active.side_of(user_id) is None:
            asked = active.defender_id if row.asked_by == active.attacker_id else active.attacker_id
            raise NotAPlayer(
                _(
                    "Only {player}, who was asked, can answer this takeback request.",
                    player=f"<@{asked}>",
                )
            )
        async with self._database.transaction() as db:
            # Judged on the request and the set as stored now, not as read above: a move that
            # landed meanwhile lapses the request (and is never the move undone); a request a
            # second press answered first is answered; a player whose time ran out cannot
            # take the set back into play.
            current = await takebacks.get(db, takeback_id)
            if current is None or current.status != TakebackStatus.OPEN.value:
                raise CannotTakeBack(_("That takeback request was already answered or lapsed."))
            stored = await sets.by_id(db, row.set_id)
            lapsed = (
                stored is None
                or stored.status != sets.ACTIVE
                or stored.ply != row.ply
                or to_us(now) >= row.expires_us
            )
            if lapsed:
                await takebacks.close(db, takeback_id, TakebackStatus.LAPSED.value, to_us(now))
            else:
                assert stored is not None
                check_in_time(stored, to_us(now))
                status = TakebackStatus.ACCEPTED if accept else TakebackStatus.DECLINED
                if not await takebacks.close(db, takeback_id, status.value, to_us(now), user_id):
                    raise CannotTakeBack(_("That takeback request was already answered or lapsed."))
                if accept and not await takebacks.undo_last_move(
                    db, row.set_id, takeback_id, to_us(now), from_ply=row.ply
                ):
                    # The set moved on since it was read above (PostgreSQL): ended, or a move
                    # landed — the answerer's own, as it was their turn.
                    after = await sets.by_id(db, row.set_id)
                    if after is None or after.status != sets.ACTIVE:
                        raise set_over(one_set=active.sets_total == 1)
                    raise CannotTakeBack(YOU_MOVED)
                owed = None
                if accept:  # its board is owed like a move's (as against the computer)
                    await announcements.owed(
                        db,
                        row.set_id,
                        row.ply - 1,
                        stored.channel_id,
                        to_us(now),
                        taken_back=True,
                    )
                    owed = await _owed(db, row.set_id)
        if lapsed:  # raised once the lapse is stored (an error inside would roll it back)
            raise TakebackLapsed(_takeback(row, active))
        if accept:
            self._games.forget(row.set_id)
        return _with_owed(await self._games.get(row.set_id), owed)

    async def lapse_stale(
        self, now: datetime | None = None, *, held: Held = NOTHING
    ) -> list[Takeback]:
        """Lapse open requests that expired or whose game moved on; return them (to edit).
        One that expired in a game ``held`` (nobody can answer it there now) waits, and gets
        the time back once the hold ends."""
        moment = now if now is not None else self._clock()
        async with self._database.snapshot() as db:
            if not await takebacks.stale(db, to_us(moment), self._shards):
                return []
        async with self._database.transaction() as db:
            stale = await takebacks.stale(db, to_us(moment), self._shards)
            lapsed = []
            for row in stale:
                game = await sets.by_id(db, row.set_id)
                if (
                    game is not None
                    and game.status == "active"
                    and game.ply == row.ply
                    and held.covers(game.guild_id, game.channel_id)
                ):
                    continue  # only its time is up, where nobody can answer it now
                # Answered since it was read (an accept in its last moment, on PostgreSQL):
                # not lapsed, and its message must not say so.
                if not await takebacks.close(
                    db, row.takeback_id, TakebackStatus.LAPSED.value, to_us(moment)
                ):
                    continue
                lapsed.append(_takeback(row, game))
        return lapsed


def _not_moved_yet(one_set: bool) -> Text:
    """The refusal of a takeback asked by a player with no move in the set (the game, in a
    one-set match)."""
    if one_set:
        return _("You have not moved yet in this game.")
    return _("You have not moved yet in this set.")


def _moved_on(active: ActiveGame, board: tuple[int, int], user_id: int) -> Text:
    """Why ``user_id``'s Takeback under the board of position ``board`` takes nothing back in
    ``active``. When only moves came since (nothing taken back), whose they were: against the
    computer, the player's, with my reply still to come, or mine too; against a member, the
    first move after the board, the opponent's or the player's own. Against a member after a
    takeback, that one was accepted since; against the computer, that the player took back
    moves since (nobody else can there), and where to press to take back more."""
    ply, undone = board
    moves_since = undone == active.undone and active.ply > ply
    if active.computer_id is not None:
        if not moves_since:
            return YOU_TOOK_BACK_SINCE
        if active.computer_to_move:
            return _("Wait for my reply first, then ask to take your move back.")
        return _("I have moved since: nothing was taken back.")
    if not moves_since:
        return TAKEN_BACK_SINCE
    next_mover = active.player_of(active.game.records[ply].side)  # the move after the board
    return YOU_MOVED if next_mover == user_id else OPPONENT_MOVED


def _takeback(row: TakebackRow, game: ActiveGame | SetRow | None) -> Takeback:
    """The request ``row`` in ``game`` (its set, if it is still there)."""
    return Takeback(
        takeback_id=row.takeback_id,
        set_id=row.set_id,
        channel_id=None if game is None else game.channel_id,
        guild_id=None if game is None else game.guild_id,
        ply=row.ply,
        asked_by=row.asked_by,
        expires_at=from_us(row.expires_us),
        message_id=row.message_id,
    )


async def _owed(db: Connection, set_id: int) -> tuple[int, int, OwedBoard] | None:
    """Where set ``set_id`` stands after a takeback, in its transaction (its ply and the moves
    taken back: :attr:`SetRow.undone`), with the board the takeback owed there, as it owed it:
    a board owed anew at that ply before the flow posts this one (the set's end there: an
    abort, a resignation) keeps its own nonce, and stays owed."""
    stored = await sets.by_id(db, set_id)
    owed = await announcements.owed_at(db, set_id, stored.ply) if stored is not None else None
    if stored is None or owed is None:
        return None
    return stored.ply, stored.undone, owed_board(set_id, stored.ply, owed)


def _with_owed(active: ActiveGame, owed: tuple[int, int, OwedBoard] | None) -> ActiveGame:
    """``active`` (read after the takeback) with the board the takeback owed, if it still
    stands where the takeback left it (``owed``: :func:`_owed`)."""
    if owed is None or (active.ply, active.undone) != owed[:2]:
        return active
    return replace(active, owed=owed[2])
