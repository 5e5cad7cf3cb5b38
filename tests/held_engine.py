"""The bot's engine held mid-search, so a test can act while an analysis (or a computer move)
is being worked out: a moderator deletes the reply, an admin takes a permission away, the
database is locked, the 15 minutes of an answer pass."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.bot_harness import Harness


class HeldEngine:
    """Each search of the bot's engine waits, once started, until :meth:`let_go`."""

    def __init__(self, table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
        assert table.bot is not None
        run = table.bot.engine.run
        self.searching = asyncio.Event()
        """Set once a search has started (and is waiting)."""
        self.released = asyncio.Event()

        async def held(function: Any, *args: Any, first: bool = False) -> Any:
            self.searching.set()
            await self.released.wait()
            return await run(function, *args, first=first)

        monkeypatch.setattr(table.bot.engine, "run", held)

    async def started(self) -> None:
        """Wait until a search has started (10 s at most)."""
        await asyncio.wait_for(self.searching.wait(), timeout=10)

    def let_go(self) -> None:
        """Let every search, waiting or to come, run."""
        self.released.set()
