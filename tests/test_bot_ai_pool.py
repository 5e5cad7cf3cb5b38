"""The computer opponent's process pool: moves come back legal, and closing it is clean."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.ai_pool import AIPool, PoolClosed
from engine import Game


async def test_pool_answers_legal_moves_for_several_games_at_once() -> None:
    """Four games asking together each get a legal move from the worker processes."""
    pool = AIPool(workers=2, time_per_move=timedelta(seconds=0.05))
    try:
        games = [Game(), Game.from_moves(["d2-c2"]), Game(), Game.from_moves(["d2-c2"])]
        moves = await asyncio.gather(
            *(pool.choose_move(game, 1, seed=i) for i, game in enumerate(games))
        )
    finally:
        await pool.close()
    for game, move in zip(games, moves, strict=True):
        assert game.is_legal(move)


async def test_closed_pool_refuses_new_requests() -> None:
    """After close(), asking for a move raises PoolClosed instead of hanging."""
    pool = AIPool(workers=1, time_per_move=timedelta(seconds=0.05))
    await pool.close()
    with pytest.raises(PoolClosed):
        await pool.choose_move(Game(), 1)


async def test_a_bound_in_positions_gives_the_same_game_the_same_move() -> None:
    """BRANDUBH_AI_NODES: searched over a number of positions, level 1 (whose choice is the
    most left to chance) plays the same move each time it is asked in the same game, as
    another pool does: its chance is seeded from the game, not from the clock."""
    games = [Game.from_moves(moves) for moves in ([], ["d2-c2"], ["d1-b1", "c4-c1"])]
    answers: list[list[str]] = []
    for _ in range(2):
        pool = AIPool(workers=1, nodes=300)
        try:
            answers.append([await pool.choose_move(game, 1) for game in games for _ in range(3)])
        finally:
            await pool.close()
    first = answers[0]
    assert first == answers[1]
    assert [first[i] for i in (0, 3, 6)] == [first[i] for i in (1, 4, 7)] == first[2::3]
