"""How times are stored: INTEGER microseconds since the Unix epoch (UTC), durations likewise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_us(moment: datetime) -> int:
    """``moment`` (timezone-aware) as microseconds since the epoch."""
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_us(value: int) -> datetime:
    """The UTC datetime stored as ``value``."""
    return _EPOCH + timedelta(microseconds=value)


def duration_us(duration: timedelta) -> int:
    """``duration`` in microseconds."""
    return duration // timedelta(microseconds=1)


def duration(value: int) -> timedelta:
    """The duration stored as ``value``."""
    return timedelta(microseconds=value)
