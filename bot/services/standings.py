"""Standings: leaderboards, a player's stats, head-to-head records."""

from __future__ import annotations

from bot.ratings import PROVISIONAL_DEVIATION, shown_rating
from bot.services.domain import (
    DEFAULT_RULESET,
    GameSummary,
    HeadToHead,
    LeaderboardPage,
    PlayerStats,
    Standing,
    StandingKey,
    last_page,
)
from bot.storage import Database, history, players, ratings, sets
from bot.storage.ratings import StandingRow
from bot.storage.sets import SetRow
from bot.storage.times import from_us
from engine import Outcome, Reason, Side
from renderer.rating_course import RatedSet

MAX_PAGE = 100
COURSE_SETS = 100
"""How many of a player's latest rated sets /stats draws their rating over."""


class StandingsService:
    """Read-only queries over ratings and finished games."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def leaderboard(
        self,
        guild_id: int,
        offset: int = 0,
        limit: int = 10,
        *,
        ruleset: str = DEFAULT_RULESET,
        viewer_id: int | None = None,
        after: StandingKey | None = None,
        before: StandingKey | None = None,
    ) -> LeaderboardPage:
        """A page of the server's leaderboard for ``ruleset`` (highest rating first) and the
        total count of players rated in it, with ``viewer_id``'s own standing when they are
        rated there but not on the page. The page is the players right ``after`` a key (Next),
        or right ``before`` one (Previous; the whole first page once fewer than a page are
        left before it), else those from ``offset``: turned by keys, a rating that changed
        between two presses neither repeats nor skips a player. Ranks
        count from 1 and are counted, not read off the page's place; players whose ratings
        are shown alike share one (1, 2, 2, 4); ``limit`` is capped at 100."""
        offset = max(0, offset)
        limit = max(1, min(MAX_PAGE, limit))
        async with self._database.snapshot() as db:
            total = await ratings.rated_count(db, guild_id, ruleset)
            if after is not None:
                rows = await ratings.page_after(db, guild_id, ruleset, _key(after), limit)
                offset = last_page(total, total, limit)  # if nobody is left after the key
            elif before is not None:
                rows = await ratings.page_before(db, guild_id, ruleset, _key(before), limit)
                offset = 0  # if fewer than a page are left before the key
                if len(rows) < limit:  # the top: the whole first page, not its first rows
                    rows = []
            else:
                _, rows = await ratings.leaderboard(db, guild_id, ruleset, offset, limit)
                offset = last_page(offset, total, limit)  # if the list shrank below the page
            if not rows and total:
                _, rows = await ratings.leaderboard(db, guild_id, ruleset, offset, limit)
            elif rows and (after is not None or before is not None):
                offset = await ratings.place(db, guild_id, ruleset, ratings.key_of(rows[0]))
            first = 1
            if rows and offset:  # the page may begin inside a tie
                first = await ratings.rank(db, guild_id, ruleset, rows[0].rating, rows[0].deviation)
            viewer = None
            if viewer_id is not None and all(row.user_id != viewer_id for row in rows):
                viewer = await ratings.standing(db, guild_id, ruleset, viewer_id)
        standings: list[Standing] = []
        for index, row in enumerate(rows):
            if index == 0:
                rank = first
            elif _tied(rows[index - 1], row):
                rank = standings[-1].rank
            else:
                rank = offset + index + 1
            standings.append(_standing(rank, row))
        return LeaderboardPage(
            guild_id,
            offset,
            limit,
            total,
            tuple(standings),
            ruleset,
            viewer_id,
            _standing(*viewer) if viewer is not None and rows else None,
        )

    async def player_stats(
        self, guild_id: int, user_id: int, recent: int = 5, *, ruleset: str = DEFAULT_RULESET
    ) -> PlayerStats:
        """``user_id``'s rating and record in the ``ruleset`` pool with its course over their
        last rated sets there, and their ``recent`` latest finished games in the server (of any
        ruleset)."""
        async with self._database.snapshot() as db:
            found = await ratings.standing(db, guild_id, ruleset, user_id)
            rows = await history.recent_finished(db, guild_id, user_id, max(0, recent))
            ids = {user_id} | {row.attacker_id for row in rows} | {row.defender_id for row in rows}
            names = await players.names(db, guild_id, sorted(ids))
            usernames = await players.usernames(db, sorted(ids))
            rated_sets, course = await ratings.course(db, guild_id, ruleset, user_id, COURSE_SETS)
        standing = _standing(*found) if found else None
        return PlayerStats(
            guild_id,
            user_id,
            names.get(user_id),
            standing,
            tuple(_summary(row) for row in rows),
            ruleset,
            names,
            usernames,
            tuple(
                RatedSet(rating, deviation > PROVISIONAL_DEVIATION) for rating, deviation in course
            ),
            rated_sets,
        )

    async def head_to_head(self, guild_id: int, a: int, b: int) -> HeadToHead:
        """The record of ``a`` against ``b`` in the server: finished sets and matches, and the
        matches each won as the leaderboard counts them (one of sets all lost by a player who
        never moved in them is won by nobody). The sets are those played, as a player's record
        counts them: one lost by a player who never moved in it is won by nobody either, so
        the sets line and the matches line under it agree."""
        async with self._database.snapshot() as db:
            played, wins_a, wins_b = await history.sets_between(db, guild_id, a, b)
            matches = await history.matches_between(db, guild_id, a, b)
            matches_won = await history.match_wins_between(db, guild_id, a, b)
        return HeadToHead(
            guild_id,
            (a, b),
            games=played,
            wins=(wins_a, wins_b),
            draws=played - wins_a - wins_b,
            matches=matches,
            matches_won=matches_won,
        )


def _key(key: StandingKey) -> ratings.Key:
    return int(key.provisional), key.rating, key.user_id


def _tied(before: StandingRow, row: StandingRow) -> bool:
    """Whether ``row``, listed right after ``before``, shares its rank: the same rating as
    shown (1662.31 and 1662.18 both read 1662), both provisional or both established."""
    provisional = (before.deviation > PROVISIONAL_DEVIATION, row.deviation > PROVISIONAL_DEVIATION)
    same = shown_rating(before.rating) == shown_rating(row.rating)
    return same and provisional[0] == provisional[1]


def _standing(rank: int, row: StandingRow) -> Standing:
    return Standing(
        rank=rank,
        user_id=row.user_id,
        display_name=row.display_name,
        rating=row.rating,
        deviation=row.deviation,
        games=row.games,
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        matches_won=row.matches_won,
        username=row.username,
    )


def _summary(row: SetRow) -> GameSummary:
    outcome = None
    if row.reason is not None:
        winner = Side(row.winner_side) if row.winner_side else None
        outcome = Outcome(winner, Reason(row.reason))
    return GameSummary(
        set_id=row.set_id,
        match_id=row.match_id,
        set_number=row.set_number,
        ruleset=row.ruleset,
        attacker_id=row.attacker_id,
        defender_id=row.defender_id,
        outcome=outcome,
        winner_id=row.winner_id,
        moves=row.ply,
        started_at=from_us(row.started_us),
        finished_at=from_us(row.finished_us) if row.finished_us is not None else None,
        rated=row.rated and row.set_rated and row.status == sets.FINISHED,
        no_show=not row.set_rated,
        left_server=row.left_server,
        computer_id=row.computer_id,
        computer_level=row.computer_level,
    )
