"""Discord's long waits in a channel (bot/channel_waits.py): kept until they are up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.channel_waits import ChannelWaits, Route

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves forward."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def test_a_wait_that_is_up_is_not_kept_once_another_channel_waits() -> None:
    """Channel 1's ten-minute wait is up: channel 2's wait, kept later, drops it, though
    channel 1 is never asked again (before, it stayed kept for good)."""
    clock = Clock()
    waits = ChannelWaits(clock)
    waits.wait(Route.POST, 1, 600)
    clock.now += timedelta(minutes=11)
    waits.wait(Route.EDIT, 2, 60)
    assert len(waits) == 1
    assert waits.waiting(Route.EDIT, 2) == clock.now + timedelta(seconds=60)


def test_a_wait_not_up_yet_is_kept_when_another_channel_waits() -> None:
    """Channel 1's ten-minute wait, five minutes in, is still kept when channel 2 waits (this
    pins behaviour that already worked)."""
    clock = Clock()
    waits = ChannelWaits(clock)
    waits.wait(Route.POST, 1, 600)
    clock.now += timedelta(minutes=5)
    waits.wait(Route.POST, 2, 60)
    assert len(waits) == 2
    assert waits.waiting(Route.POST, 1) == START + timedelta(minutes=10)
