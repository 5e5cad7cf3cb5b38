"""Pytest fixtures for the Discord stand-in.

Load with ``pytest_plugins = ["tests.discord_standin.fixtures"]`` in a test module (or in the
top-level conftest), or import the fixtures by name.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .contract import contract_status, load_contract
from .server import DiscordStandin


@pytest_asyncio.fixture
async def discord_standin(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordStandin]:
    """A started stand-in; env vars and discord.py's REST base and gateway point at it.

    The test fails if the bot broke Discord's published API contract; when the contract's file
    is absent the check is skipped with a warning that the test report shows.
    """
    if load_contract() is None:
        warnings.warn(ContractNotChecked(contract_status()), stacklevel=1)
    async with DiscordStandin() as standin:
        for name, value in standin.env.items():
            monkeypatch.setenv(name, value)
        with standin.discord_py_pointed_here():
            yield standin
    if standin.contract_violations:
        pytest.fail(
            "the bot broke Discord's published API contract:\n  "
            + "\n  ".join(standin.contract_violations),
            pytrace=False,
        )


class ContractNotChecked(UserWarning):
    """Requests were not checked against Discord's contract (its file is absent)."""
