"""The analysis's budget: a long set costs no more than a 60-move Brandubh set."""

from __future__ import annotations

import random

from bot.services.analysis import MAX_NODES_A_SET, SetToAnalyse
from engine import Game
from engine.analysis import ANALYSIS_NODES


def long_game(ruleset: str, moves: int, seed: int) -> Game:
    """A random game of ``ruleset`` at least ``moves`` moves long (random moves seldom end it)."""
    chance = random.Random(seed)
    game = Game(ruleset)
    while game.ply < moves:
        game.play(chance.choice(list(game.legal_moves())))
        if game.outcome is not None:  # ended early: start another
            game = Game(ruleset)
    return game


def test_a_long_big_board_set_costs_no_more_than_a_60_move_brandubh_set() -> None:
    """A 300-move 15x15 set is searched with a budget per position that keeps its whole cost
    within a 60-move Brandubh set's (a floor of 20,000 positions made it 2.5 times that)."""
    game = long_game("hnefatafl-15", 300, seed=7)
    chosen = SetToAnalyse(1, game, "a", "b", 1, 1, None)
    assert (game.ply + 1) * chosen.nodes(ANALYSIS_NODES) <= MAX_NODES_A_SET


def test_a_60_move_brandubh_set_gets_the_full_budget() -> None:
    """A 60-move Brandubh set (61 positions) is searched at the full budget everywhere."""
    game = long_game("brandubh", 60, seed=3)
    while game.ply > 60:
        game.undo()
    assert SetToAnalyse(1, game, "a", "b", 1, 1, None).nodes(ANALYSIS_NODES) == ANALYSIS_NODES
