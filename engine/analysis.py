"""Post-game analysis: each position's score as a win chance, and each move judged by it.

The search (:mod:`engine.search`) scores every position of a game at full strength within a fixed
node budget (deterministic: no clock involved). The game's ruleset's :class:`WinChanceCurve`
turns a score into the attackers' chance of winning with a logistic curve fitted on that
ruleset's engine games (``python -m benchmarks.fit_win_chance``), and :func:`judge_game` judges
each move by how much of the mover's chance it gave away:

========== ===========================================
best       the search's own choice, or within 3 points
good       less than 10 points lost
inaccuracy 10 to 20 points lost
mistake    20 to 30 points lost (or a forced win missed)
blunder    30 points or more lost (or a forced loss allowed, or a win in one missed)
========== ===========================================

Where the search proves a result (a score near ``MATE``), the judgement says so: "missed a win
in 2" when the mover had a forced win and the move let it go, "allowed a loss in 3" when the
move let the opponent force a win. Wins and losses are counted in the side's own moves.

:func:`evaluate_position` is the picklable entry point for a process pool; :func:`analyse_game`
does a whole game in this process (tests and benchmarks).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.game import Game
from engine.moves import Move
from engine.search import MATE, MATE_BOUND, choose_move
from engine.squares import Side
from engine.translation import N_

ANALYSIS_NODES = 40_000
"""Positions each search may visit: an analysed position takes two searches (its own and the
one after its best move), and a 60-move game fits in 30 s of one core
(``python -m benchmarks.analysis_speed``)."""


@dataclass(frozen=True)
class WinChanceCurve:
    """The attackers' chance of winning, ``1 / (1 + exp(-(a + b * score + c * tempo)))``.

    ``score`` is the search's score in the attackers' view; ``tempo`` is 1 when the attackers
    are to move (it takes out the evaluation's lean towards the side to move, so that a quiet
    move does not look like a lost chance). Fitted per ruleset by maximum likelihood on engine
    games (``python -m benchmarks.fit_win_chance --ruleset NAME``): the evaluation's scale
    differs from one ruleset to another.
    """

    a: float
    """The offset: the attackers' chance's logit at a level score, defenders to move."""
    b: float
    """How steeply the chance rises per unit of score (attackers' view)."""
    c: float
    """Added when the attackers are to move."""

    def win_chance(self, score: int, to_move: Side) -> float:
        """The side to move's chance of winning, from its score (proven results are exact)."""
        if score > MATE_BOUND:
            return 1.0
        if score < -MATE_BOUND:
            return 0.0
        attackers = to_move is Side.ATTACKERS
        logit = self.a + self.b * (score if attackers else -score)
        if attackers:
            logit += self.c
        chance = 1.0 / (1.0 + math.exp(-logit))
        return chance if attackers else 1.0 - chance

    def attackers_chance(self, score: int, to_move: Side) -> float:
        """The attackers' chance from the score of the side to move."""
        chance = self.win_chance(score, to_move)
        return chance if to_move is Side.ATTACKERS else 1.0 - chance


WIN_CHANCE_CURVES: Mapping[str, WinChanceCurve] = MappingProxyType(
    {
        # ``--games 300 --nodes 8000`` with brandubh's fitted evaluation and its empty-edge
        # term (292 finished engine games, 28 won by the attackers, 4,327 positions): the
        # attackers' chance is 50 % at a score of about +1,090 in their view. Scores lean to
        # the attackers (they have twice the pieces, and the fitted tables value an attacker
        # at 163-225, a defender at 36-175) while engine games lean to the defenders (9 in 10
        # won by them), hence the large offset.
        "brandubh": WinChanceCurve(a=-8.245, b=0.00755, c=-0.107),
        # The next two: 582 finished games of 600 (22 won by the attackers), 10,115
        # positions, at 8,000 nodes a move. Their engine games are one-sided (more chance or
        # longer random openings did not change it), hence many games for 20 attackers' wins.
        "brandubh-classic": WinChanceCurve(a=-8.200, b=0.00942, c=-0.096),
        "brandubh-historical": WinChanceCurve(a=-8.200, b=0.00942, c=-0.095),
        # Ard-ri has no curve: its scores grow with the depth, and at the analysis's budget
        # (40,000 nodes a move) the attackers won 190 of 199 engine games, a curve that reads
        # the start as 100 %: nothing there could be judged.
        # 299 finished games of 300 (93 won by the attackers), 13,332 positions, at 8,000
        # nodes a move and 250 moves at most: 50 % at about +1,120.
        "tablut": WinChanceCurve(a=-6.308, b=0.00561, c=0.002),
        # 159 finished games of 160 (84 won by the attackers), 12,229 positions, at 8,000
        # nodes a move (about what a long big-board set gets): 50 % at about +1,480.
        "hnefatafl": WinChanceCurve(a=-6.642, b=0.00448, c=0.029),
        # Hnefatafl-13 has no curve: its 120 engine games (12 won by the attackers) fitted
        # one too flat to judge a move by (b = 0.00045), so its sets are not analysed.
        # 120 finished games of 120 (18 won by the attackers), 7,661 positions, at 8,000
        # nodes a move: 50 % at about +2,390.
        "hnefatafl-15": WinChanceCurve(a=-6.566, b=0.00275, c=0.037),
    }
)
"""Each ruleset's win-chance curve, by ruleset name, with how it was fitted (the settings are
``SETTINGS`` in ``benchmarks/fit_win_chance.py``; README "The win-chance curves")."""

CALIBRATED_RULESETS = frozenset(WIN_CHANCE_CURVES)
"""The rulesets whose games can be analysed: those with a fitted curve."""


def curve_for(ruleset: str) -> WinChanceCurve:
    """``ruleset``'s win-chance curve (``ValueError`` when none was fitted for it)."""
    try:
        return WIN_CHANCE_CURVES[ruleset]
    except KeyError:
        raise ValueError(f"No win-chance curve was fitted for {ruleset}.") from None


BEST_WITHIN = 0.03
INACCURACY_FROM = 0.10
MISTAKE_FROM = 0.20
BLUNDER_FROM = 0.30


class Judgement(enum.IntEnum):
    """How good a move was, from best to worst (ordered: a larger value is worse)."""

    BEST = 0
    GOOD = 1
    INACCURACY = 2
    MISTAKE = 3
    BLUNDER = 4

    @property
    def label(self) -> str:
        """The word players read: ``blunder`` (marked for translation with ``N_``)."""
        return _LABELS[self]


_LABELS = {
    Judgement.BEST: N_("best"),
    Judgement.GOOD: N_("good"),
    Judgement.INACCURACY: N_("inaccuracy"),
    Judgement.MISTAKE: N_("mistake"),
    Judgement.BLUNDER: N_("blunder"),
}


@dataclass(frozen=True)
class PositionScore:
    """What the search found in one position: its best move and the score for the side to move.

    A finished position has no move; its score is ``MATE`` or ``-MATE`` for the side to move.
    ``after_best`` is the score of the position after the best move, searched with the same
    budget (the opponent's view): a played move is judged against it, two positions with the
    same side to move, so the search's swing between odd and even depths never looks like a
    mistake. The text form ``d1-d3 35 6 -40`` (move, score, depth, after-best score; ``-`` for
    none) round-trips.
    """

    best_move: Move | None
    score: int
    depth: int
    after_best: int | None = None

    def __str__(self) -> str:
        move = "-" if self.best_move is None else str(self.best_move)
        after = "-" if self.after_best is None else str(self.after_best)
        return f"{move} {self.score} {self.depth} {after}"

    @classmethod
    def parse(cls, text: str) -> PositionScore:
        """The inverse of ``str()``."""
        move, score, depth, after = text.split()
        return cls(
            None if move == "-" else Move.parse(move),
            int(score),
            int(depth),
            None if after == "-" else int(after),
        )

    @property
    def win_in(self) -> int | None:
        """The side to move's proven win, in its own moves (``None`` unless proven)."""
        if self.score > MATE_BOUND and self.score < MATE:
            return (MATE - self.score + 1) // 2
        return None

    @property
    def loss_in(self) -> int | None:
        """The side to move's proven loss, in the opponent's moves (``None`` unless proven)."""
        if -MATE < self.score < -MATE_BOUND:
            return (MATE + self.score) // 2
        return None


@dataclass(frozen=True)
class MoveReview:
    """One move of the game judged by the search."""

    ply: int
    """The move's index in the set, from 0 (``ply + 1`` is its move number)."""
    move: Move
    side: Side
    judgement: Judgement
    chance_before: float
    """The mover's chance of winning before the move (0 to 1)."""
    chance_after: float
    """The mover's chance after it."""
    better: Move | None
    """The search's choice, when the move was worse than best."""
    missed_win_in: int | None = None
    allowed_loss_in: int | None = None

    @property
    def number(self) -> int:
        """The move's number in the set, both sides counted (move 1, 2, 3…)."""
        return self.ply + 1

    @property
    def lost(self) -> float:
        """The share of a win this move gave away (never negative)."""
        return max(0.0, self.chance_before - self.chance_after)


@dataclass(frozen=True)
class GameReview:
    """A whole set judged: the attackers' chance at every position and every move's review."""

    chances: tuple[float, ...]
    """The attackers' chance of winning before each move and after the last (plies + 1)."""
    moves: tuple[MoveReview, ...]

    def worst(self, side: Side, count: int = 3) -> list[MoveReview]:
        """``side``'s ``count`` costliest moves that were at least inaccuracies, worst first."""
        theirs = [
            review
            for review in self.moves
            if review.side is side and review.judgement >= Judgement.INACCURACY
        ]
        theirs.sort(key=lambda review: (-review.judgement, -review.lost, review.ply))
        return theirs[:count]

    def counts(self, side: Side) -> dict[Judgement, int]:
        """How many of ``side``'s moves got each judgement."""
        tally = dict.fromkeys(Judgement, 0)
        for review in self.moves:
            if review.side is side:
                tally[review.judgement] += 1
        return tally


def score_position(game: Game, nodes: int = ANALYSIS_NODES) -> PositionScore:
    """The search's best move and score in ``game``'s current position (full strength)."""
    outcome = game.outcome
    if outcome is not None or not game.legal_moves():
        won = outcome is not None and outcome.winner is game.to_move
        return PositionScore(None, MATE if won else -MATE, 0)
    result = choose_move(game, level=5, nodes=nodes)
    after = game.copy()
    after.play(result.move)
    if after.outcome is not None:
        won = after.outcome.winner is after.to_move
        after_best = MATE if won else -MATE
    else:
        after_best = choose_move(after, level=5, nodes=nodes).score
    return PositionScore(result.move, result.score, result.depth, after_best)


def evaluate_position(
    ruleset: str,
    start_position: str,
    start_side: str,
    moves: Sequence[str],
    nodes: int = ANALYSIS_NODES,
) -> str:
    """:func:`score_position` from plain values, as text: the process-pool entry point."""
    game = Game.from_position(start_position, to_move=Side(start_side), ruleset=ruleset)
    for move in moves:
        game.play(move)
    return str(score_position(game, nodes))


def positions(game: Game) -> list[Game]:
    """The game at each position of its set, from the start to after the last move, as the
    bot's pool scores them (from the moves alone): a resignation or time-out after the last
    move is not on the board (:func:`judge_game` applies it).
    """
    replay = Game.from_position(game.starting_position, game.starting_side, game.ruleset)
    out = [replay.copy()]
    for record in game.records:
        replay.play(record.move)
        out.append(replay.copy())
    return out


def analyse_game(game: Game, nodes: int = ANALYSIS_NODES) -> GameReview:
    """Score every position of ``game`` in this process and judge every move."""
    return judge_game(game, [score_position(each, nodes) for each in positions(game)])


def judge_game(game: Game, scores: Sequence[PositionScore]) -> GameReview:
    """Judge every move of ``game`` from its positions' scores (``len(records) + 1`` of them).

    The chance after the game's last move is the game's result when it has one (a resignation
    or time-out decides it as surely as a capture), but a resignation or time-out is not the
    last move's doing: that move is judged on the engine's own chance of its position (the
    player who made it may resign on the opponent's turn). Raises ValueError for a ruleset
    without a win-chance curve.
    """
    records = game.records
    if len(scores) != len(records) + 1:
        raise ValueError(f"{len(records) + 1} positions need scores, not {len(scores)}.")
    curve = curve_for(game.ruleset.name)
    sides = [record.side for record in records]
    last_to_move = sides[-1].opponent if sides else game.starting_side
    to_move = [*sides, last_to_move]
    chances = [
        curve.attackers_chance(score.score, side)
        for score, side in zip(scores, to_move, strict=True)
    ]
    judged = chances.copy()
    if game.outcome is not None and game.outcome.winner is not None:
        chances[-1] = 1.0 if game.outcome.winner is Side.ATTACKERS else 0.0
        if not game.outcome.reason.from_outside:
            judged[-1] = chances[-1]
    reviews = []
    for ply, record in enumerate(records):
        side = record.side
        before, after = scores[ply], scores[ply + 1]
        mine_after = _for(side, judged[ply + 1])
        if before.after_best is not None:
            # The best move's position and the played move's: the same side to move, the same
            # budget. The search may rate the played move higher: then nothing was lost.
            mine_before = _for(side, curve.attackers_chance(before.after_best, side.opponent))
        else:
            mine_before = _for(side, judged[ply])
        lost = max(0.0, mine_before - mine_after)
        chosen = before.best_move
        judgement = _by_loss(lost, played_best=chosen == record.move)
        missed = allowed = None
        if before.win_in is not None and after.score > -MATE_BOUND and mine_after < 1.0:
            # A forced win let go (the opponent is no longer proven lost).
            missed = before.win_in
            judgement = max(judgement, Judgement.BLUNDER if missed == 1 else Judgement.MISTAKE)
        if after.score > MATE_BOUND and before.score > -MATE_BOUND and mine_after < 1.0:
            # A position not lost before now loses by force (or the move itself lost).
            allowed = after.win_in
            judgement = Judgement.BLUNDER
        better = chosen if judgement >= Judgement.INACCURACY and chosen != record.move else None
        reviews.append(
            MoveReview(
                ply=ply,
                move=record.move,
                side=side,
                judgement=judgement,
                chance_before=max(mine_before, mine_after),
                chance_after=mine_after,
                better=better,
                missed_win_in=missed,
                allowed_loss_in=allowed,
            )
        )
    return GameReview(tuple(chances), tuple(reviews))


def _by_loss(lost: float, *, played_best: bool) -> Judgement:
    """The judgement of a move that gave away ``lost`` of a win."""
    if played_best or lost < BEST_WITHIN:
        return Judgement.BEST
    if lost < INACCURACY_FROM:
        return Judgement.GOOD
    if lost < MISTAKE_FROM:
        return Judgement.INACCURACY
    if lost < BLUNDER_FROM:
        return Judgement.MISTAKE
    return Judgement.BLUNDER


def _for(side: Side, attackers_chance: float) -> float:
    return attackers_chance if side is Side.ATTACKERS else 1.0 - attackers_chance
