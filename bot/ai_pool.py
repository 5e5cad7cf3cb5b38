"""The computer opponent's thinking, in a pool of worker processes (never on the event loop).

Every computer game asks for at most one move at a time, and requests queue first come, first
served for a worker (``asyncio.Semaphore`` wakes waiters in order), so many games share the
pool fairly: a game waits at most for the searches queued before it, each bounded by the time
per move. Closing the pool cancels the queued requests and stops the workers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import random
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from engine import Game, Move, Side
from engine.board import Board

_log = logging.getLogger(__name__)

Thinker = Callable[..., str]
T = TypeVar("T")


def one_ply_think(
    ruleset: str,
    start_position: str,
    start_side: str,
    moves: Sequence[str],
    level: int,
    time_limit: float | None = None,
    seed: int | None = None,
) -> str:
    """The simplest honest opponent: take a win, avoid a move that loses at once, else capture.

    Used only while ``engine.search`` is not available. Same signature as ``engine.search.think``.
    """
    game = Game.from_position(start_position, to_move=Side(start_side), ruleset=ruleset)
    for move in moves:
        game.play(move)
    board = game.board
    me = board.turn
    rng = random.Random(seed)
    safe: list[tuple[int, int]] = []
    fallback: list[int] = []
    for code in board.moves():
        captured = board.push(code)
        try:
            outcome = board.outcome
            if outcome is not None:
                if outcome.winner is _side(me):
                    return _text(code)
                continue
            if _opponent_wins_next(board, me):
                fallback.append(code)
                continue
            safe.append((len(captured), code))
        finally:
            board.pop()
    if safe:
        best = max(score for score, _ in safe)
        return _text(rng.choice([code for score, code in safe if score == best]))
    choices = fallback or board.moves()
    return _text(rng.choice(choices))


def _opponent_wins_next(board: Board, me: int) -> bool:
    for reply in board.moves():
        board.push(reply)
        outcome = board.outcome
        board.pop()
        if outcome is not None and outcome.winner is _side(me).opponent:
            return True
    return False


def _side(turn: int) -> Side:
    return Side.ATTACKERS if turn == 1 else Side.DEFENDERS


def _text(code: int) -> str:
    return str(Move.from_code(code))


def default_thinker() -> Thinker:
    """``engine.search.think`` when it exists, else :func:`one_ply_think`."""
    try:
        from engine.search import think
    except ImportError:
        _log.warning("engine.search is not available; the computer plays one move deep")
        return one_ply_think
    return think


class PoolClosed(Exception):
    """The pool was closed while a move was being asked for."""


class AIPool:
    """Worker processes that choose the computer's moves."""

    def __init__(
        self,
        *,
        workers: int = 0,
        time_per_move: timedelta | None = None,
        thinker: Thinker | None = None,
    ) -> None:
        self.workers = workers or max(1, os.cpu_count() or 1)
        self.time_per_move = time_per_move
        self._thinker = thinker or default_thinker()
        self._slots = asyncio.Semaphore(self.workers)
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # forkserver: forking the bot itself (threads, sockets) into workers is unsafe.
            context = multiprocessing.get_context("forkserver")
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context
            )
        return self._executor

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        """The computer's move in ``game`` at ``level`` (1-5), as text such as ``d1-d3``."""
        if self._closed:
            raise PoolClosed("the computer opponent is shutting down")
        moves = [str(record.move) for record in game.records]
        async with self._slots:
            if self._closed:
                raise PoolClosed("the computer opponent is shutting down")
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(
                self._pool(),
                self._thinker,
                game.ruleset.name,
                game.starting_position,
                game.starting_side.value,
                moves,
                level,
                None if self.time_per_move is None else self.time_per_move.total_seconds(),
                seed,
            )
            try:
                return await future
            except concurrent.futures.process.BrokenProcessPool:
                _log.error("A computer-opponent worker died; starting a fresh pool")
                self._executor = None
                raise

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker (a picklable module-level function), queued with the
        computer's moves: the analysis's searches take a worker in turn, one position at a time.
        """
        if self._closed:
            raise PoolClosed("the engine is shutting down")
        async with self._slots:
            if self._closed:
                raise PoolClosed("the engine is shutting down")
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._pool(), function, *args)
            except concurrent.futures.process.BrokenProcessPool:
                _log.error("An engine worker died; starting a fresh pool")
                self._executor = None
                raise

    async def close(self) -> None:
        """Cancel queued requests and stop the workers (a running search ends within its time)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
