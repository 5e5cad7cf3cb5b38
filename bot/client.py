"""The bot: a ``commands.Bot`` that opens the services, registers cogs and buttons, and syncs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

import discord
from discord.ext import commands

from bot import errors, sync
from bot.ai_pool import AIPool
from bot.config import Settings
from bot.services import Services

_log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


COGS = (
    "bot.cogs.challenge",
    "bot.cogs.play",
    "bot.cogs.info",
    "bot.cogs.standings",
    "bot.cogs.admin",
)


class BrandubhBot(commands.Bot):
    """Brandubh for Discord. ``services`` and ``ai`` exist once ``setup_hook`` has run."""

    services: Services
    ai: AIPool

    def __init__(self, settings: Settings, *, clock: Clock = utc_now) -> None:
        intents = discord.Intents.default()
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            guild_ready_timeout=settings.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
        )
        self.settings = settings
        self.clock = clock
        """The current time (tests pass a clock they can move forward)."""
        self._background: set[asyncio.Task[Any]] = set()
        self._names: dict[int, str] = {}

    async def setup_hook(self) -> None:
        """Open the database, start the pool and timers, register buttons and commands."""
        from bot.timers import Timers
        from bot.views import DYNAMIC_ITEMS

        self.services = await Services.open(self.settings.db_path, clock=self.clock)
        self.ai = AIPool(workers=self.settings.ai_workers, time_per_move=self.settings.ai_time)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        for cog in COGS:
            await self.load_extension(cog)
        errors.install(self.tree)
        assert self.application_id is not None
        await sync.sync_if_changed(
            self.tree,
            application_id=self.application_id,
            guild_ids=self.settings.guild_ids,
            state_file=sync.state_file_for(self.settings.db_path),
        )
        self.timers = Timers(self)
        self.timers.start()

    async def remember(self, user: discord.abc.User) -> None:
        """Keep ``user``'s display name (for boards and the leaderboard)."""
        name = user.display_name
        if self._names.get(user.id) == name:
            return
        self._names[user.id] = name
        await self.services.players.remember(user.id, name)

    async def display_names(self, *user_ids: int) -> dict[int, str]:
        """Display names for ``user_ids``: remembered ones, else from the database."""
        missing = [uid for uid in user_ids if uid not in self._names]
        for user_id in missing:
            name = await self.services.players.name(user_id)
            if name is not None:
                self._names[user_id] = name
        if self.user is not None:
            self._names.setdefault(self.user.id, self.user.display_name)
        return {uid: self._names.get(uid, "a player") for uid in user_ids}

    def spawn(self, coroutine: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """Run ``coroutine`` in the background; its errors are logged, close() cancels it."""
        task = asyncio.create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("Background task %s failed", task.get_name(), exc_info=task.exception())

    async def close(self) -> None:
        """Stop timers and computer games, close the database, then disconnect."""
        timers = getattr(self, "timers", None)
        if timers is not None:
            await timers.stop()
        for task in list(self._background):
            task.cancel()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        ai = getattr(self, "ai", None)
        if ai is not None:
            await ai.close()
        services = getattr(self, "services", None)
        await super().close()
        if services is not None:
            await services.close()
