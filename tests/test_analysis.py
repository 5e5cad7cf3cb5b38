"""The analysis: win chances from scores, and moves judged by the chance they gave away."""

from __future__ import annotations

import pytest

from engine import RULESETS, Game, Move, Side
from engine.analysis import (
    ANALYSIS_NODES,
    CALIBRATED_RULESETS,
    WIN_CHANCE_CURVES,
    Judgement,
    PositionScore,
    analyse_game,
    curve_for,
    judge_game,
    score_position,
)
from engine.search import MATE

NODES = 20_000


def test_a_constructed_blunder_is_marked_with_a_move_that_saves_the_king() -> None:
    """d4-b4 walks the king into b1-b3's capture: a blunder, a loss in 1, and a better move."""
    game = Game.from_moves(["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"])
    review = analyse_game(game, NODES)
    blunder = review.moves[3]
    assert blunder.judgement is Judgement.BLUNDER
    assert blunder.allowed_loss_in == 1
    assert blunder.better is not None
    saved = Game.from_moves(["d1-b1", "c4-c2", "b4-b5", str(blunder.better)])
    for reply in saved.legal_moves():
        trial = saved.copy()
        trial.play(reply)
        assert trial.outcome is None, f"{blunder.better} still loses to {reply}"
    assert review.worst(Side.DEFENDERS)[0] == blunder


def test_a_missed_escape_is_marked_with_the_only_winning_move() -> None:
    """With a3-a1 winning at once, any other king move missed a win in 1; a3-a1 is the better."""
    game = Game.from_position("/5t1/3t3/K2T3/ttT1Ttt/3T3/3t3/3t3/", to_move=Side.DEFENDERS)
    game.play("a3-a2")
    review = analyse_game(game, NODES)
    [move] = review.moves
    assert move.judgement is Judgement.BLUNDER
    assert move.missed_win_in == 1
    assert move.better == Move.parse("a3-a1")


def test_the_winning_move_is_best() -> None:
    """Taking the escape is the best move, and the game's end is a certain chance."""
    game = Game.from_position("/5t1/3t3/K2T3/ttT1Ttt/3T3/3t3/3t3/", to_move=Side.DEFENDERS)
    game.play("a3-a1")
    review = analyse_game(game, NODES)
    assert review.moves[0].judgement is Judgement.BEST
    assert review.chances[-1] == 0.0


@pytest.mark.parametrize("ruleset", sorted(WIN_CHANCE_CURVES))
def test_win_chance_rises_with_the_score_and_is_exact_when_proven(ruleset: str) -> None:
    """More score, more chance, for either side to move; a proven win is 100 %, a loss 0 %."""
    curve = WIN_CHANCE_CURVES[ruleset]
    for side in Side:
        chances = [curve.win_chance(score, side) for score in range(-1000, 1001, 100)]
        assert chances == sorted(chances)
        assert 0.0 < chances[0] < chances[-1] < 1.0
    assert curve.win_chance(MATE - 3, Side.DEFENDERS) == 1.0
    assert curve.attackers_chance(MATE - 3, Side.DEFENDERS) == 0.0
    assert curve.win_chance(-(MATE - 3), Side.ATTACKERS) == 0.0


@pytest.mark.parametrize("ruleset", sorted(WIN_CHANCE_CURVES))
def test_the_start_position_is_an_open_game_on_every_curve(ruleset: str) -> None:
    """From the start, at the analysis's budget, the attackers' chance reads between 5 % and
    95 %: the curve fits the ruleset's scale (brandubh's read 2 % on brandubh-classic and 100 %
    on hnefatafl-15, where no move could lose a tenth of a win)."""
    game = Game(ruleset)
    start = score_position(game, ANALYSIS_NODES)
    chance = curve_for(ruleset).attackers_chance(start.score, game.to_move)
    assert 0.05 < chance < 0.95, f"{ruleset}: {chance:.1%}"


def test_every_ruleset_but_two_has_a_curve() -> None:
    """Every ruleset the bot offers can be analysed but 13x13, whose engine games fitted a
    curve too flat to judge a move by, and ard-ri, whose engine games at the analysis's budget
    the attackers nearly always win (README "The win-chance curves")."""
    assert set(RULESETS) - CALIBRATED_RULESETS == {"hnefatafl-13", "ard-ri"}


@pytest.mark.parametrize("ruleset", sorted(WIN_CHANCE_CURVES))
def test_a_few_hundred_points_move_the_chance_from_the_start(ruleset: str) -> None:
    """From the start's score, 300 points either way change the attackers' chance by at
    least 10 points: a curve that flat could not tell a mistake from a good move."""
    game = Game(ruleset)
    score = score_position(game, ANALYSIS_NODES).score
    curve = curve_for(ruleset)
    low, high = (curve.attackers_chance(score + d, game.to_move) for d in (-300, 300))
    assert high - low >= 0.10, f"{ruleset}: {low:.1%} to {high:.1%}"


def test_a_ruleset_without_a_curve_is_not_judged() -> None:
    """Judging needs the ruleset's curve: a name without one is refused, naming it."""
    with pytest.raises(ValueError, match="shogi"):
        curve_for("shogi")


def test_position_scores_round_trip_as_text() -> None:
    """``d1-d3 35 6`` and a finished position's ``- 100000 0`` read back unchanged."""
    for score in (PositionScore(Move.parse("d1-d3"), 35, 6), PositionScore(None, -MATE, 0)):
        assert PositionScore.parse(str(score)) == score


def test_judging_needs_a_score_for_every_position() -> None:
    """Scores must cover the start and every move: one missing is refused, naming the count."""
    game = Game.from_moves(["d1-b1"])
    with pytest.raises(ValueError, match="2 positions"):
        judge_game(game, [PositionScore(None, 0, 0)])


def test_a_move_is_not_blamed_for_the_resignation_after_it() -> None:
    """alice plays b4-b5 and resigns on bob's turn: b4-b5 is judged as it would be had she
    played on (the resignation lost the set, not the move); the graph still ends at the
    result. It was judged against the lost result, a blunder."""
    played_on = analyse_game(Game.from_moves(["d1-b1", "c4-c2", "b4-b5"]), NODES)
    game = Game.from_moves(["d1-b1", "c4-c2", "b4-b5"])
    game.resign(Side.ATTACKERS)
    resigned = analyse_game(game, NODES)
    assert resigned.moves == played_on.moves
    assert resigned.moves[-1].judgement < Judgement.BLUNDER
    assert resigned.chances[-1] == 0.0
