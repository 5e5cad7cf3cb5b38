"""The computer opponent's process pool: moves come back legal, and closing it is clean."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from datetime import timedelta

import pytest

from bot.ai_pool import AIPool, PoolClosed, WorkerTurns
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


async def test_a_computers_move_goes_before_the_analyses_waiting() -> None:
    """Many members analysing at once: a computer's move asked while their searches wait for
    the one worker is searched as soon as the running search ends, not after them all."""
    pool = AIPool(workers=1, nodes=300)
    done: list[str] = []

    async def noted(name: str, request: Awaitable[object]) -> None:
        await request
        done.append(name)

    try:
        running = asyncio.ensure_future(noted("running", pool.run(time.sleep, 1.0)))
        await asyncio.sleep(0)  # it has the worker
        waiting = [
            asyncio.ensure_future(noted(f"analysis {n}", pool.run(time.sleep, 0.3)))
            for n in range(3)
        ]
        await asyncio.sleep(0)
        move = asyncio.ensure_future(noted("move", pool.choose_move(Game(), 1)))
        await asyncio.gather(running, *waiting, move)
    finally:
        await pool.close()
    assert done == ["running", "move", "analysis 0", "analysis 1", "analysis 2"]


async def test_a_request_given_up_while_waiting_keeps_no_worker() -> None:
    """A request cancelled while it waits for a worker (its interaction given up, the bot
    stopping) neither holds a worker nor skips the next request's turn."""
    turns = WorkerTurns(1)
    order: list[str] = []
    holder = turns.turn(first=False)
    await holder.__aenter__()

    async def wait(name: str, first: bool) -> None:
        async with turns.turn(first=first):
            order.append(name)

    dropped = asyncio.ensure_future(wait("dropped", True))
    kept = asyncio.ensure_future(wait("kept", False))
    await asyncio.sleep(0)
    dropped.cancel()
    await holder.__aexit__(None, None, None)
    await asyncio.wait_for(kept, timeout=1)
    assert order == ["kept"]
    async with asyncio.timeout(1), turns.turn(first=True):
        order.append("after")
    assert order == ["kept", "after"]


async def test_a_request_given_up_as_its_turn_came_passes_the_worker_on() -> None:
    """A request cancelled just as a worker was handed to it (before it could run) passes
    that worker on to the next request, so the pool never loses one: with one worker, every
    later move would otherwise wait for good."""
    turns = WorkerTurns(1)
    order: list[str] = []
    holder = turns.turn(first=False)
    await holder.__aenter__()

    async def wait(name: str) -> None:
        async with turns.turn(first=True):
            order.append(name)

    dropped = asyncio.ensure_future(wait("dropped"))
    kept = asyncio.ensure_future(wait("kept"))
    await asyncio.sleep(0)
    await holder.__aexit__(None, None, None)  # the worker goes to "dropped"…
    dropped.cancel()  # …which is cancelled before it runs
    await asyncio.wait_for(kept, timeout=1)
    assert dropped.cancelled()
    assert order == ["kept"]
    async with asyncio.timeout(1), turns.turn(first=False):
        order.append("after")
    assert order == ["kept", "after"]
