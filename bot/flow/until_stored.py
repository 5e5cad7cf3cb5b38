"""Work a Discord event asks for, done in the background until it is stored.

Discord sends an event (a channel deleted, the bot removed from a server, a channel's, role's
or thread's change that may let the bot post again) once: what it calls for is tried again
after a pause while the database is busy (each try first waits up to 5 s for the write lock)
or PostgreSQL ended the write racing another (a serialization failure, a deadlock), and given
up, logged, after the last pause.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from bot.storage.errors import DatabaseBusy, WriteConflict

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

BUSY_RETRY_SECONDS = (1.0, 10.0, 60.0, 300.0)
"""Pauses before the work is tried again when the database was busy. If every try fails, a
deletion's games are aborted when the next post there meets Unknown Channel."""


def until_stored(
    bot: BrandubhBot, what: str, work: Callable[[], Coroutine[Any, Any, None]]
) -> asyncio.Task[None]:
    """Run ``work`` in the background, again after a pause while the database is busy (or
    PostgreSQL ended it for racing another write); the task doing it."""

    async def tries() -> None:
        for pause in (*BUSY_RETRY_SECONDS, None):
            try:
                await work()
                return
            except (DatabaseBusy, WriteConflict) as busy:
                if pause is None:
                    _log.warning("%s: given up, the database stayed busy (%r)", what, busy)
                    return
                _log.info("%s: the database is busy, trying again in %s s", what, pause)
                await asyncio.sleep(pause)

    return bot.spawn(tries(), name=f"brandubh-{what.replace(' ', '-')}")
