"""Where the services get the time: a callable returning a timezone-aware UTC ``datetime``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns now as an aware UTC datetime; tests pass a fake one."""


def utc_now() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)
