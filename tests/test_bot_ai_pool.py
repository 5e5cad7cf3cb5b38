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
