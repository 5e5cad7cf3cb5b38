"""The computer opponent on any machine: its searches as jobs in a PostgreSQL queue (pgqueuer).

With PostgreSQL, a shard asks for the computer's move by enqueueing a job that carries the game
(ruleset, starting position and side, moves so far), the level, the time per move and a seed.
``python -m bot.ai_worker`` processes, on this machine or others, take the jobs one at a time
each, search with ``engine.search.think`` and store the move; pgqueuer's completion watcher
(LISTEN/NOTIFY, with a polling safety net) tells the waiting shard, which takes the move and
plays it through the game's flow like a move from the in-process pool: the flow's ply check
drops a move for a game that moved on meanwhile. A worker that dies stops its job's heartbeat,
and another worker picks the job up again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import asyncpg
from asyncpg import Record
from pgqueuer import AsyncpgDriver, AsyncpgPoolDriver, Queries
from pgqueuer.core.completion import CompletionWatcher
from pgqueuer.types import JobId

from bot.ai_pool import PoolClosed, search_bounds
from bot.storage import computer_jobs
from engine import Game

_log = logging.getLogger(__name__)

ENTRYPOINT = "computer_move"
"""The pgqueuer entrypoint of a computer's move."""

ANSWER_WITHIN = timedelta(minutes=2)
"""How long a shard waits for a worker's answer before the flow tries again (and, after its
last try, tells the players it is still trying): no worker running, or all of them busy."""

CANCEL_WITHIN = 5.0
"""Seconds a closing shard gives the database to cancel the jobs it still waits for."""


@dataclass(frozen=True)
class MoveRequest:
    """What a worker needs to choose the computer's move: ``think``'s arguments."""

    ruleset: str
    position: str
    side: str
    moves: tuple[str, ...]
    level: int
    time_limit: float | None
    seed: int | None
    nodes: int | None = None
    """Positions to search instead of a time (``BRANDUBH_AI_NODES``)."""

    def encode(self) -> bytes:
        """The job's payload (JSON)."""
        return json.dumps(
            {
                "ruleset": self.ruleset,
                "position": self.position,
                "side": self.side,
                "moves": list(self.moves),
                "level": self.level,
                "time_limit": self.time_limit,
                "seed": self.seed,
                "nodes": self.nodes,
            }
        ).encode()

    @classmethod
    def decode(cls, payload: bytes | None) -> MoveRequest:
        """The request in a job's payload. Raises ValueError when it is not one: not JSON, not
        an object, a field missing or of the wrong kind."""
        if payload is None:
            raise ValueError("a computer move job without a payload")
        try:
            data: dict[str, Any] = json.loads(payload)
        except ValueError as error:  # not UTF-8 either
            raise ValueError(f"a computer move job's payload is not JSON: {error}") from None
        if not isinstance(data, dict):
            raise ValueError(f"a computer move job's payload is not an object: {payload!r}")
        try:
            time_limit = data["time_limit"]
            seed = data["seed"]
            nodes = data.get("nodes")  # absent from a job queued before it was asked
            moves = data["moves"]
            if not isinstance(moves, list):  # a string would pass for its letters
                raise TypeError(f"its moves are not a list: {moves!r}")
            return cls(
                ruleset=str(data["ruleset"]),
                position=str(data["position"]),
                side=str(data["side"]),
                moves=tuple(str(move) for move in moves),
                level=int(data["level"]),
                time_limit=None if time_limit is None else float(time_limit),
                seed=None if seed is None else int(seed),
                nodes=None if nodes is None else int(nodes),
            )
        except KeyError as missing:
            raise ValueError(f"a computer move job's payload lacks {missing}") from None
        except (TypeError, ValueError) as error:  # a field of the wrong kind
            raise ValueError(f"a computer move job's payload is not a request: {error}") from None

    @classmethod
    def of(
        cls,
        game: Game,
        level: int,
        time_per_move: timedelta | None,
        seed: int | None,
        nodes: int | None = None,
    ) -> MoveRequest:
        """The request for the computer's move in ``game``: searched for ``time_per_move``, or
        over ``nodes`` positions with a seed from the game (the same game, the same move)."""
        time_limit, seed = search_bounds(game, time_per_move, nodes, seed)
        return cls(
            ruleset=game.ruleset.name,
            position=game.starting_position,
            side=game.starting_side.value,
            moves=tuple(str(record.move) for record in game.records),
            level=level,
            time_limit=time_limit,
            seed=seed,
            nodes=nodes,
        )


class QueuedComputer:
    """The computer opponent of a shard on PostgreSQL: moves asked of ``bot.ai_worker``s."""

    def __init__(
        self,
        url: str,
        *,
        time_per_move: timedelta | None = None,
        nodes: int | None = None,
        answer_within: timedelta = ANSWER_WITHIN,
    ) -> None:
        self.url = url
        self.time_per_move = time_per_move
        self.nodes = nodes
        self.answer_within = answer_within
        self._pool: asyncpg.Pool[Record] | None = None
        self._queries: Queries | None = None
        self._watcher: CompletionWatcher | None = None
        self._exit = contextlib.AsyncExitStack()
        self._waiting: set[asyncio.Future[Any]] = set()
        self._jobs: set[JobId] = set()
        """The jobs this process still waits for (cancelled if it closes first)."""
        self._closed = False

    async def start(self) -> None:
        """Connect, install the queue's tables if needed, and start watching for answers."""
        listener: asyncpg.Connection[Record] = await asyncpg.connect(self.url)
        self._exit.push_async_callback(listener.close)
        await computer_jobs.install(listener)
        self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=4)
        self._exit.push_async_callback(self._pool.close)
        self._queries = Queries(AsyncpgPoolDriver(self._pool))
        driver = AsyncpgDriver(listener)
        self._watcher = await self._exit.enter_async_context(
            CompletionWatcher(driver, queries=Queries(driver))
        )

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        """The computer's move in ``game`` at ``level`` (1-5), found by a worker."""
        if self._closed:
            raise PoolClosed("the computer opponent is shutting down")
        assert self._queries is not None
        assert self._watcher is not None
        assert self._pool is not None
        request = MoveRequest.of(game, level, self.time_per_move, seed, self.nodes)
        [job_id] = await self._queries.enqueue(ENTRYPOINT, request.encode())
        finished = self._watcher.wait_for(job_id)
        self._waiting.add(finished)
        self._jobs.add(job_id)
        try:
            status = await asyncio.wait_for(finished, self.answer_within.total_seconds())
        except asyncio.CancelledError:
            if self._closed:
                raise PoolClosed("the computer opponent is shutting down") from None
            raise
        except TimeoutError:
            await self._queries.mark_job_as_cancelled([job_id])
            raise TimeoutError(
                f"no computer-opponent worker answered job {job_id} within {self.answer_within}"
            ) from None
        finally:
            self._waiting.discard(finished)
            self._jobs.discard(job_id)
        if status != "successful":
            raise RuntimeError(f"the computer's move (job {job_id}) ended {status}")
        async with self._pool.acquire() as connection:
            move = await computer_jobs.take_move(connection, job_id)
        if move is None:
            raise RuntimeError(f"the computer's move (job {job_id}) was not stored")
        return move

    async def close(self) -> None:
        """Stop waiting for answers, and cancel the jobs still waited for: nobody would take
        their moves (the process that next drives those games asks again), so no worker
        should search for them."""
        self._closed = True
        unanswered = list(self._jobs)
        for waiter in list(self._waiting):
            waiter.cancel()
        if unanswered and self._queries is not None:
            try:
                await asyncio.wait_for(
                    self._queries.mark_job_as_cancelled(unanswered), CANCEL_WITHIN
                )
            except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                _log.warning("Computer jobs %s left to the workers: %r", unanswered, error)
        await self._exit.aclose()
