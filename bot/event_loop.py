"""The event loop the bot's processes run on: uvloop where it is installed, else asyncio's.

uvloop (from asyncpg's authors) runs asyncio's loop and its sockets in C: measured with
``benchmarks.scale_speed``, a move through the services on PostgreSQL costs about a tenth less
CPU in this process. It is a dependency everywhere but Windows, which it does not support.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

try:
    import uvloop
except ImportError:  # pragma: no cover - Windows
    uvloop = None  # type: ignore[assignment]


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion on a new event loop (as :func:`asyncio.run` does)."""
    if uvloop is not None:
        return uvloop.run(main)
    return asyncio.run(main)


def name() -> str:
    """Which loop :func:`run` uses, for logs and benchmark output."""
    return "uvloop" if uvloop is not None else "asyncio"
