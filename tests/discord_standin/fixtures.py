"""Pytest fixtures for the Discord stand-in.

Load with ``pytest_plugins = ["tests.discord_standin.fixtures"]`` in a test module (or in the
top-level conftest), or import the fixtures by name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .server import DiscordStandin


@pytest_asyncio.fixture
async def discord_standin(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordStandin]:
    """A started stand-in; env vars and discord.py's REST base and gateway point at it."""
    async with DiscordStandin() as standin:
        for name, value in standin.env.items():
            monkeypatch.setenv(name, value)
        with standin.discord_py_pointed_here():
            yield standin
