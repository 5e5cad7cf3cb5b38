"""Analyses of finished sets: which set to analyse, and the stored scores of its positions.

The searching itself happens in the bot's process pool (:mod:`bot.flow.analysis`); this service
decides what may be analysed (never a set of a match still being played, so the engine cannot be
asked for help during a game) and keeps what was found, so asking again is instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from bot.i18n import Listing, Text, _, command
from bot.services.clock import Clock
from bot.services.domain import HiddenPlaces
from bot.services.errors import NoGameHere, NotAnalysable, StillPlaying
from bot.services.records import AT_LEVEL, RecordService, check_shown
from bot.shards import EVERY, Shards
from bot.storage import Database, analyses, sets
from bot.storage.times import to_us
from engine import RULESETS, Game, Outcome, Side, get_ruleset
from engine.analysis import (
    ANALYSIS_NODES,
    CALIBRATED_RULESETS,
    GameReview,
    PositionScore,
    judge_game,
)

MAX_NODES_A_SET = 61 * ANALYSIS_NODES
"""A long set (a big board) gets a smaller budget per position, so that its analysis takes no
longer than a 60-move Brandubh set (61 positions) at the full budget — however long, it must
be answered within the 15 minutes Discord gives an interaction's follow-ups."""

CLAIM_LIFETIME = timedelta(minutes=15)
"""How long a member's claim of an analysis holds at most: an analysis is sized to be answered
within the 15 minutes Discord gives an interaction's follow-ups (after which it could not be
answered anyway), so an older claim is of a process that died with it, and no longer counts."""


@dataclass(frozen=True)
class SetToAnalyse:
    """A finished set, with what the analysis's pictures and text name."""

    set_id: int
    game: Game = field(compare=False, repr=False)
    attacker_name: str
    defender_name: str
    set_number: int
    sets_total: int
    outcome: Outcome | None
    left_by: Side | None = None
    """The side whose player had left the server, and so lost the set (recorded as lost on
    time, :attr:`~bot.services.domain.GameExport.left_by`)."""

    def nodes(self, per_position: int = ANALYSIS_NODES) -> int:
        """The search budget per position for this set (smaller for very long sets)."""
        positions = self.game.ply + 1
        return min(per_position, MAX_NODES_A_SET // positions)


class AnalysisService:
    """Choosing the set to analyse; storing and reading analyses."""

    def __init__(
        self, database: Database, clock: Clock, records: RecordService, shards: Shards = EVERY
    ) -> None:
        self._database = database
        self._clock = clock
        self._records = records
        # Which process a claim is of: the shards it runs, which its next run runs too.
        self._shards = shards
        self._owner = shards.key

    async def choose(
        self,
        guild_id: int,
        *,
        set_id: int | None = None,
        channel_id: int | None = None,
        hidden: HiddenPlaces | None = None,
        unnamed: str,
        at_level: str = AT_LEVEL,
    ) -> SetToAnalyse:
        """The set ``set_id`` of this server, or the newest finished set of ``channel_id``
        (a player whose name the bot was never told called ``unnamed``: "a player"; the
        computer named with its level as ``at_level``, as in
        :meth:`~bot.services.records.RecordService.export`).

        Raises NoGameHere when there is none (or ``set_id`` was played in a place of
        ``hidden``: :func:`~bot.services.records.check_shown`), StillPlaying while its match
        goes on.
        """
        async with self._database.snapshot() as db:
            if set_id is None:
                assert channel_id is not None
                active = await sets.active_in_channel(db, channel_id)
                if active is not None:
                    raise StillPlaying(
                        _(
                            "The game in this channel is still being played: analyse it once it "
                            "is over."
                        )
                    )
                set_id = await analyses.latest_finished_in_channel(db, channel_id)
                if set_id is None:
                    raise NoGameHere(
                        _(
                            "No game has finished in this channel yet: give a finished game's "
                            "number, or {games_command} lists where the games are.",
                            games_command=command("games"),
                        )
                    )
            row = await sets.by_id(db, set_id)
            if row is None or row.guild_id != guild_id:
                raise NoGameHere(_("There is no game {game} in this server.", game=set_id))
            check_shown(row, hidden or {})
            if row.status == sets.ACTIVE:
                raise StillPlaying(
                    _("Game {game} is still being played: analyse it after.", game=set_id)
                )
            if row.ruleset not in CALIBRATED_RULESETS:
                raise NotAnalysable(
                    _(
                        "Game {game} was played with {ruleset}, whose winning chances I have "
                        "not measured: I can analyse games of {rulesets}.",
                        game=set_id,
                        ruleset=Text(get_ruleset(row.ruleset).title),
                        rulesets=Listing(
                            tuple(
                                Text(ruleset.title)
                                for name, ruleset in RULESETS.items()
                                if name in CALIBRATED_RULESETS
                            )
                        ),
                    )
                )
            playing = await analyses.match_in_progress(db, set_id)
            if playing is not None:
                raise StillPlaying(
                    _(
                        "Game {game}'s match is still being played (set {set}): analyse it once "
                        "the match is over.",
                        game=set_id,
                        set=playing,
                    )
                )
        exported = await self._records.export(set_id=set_id, unnamed=unnamed, at_level=at_level)
        if not exported.game.records:
            raise NoGameHere(
                _("Game {game} ended before any move: there is nothing to analyse.", game=set_id)
            )
        return SetToAnalyse(
            set_id=set_id,
            game=exported.game,
            attacker_name=exported.attacker_name,
            defender_name=exported.defender_name,
            set_number=row.set_number,
            sets_total=row.sets_total,
            outcome=exported.game.outcome,
            left_by=exported.left_by,
        )

    async def claim(self, user_id: int, set_id: int) -> int | None:
        """Claim ``user_id``'s one analysis at a time, for ``set_id``: None when claimed (or
        joined: the same set asked again shares it, and counts once more until
        :meth:`release`), else the set their analysis under way is of. Held in the database,
        so it holds across every bot process; a claim CLAIM_LIFETIME old is dropped."""
        now = self._clock()
        async with self._database.transaction() as db:
            await db.lock(f"analysis-claim:{user_id}")
            running = await analyses.claim(
                db, user_id, set_id, to_us(now), to_us(now - CLAIM_LIFETIME), self._owner
            )
        return None if running == set_id else running

    async def drop_dead_claims(self) -> int:
        """At start-up, before any /analyse: drop the claims this process's earlier run died
        with (killed, or its machine lost; a clean stop releases them), which would refuse
        their members for up to CLAIM_LIFETIME; return how many. On SQLite that is every
        claim (one process owns the file). On PostgreSQL it is those made by a process of the
        same shards, and by processes of another count of shards (a layout changed: none of
        them runs now, as the shard claim ensures, bot/storage/shard_claim.py); those of the
        other processes of this layout lapse after CLAIM_LIFETIME unless their own restart
        drops them."""
        async with self._database.transaction() as db:
            return await analyses.drop_dead_claims(db, self._shards)

    async def release(self, user_id: int, set_id: int) -> None:
        """One of ``user_id``'s requests for the analysis of ``set_id`` is answered (or
        failed): their claim ends with the last."""
        async with self._database.transaction() as db:
            await analyses.release(db, user_id, set_id)

    async def stored(self, chosen: SetToAnalyse, nodes: int) -> GameReview | None:
        """The stored review of ``chosen`` made with ``nodes`` per position, if there is one."""
        async with self._database.snapshot() as db:
            row = await analyses.load(db, chosen.set_id)
        if row is None or row.nodes != nodes or len(row.scores) != chosen.game.ply + 1:
            return None
        return judge_game(chosen.game, [PositionScore.parse(line) for line in row.scores])

    async def store(
        self, chosen: SetToAnalyse, nodes: int, scores: Sequence[PositionScore]
    ) -> GameReview:
        """Keep the positions' scores of ``chosen``; return the review they make."""
        review = judge_game(chosen.game, scores)
        row = analyses.AnalysisRow(
            chosen.set_id, nodes, tuple(str(score) for score in scores), to_us(self._clock())
        )
        async with self._database.transaction() as db:
            await analyses.save(db, row)
        return review
