"""The end of a set: storing it, rating it, then the next set (sides swapped) or the match result.

Everything here runs inside the caller's transaction; nothing commits on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.ratings import rate_game
from bot.services.domain import (
    THREAD_GRACE,
    ActiveGame,
    MatchEnd,
    RatingChange,
    SetEnd,
    SetSummary,
    loser_never_moved,
)
from bot.services.errors import ChannelBusy, StaleGameError, TimeRanOut
from bot.storage import places, ratings, sets
from bot.storage.connection import Connection
from bot.storage.errors import ChannelOccupied
from bot.storage.sets import ABORTED, FINISHED, SetRow
from bot.storage.times import duration, from_us, to_us
from engine import Game, Outcome, Reason, SetResult, Side, score_match


def check_in_time(row: SetRow, now_us: int, *, asked_by: int | None = None) -> None:
    """Raise TimeRanOut if the player to move in ``row`` is out of time at ``now_us``: the set
    is lost on time, whether or not the timer has said so yet (it checks every few seconds).
    ``asked_by``: the player the refusal is for, if it may be their opponent who ran out."""
    if now_us >= row.deadline_us:
        opponent = asked_by is not None and asked_by != row.to_move_id
        raise TimeRanOut(row.deadline_us, one_set=row.sets_total == 1, opponent=opponent)


async def insert_set(
    db: Connection,
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
    """Store a new set in progress (attackers to move, timers armed) and return its id.

    Raises ChannelBusy if the channel already has a game in progress.
    """
    try:
        return await sets.insert_set(
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
    except ChannelOccupied:
        raise ChannelBusy() from None


@dataclass(frozen=True)
class EndNotes:
    """What is stored of a set's end beside its outcome, for its posts (late ones too)."""

    left_server: bool = False
    """Lost by a player who had left the server (recorded as lost on time)."""
    walkover: bool = False
    """With ``left_server``: not played, lost before it began (the match's next set)."""
    aborted_by: int | None = None
    """The admin who aborted it."""


NO_NOTES = EndNotes()


async def end_set(
    db: Connection, row: SetRow, ended: Game, now: datetime, notes: EndNotes = NO_NOTES
) -> tuple[SetEnd, Game | None]:
    """Inside a transaction: store the set's end with its ``notes``, rate it, start the next
    set or settle.

    Returns the SetEnd and, when a next set started, its fresh engine game (for the cache).
    Raises StaleGameError if the game is no longer in progress at ``ended.ply``.
    """
    outcome = ended.outcome
    assert outcome is not None
    aborted = outcome.reason is Reason.ABORTED
    winner_id, _loser_id = winner_and_loser(row, outcome)
    stored = await sets.finish_set(
        db,
        row.set_id,
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
    if notes.left_server:
        await sets.mark_left_server(db, row.set_id)
        finished_row = replace(finished_row, left_server=True)
        if notes.walkover:
            await sets.mark_walkover(db, row.set_id)
            finished_row = replace(finished_row, walkover=True)
    if aborted and notes.aborted_by is not None:
        await sets.mark_aborted_by(db, row.set_id, notes.aborted_by)
        finished_row = replace(finished_row, aborted_by=notes.aborted_by)
    changes: tuple[RatingChange, ...] = ()
    if loser_never_moved(outcome.reason, outcome.winner, ended.ply):
        await sets.mark_unrated(db, row.set_id)  # a no-show's loss says nothing of strength
    elif row.rated and not aborted:
        changes = await rate(db, row, winner_id, now)
    next_game = None
    fresh = None
    match_end = None
    if not aborted and row.set_number < row.sets_total:
        per_move = duration(row.time_per_move_us)
        next_id = await insert_set(
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
        next_row = await sets.by_id(db, next_id)
        assert next_row is not None
        fresh = Game(row.ruleset)
        next_game = active_game(next_row, fresh)
    else:
        match_end = await settle(db, row, aborted, now)
    set_end = replace(
        finished_end(finished_row, ended, changes), next_game=next_game, match_end=match_end
    )
    return set_end, fresh


async def rate(
    db: Connection, row: SetRow, winner_id: int | None, now: datetime
) -> tuple[RatingChange, ...]:
    attacker, defender = row.attacker_id, row.defender_id
    # Read, compute, write: one pool at a time (processes sharing PostgreSQL end sets at once).
    await db.lock(f"ratings:{row.guild_id}:{row.ruleset}")
    before_a = await ratings.rating(db, row.guild_id, row.ruleset, attacker)
    before_d = await ratings.rating(db, row.guild_id, row.ruleset, defender)
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
            ruleset=row.ruleset,
            user_id=user_id,
            set_id=row.set_id,
            before=before,
            after=after,
            score=points,
            now_us=to_us(now),
        )
        changes.append(
            RatingChange(user_id, before.rating, after.rating, before.deviation, after.deviation)
        )
    return tuple(changes)


async def settle(db: Connection, row: SetRow, aborted: bool, now: datetime) -> MatchEnd:
    """Inside a transaction: the match result per docs/rules.md §11, stored."""
    match = await sets.match(db, row.match_id)
    assert match is not None
    end = await _match_end(db, match, aborted)
    # A match played in a thread: the thread is archived a little after the result.
    await places.schedule_archive(db, row.match_id, to_us(now + THREAD_GRACE))
    if aborted:
        await sets.finish_match(
            db,
            row.match_id,
            status=ABORTED,
            winner_id=None,
            reason=Reason.ABORTED.value,
            now_us=to_us(now),
        )
        return end
    assert end.reason is not None
    await sets.finish_match(
        db,
        row.match_id,
        status=FINISHED,
        winner_id=end.winner_id,
        reason=end.reason.value,
        now_us=to_us(now),
    )
    if match.rated and end.winner_id is not None and await sets.has_rated_set(db, row.match_id):
        await ratings.add_match_win(db, row.guild_id, row.ruleset, end.winner_id)
    return end


async def _match_end(db: Connection, match: sets.MatchRow, aborted: bool) -> MatchEnd:
    """The result of ``match`` per docs/rules.md §11, from its finished sets (none, aborted)."""
    summaries = tuple(
        summary(game_row)
        for game_row in await sets.match_sets(db, match.match_id)
        if game_row.status != sets.ACTIVE
    )
    pair = (match.player1_id, match.player2_id)
    if aborted:
        return MatchEnd(match.match_id, pair, None, None, None, summaries, True, match.rated)
    result = score_match(pair, [SetResult(winner=s.winner_id, moves=s.moves) for s in summaries])
    return MatchEnd(
        match.match_id, pair, result.winner, result.reason, result, summaries, False, match.rated
    )


async def stored_end(
    db: Connection, row: SetRow, load: Callable[[Connection, SetRow], Awaitable[Game]]
) -> SetEnd:
    """The end of the finished set ``row`` as :func:`end_set` told it, rebuilt from the store
    (``load`` gives a set's game): its winner and why, its rating changes, and what followed —
    the next set, or the match's result, with the walkover of a next set lost before it began
    by a player who had left the server (docs/rules.md §11; a next set that began and was lost
    at its first move by a player who left since is a next set, with its own end)."""
    game = await load(db, row)
    assert game.outcome is not None, f"set {row.set_id} is not over"
    changes = tuple(
        RatingChange(*change) for change in await ratings.changes_of_set(db, row.set_id)
    )
    following = next(
        (
            each
            for each in await sets.match_sets(db, row.match_id)
            if each.set_number > row.set_number
        ),
        None,
    )
    end = finished_end(row, game, changes)
    if following is None:
        return replace(end, match_end=await stored_match_end(db, row))
    if following.walkover:
        walkover = await stored_end(db, following, load)
        return replace(end, walkover=walkover, match_end=walkover.match_end)
    return replace(end, next_game=active_game(following, await load(db, following)))


async def stored_match_end(db: Connection, row: SetRow) -> MatchEnd | None:
    """The result of ``row``'s match as :func:`settle` gave it, if the match is over."""
    match = await sets.match(db, row.match_id)
    assert match is not None
    if match.status == sets.ACTIVE:
        return None
    return await _match_end(db, match, match.status == ABORTED)


def player_of(row: SetRow, side: Side) -> int:
    return row.attacker_id if side is Side.ATTACKERS else row.defender_id


def finished_end(row: SetRow, game: Game, changes: tuple[RatingChange, ...]) -> SetEnd:
    """The end of the finished set ``row`` whose ``game`` is over, with its rating
    ``changes``, as the row tells it (who left, who aborted); what followed is the caller's."""
    outcome = game.outcome
    assert outcome is not None, f"set {row.set_id} is not over"
    winner_id, loser_id = winner_and_loser(row, outcome)
    return SetEnd(
        game=active_game(row, game),
        outcome=outcome,
        winner_id=winner_id,
        loser_id=loser_id,
        moves=game.ply,
        rating_changes=changes,
        left_server=row.left_server,
        aborted_by=row.aborted_by,
    )


def winner_and_loser(row: SetRow, outcome: Outcome) -> tuple[int | None, int | None]:
    """The ids of the player who won ``row`` by ``outcome`` and of the one who lost it
    (both None when nobody won: an aborted set)."""
    if outcome.winner is None:
        return None, None
    return player_of(row, outcome.winner), player_of(row, outcome.winner.opponent)


def ended_alike(game: Game, row: SetRow) -> bool:
    """Whether a cached game agrees with the row on being over."""
    return (game.outcome is None) == (row.status == sets.ACTIVE)


def replay(row: SetRow, notations: list[str]) -> Game:
    """The game rebuilt from its stored moves, with a stored resignation/timeout/abort applied."""
    game = Game.from_moves(notations, ruleset=row.ruleset)
    if game.outcome is None and row.status != sets.ACTIVE and row.reason is not None:
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


def summary(row: SetRow) -> SetSummary:
    winner = Side(row.winner_side) if row.winner_side else None
    outcome = Outcome(winner, Reason(row.reason or Reason.ABORTED.value))
    return SetSummary(
        row.set_id,
        row.set_number,
        row.attacker_id,
        row.defender_id,
        outcome,
        row.winner_id,
        row.ply,
        row.left_server,
    )


def active_game(row: SetRow, game: Game) -> ActiveGame:
    """The domain value for ``row`` with a private copy of ``game``."""
    return ActiveGame(
        set_id=row.set_id,
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
        parent_channel_id=row.parent_channel_id,
        line_message_id=row.line_message_id,
        undone=row.undone,
        game=game.copy(),
    )
