"""The computer opponent's thinking, in a pool of worker processes (never on the event loop).

Every computer game asks for at most one move at a time, and requests queue first come, first
served for a worker (:class:`WorkerTurns`), so many games share the pool fairly: a game waits at
most for the searches queued before it, each bounded by the time per move. The analyses'
searches, which no player waits on move by move, queue behind them: however many members
analyse at once, a computer's move (or a puzzle's answer) waits only for the searches already
running. Closing the pool cancels the queued requests and stops the workers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import zlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from engine import Game
from engine.search import think

_log = logging.getLogger(__name__)

Thinker = Callable[..., str]
T = TypeVar("T")

MAX_WORKERS = 256
"""Processes thinking for the computer at most (BRANDUBH_AI_WORKERS, ``python -m bot.ai_worker
--processes``): past it a setting is a slip, not a machine's cores."""


def one_per_core() -> int:
    """The processes when none are set: one per core, at most :data:`MAX_WORKERS`."""
    return min(MAX_WORKERS, max(1, os.cpu_count() or 1))


def repeatable_seed(game: Game) -> int:
    """The seed of the weaker levels' chance in ``game``'s position, from the game itself: with a
    search bounded by positions (``BRANDUBH_AI_NODES``), the same game gives the same move."""
    moves = " ".join(str(record.move) for record in game.records)
    return zlib.crc32(f"{game.ruleset.name}|{game.starting_position}|{moves}".encode())


def search_bounds(
    game: Game, time_per_move: timedelta | None, nodes: int | None, seed: int | None
) -> tuple[float | None, int | None]:
    """The time limit (seconds) and seed of the computer's search in ``game``: ``time_per_move``
    and ``seed`` as given, or, bounded by ``nodes`` positions, no time limit and a seed from the
    game unless one is given (the same game, the same move)."""
    if nodes is not None:
        return None, repeatable_seed(game) if seed is None else seed
    return None if time_per_move is None else time_per_move.total_seconds(), seed


class WorkerTurns:
    """The pool's workers, taken in turn: first come, first served, except that a request
    someone is waiting on (``first``: a computer's move, a puzzle's answer) goes before every
    waiting request that is not (an analysis's positions)."""

    def __init__(self, workers: int) -> None:
        self._free = workers
        self._first: deque[asyncio.Future[None]] = deque()
        self._later: deque[asyncio.Future[None]] = deque()

    @contextlib.asynccontextmanager
    async def turn(self, *, first: bool) -> AsyncIterator[None]:
        """Hold a worker for the block, once every request ahead of this one has had its turn."""
        await self._take(self._first if first else self._later)
        try:
            yield
        finally:
            self._give_back()

    async def _take(self, queue: deque[asyncio.Future[None]]) -> None:
        if self._free > 0 and not self._first and not self._later:
            self._free -= 1
            return
        waiting: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(waiting)
        try:
            await waiting
        except asyncio.CancelledError:
            if waiting.done() and not waiting.cancelled():
                self._give_back()  # handed a worker as it was cancelled: the next one has it
            else:
                with contextlib.suppress(ValueError):
                    queue.remove(waiting)
            raise

    def _give_back(self) -> None:
        for queue in (self._first, self._later):
            while queue:
                waiting = queue.popleft()
                if not waiting.done():
                    waiting.set_result(None)
                    return
        self._free += 1


class PoolClosed(Exception):
    """The pool was closed while a move was being asked for."""


class ComputerOpponent(Protocol):
    """Where the computer's moves come from: this pool with SQLite, the PostgreSQL job queue
    (``bot.ai_queue``) with PostgreSQL. The game's flow asks either the same way."""

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        """The computer's move in ``game`` at ``level`` (1-5), as text such as ``d1-d3``.
        Raises PoolClosed when shutting down."""
        ...

    async def close(self) -> None:
        """Stop asking for moves."""
        ...


class AIPool:
    """Worker processes that choose the computer's moves."""

    def __init__(
        self,
        *,
        workers: int = 0,
        time_per_move: timedelta | None = None,
        nodes: int | None = None,
        thinker: Thinker | None = None,
    ) -> None:
        self.workers = workers or one_per_core()
        self.time_per_move = time_per_move
        self.nodes = nodes
        """Positions searched per move instead of a time (then the moves are repeatable)."""
        self._thinker = thinker or think
        self._turns = WorkerTurns(self.workers)
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
        time_limit, seed = search_bounds(game, self.time_per_move, self.nodes, seed)
        async with self._turns.turn(first=True):
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
                time_limit,
                seed,
                self.nodes,
            )
            try:
                return await future
            except concurrent.futures.process.BrokenProcessPool:
                _log.error("A computer-opponent worker died; starting a fresh pool")
                self._executor = None
                raise

    async def run(self, function: Callable[..., T], *args: Any, first: bool = False) -> T:
        """``function(*args)`` in a worker (a picklable module-level function), queued behind
        the computer's moves: the analysis's searches take a worker in turn, one position at a
        time. ``first``: someone waits on this answer (a puzzle's move), queued with the moves.
        """
        if self._closed:
            raise PoolClosed("the engine is shutting down")
        async with self._turns.turn(first=first):
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
