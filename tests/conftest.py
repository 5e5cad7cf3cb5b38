"""Shared fixtures: the production services on a temporary database of each backend, a fake clock.

``database`` (and so ``services``) is parametrised over both backends: every test that uses it
runs once on a new SQLite file and once on a new database of a throwaway PostgreSQL server
started for the session (tests/postgres_server.py). When PostgreSQL cannot be started, its half
is skipped with the reason, which the end of the run also prints.

Other test modules may import from here (``from tests.conftest import FakeClock, ...``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.i18n import mentions
from bot.services import Services
from tests import postgres_server
from tests.postgres_server import PostgresServer

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


_postgres_status: list[str] = []
"""What became of the session's PostgreSQL server (for the summary at the end of the run)."""

_postgres_servers: list[PostgresServer] = []
"""The session's PostgreSQL server, once a test has started it."""


@pytest.fixture(autouse=True)
def no_command_ids_left() -> Iterator[None]:
    """A bot started in a test teaches the process its commands' ids (bot.i18n.mentions); the
    next test starts without them."""
    yield
    mentions.learn({})


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer | str]:
    """The session's throwaway PostgreSQL server, or the sentence saying why there is none."""
    started = postgres_server.start()
    if isinstance(started, str):
        _postgres_status.append(f"PostgreSQL tests skipped: {started}.")
        yield started
        return
    _postgres_status.append(f"PostgreSQL tests ran against {started.bindir.parent.name} server")
    _postgres_servers.append(started)
    try:
        yield started
    finally:
        _postgres_servers.clear()
        started.stop()


@pytest.fixture(autouse=True)
def drop_postgres_databases() -> Iterator[None]:
    """The PostgreSQL databases a test made are dropped after it (autouse fixtures end last,
    after the services and bots that used them)."""
    yield
    for server in _postgres_servers:
        postgres_server.drop_created(server)


async def postgres_database(postgres: PostgresServer | str) -> str:
    """The URL of a new, empty database on the session's server (skips without one)."""
    if isinstance(postgres, str):
        pytest.skip(f"PostgreSQL is not available: {postgres}")
    return await postgres_server.create_database(postgres)


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(
    request: pytest.FixtureRequest, db_path: Path, postgres: PostgresServer | str
) -> str:
    """A new, empty database of each backend: an SQLite file path, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(db_path)
    return await postgres_database(postgres)


@pytest.fixture
async def services(database: str, clock: FakeClock) -> AsyncIterator[Services]:
    """The production services on a new database (each backend), migrated from empty; closed
    afterwards."""
    opened = await Services.open(database, clock=clock)
    try:
        yield opened
    finally:
        await opened.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say whether the bot's requests were checked against Discord's published contract."""
    from tests.discord_standin.contract import contract_status

    terminalreporter.write_line(contract_status())
    for line in _postgres_status:
        terminalreporter.write_line(line)
