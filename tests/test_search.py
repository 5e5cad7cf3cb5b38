"""The computer opponent's search: budgets, reproducibility, levels and the process-pool entry."""

from __future__ import annotations

import concurrent.futures
import time

import pytest

from engine import Game, Side
from engine.search import LEVELS, SearchResult, choose_move, think


def test_a_move_is_legal_at_every_level() -> None:
    """Every level answers the opening position with a legal move."""
    for level in LEVELS:
        game = Game()
        result = choose_move(game, level=level, nodes=3000, seed=level)
        assert game.is_legal(result.move)


def test_time_budget_is_respected() -> None:
    """Full strength with a 0.3 s budget answers within 10 % of it."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    started = time.perf_counter()
    choose_move(game, level=5, time_limit=0.3)
    assert time.perf_counter() - started <= 0.33


def test_node_limited_search_is_deterministic() -> None:
    """The same node limit and seed give the same move and the same node count twice."""
    game = Game.from_moves(["d2-c2"])
    first = choose_move(game, level=5, nodes=20_000, seed=1)
    second = choose_move(game, level=5, nodes=20_000, seed=1)
    assert (first.move, first.nodes, first.score) == (second.move, second.nodes, second.score)


def test_the_game_is_left_untouched() -> None:
    """Searching does not change the position or history of the game it was given."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    before = (game.position(), game.ply, game.board.hash)
    choose_move(game, level=5, nodes=5000)
    assert (game.position(), game.ply, game.board.hash) == before


def test_finished_game_is_refused() -> None:
    """Asking for a move after the game ended raises ValueError."""
    game = Game.from_position("/7/7/7/K6/7/6t/7/", to_move=Side.DEFENDERS)
    game.play("a4-a1")
    with pytest.raises(ValueError):
        choose_move(game, level=1)


def test_result_reports_its_search() -> None:
    """The result names a legal move, a completed depth and the positions searched."""
    game = Game()
    result = choose_move(game, level=5, nodes=10_000)
    assert isinstance(result, SearchResult)
    assert result.depth >= 2 and result.nodes > 0 and result.elapsed >= 0


def test_think_round_trips_through_a_process_pool() -> None:
    """think() runs in a worker process from plain values and returns a legal move's text."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    moves = [str(record.move) for record in game.records]
    with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
        text = pool.submit(
            think, "brandubh", game.starting_position, "attackers", moves, 3, 0.2, 5
        ).result(timeout=30)
    assert game.is_legal(text)
