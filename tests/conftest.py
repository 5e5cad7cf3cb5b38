"""Shared fixtures: the production services on a temporary database file, and a fake clock.

Other test modules may import from here (``from tests.conftest import FakeClock, ...``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.services import Services

GUILD = 1000
CHANNEL = 2000
OTHER_CHANNEL = 2001
ALICE = 11
BOB = 12
CAROL = 13
COMPUTER = 99

ATTACKERS_CAPTURE_KING = ("d1-c1", "d3-a3", "c1-c3", "c4-c5", "d2-d1", "d4-d2", "c3-d3")
"""Seven plies of brandubh in which the attackers capture the king (checked with the engine)."""


class FakeClock:
    """A clock for the services that only moves when a test says so."""

    def __init__(self, start: datetime = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, duration: timedelta) -> datetime:
        """Move the clock forward and return the new time."""
        self.now += duration
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock starting at noon UTC on 1 January 2026."""
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database file path (the file does not exist yet)."""
    return tmp_path / "brandubh.sqlite3"


@pytest.fixture
async def services(db_path: Path, clock: FakeClock) -> AsyncIterator[Services]:
    """The production services on a new database file, migrated from empty; closed afterwards."""
    opened = await Services.open(db_path, clock=clock)
    try:
        yield opened
    finally:
        await opened.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say whether the bot's requests were checked against Discord's published contract."""
    from tests.discord_standin.contract import contract_status

    terminalreporter.write_line(contract_status())
