"""The settings service on both backends: writes made apart, by two processes, keep each other."""

from __future__ import annotations

from datetime import timedelta

from bot.services import Services
from tests.conftest import FakeClock

GUILD, GAMES, LOBBY, SIDE = 10, 20, 21, 22


async def test_a_deleted_channel_leaves_a_channel_allowed_meanwhile_on_the_list(
    database: str, clock: FakeClock
) -> None:
    """One process knows #games and #lobby allowed; another allows #side; #lobby is deleted
    and the first takes it off: #games and #side remain (it wrote back the list it knew,
    dropping #side)."""
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        await first.settings.change(GUILD, allowed_channel_ids={GAMES, LOBBY})
        await second.settings.change(GUILD, allowed_channel_ids={GAMES, LOBBY, SIDE})
        assert await first.settings.channel_deleted(GUILD, LOBBY)
        assert (await first.settings.get(GUILD)).allowed_channel_ids == {GAMES, SIDE}
    finally:
        await first.close()
        await second.close()
    restarted = await Services.open(database, clock=clock)
    try:
        assert (await restarted.settings.get(GUILD)).allowed_channel_ids == {GAMES, SIDE}
    finally:
        await restarted.close()


async def test_the_only_allowed_channel_deleted_stays_on_the_list(services: Services) -> None:
    """The list's one channel is deleted: it stays (an empty list would allow every
    channel), and a channel not on the list changes nothing."""
    await services.settings.change(GUILD, allowed_channel_ids={GAMES})
    assert not await services.settings.channel_deleted(GUILD, GAMES)
    assert not await services.settings.channel_deleted(GUILD, SIDE)
    assert (await services.settings.get(GUILD)).allowed_channel_ids == {GAMES}


async def test_a_change_made_apart_keeps_the_other_processs_change(
    database: str, clock: FakeClock
) -> None:
    """One process read the settings, then another allowed #side: the first's change of the
    time per move keeps #side allowed (it does not write back the channels it read)."""
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        assert (await first.settings.get(GUILD)).allowed_channel_ids == frozenset()
        await second.settings.change(GUILD, allowed_channel_ids={SIDE}, threads=False)
        saved = (await first.settings.change(GUILD, time_per_move=timedelta(hours=1))).after
        assert saved.allowed_channel_ids == {SIDE}
        assert not saved.threads
        assert saved.time_per_move == timedelta(hours=1)
    finally:
        await first.close()
        await second.close()


async def test_a_change_is_judged_on_the_settings_it_meets(database: str, clock: FakeClock) -> None:
    """One process read the settings, then another set the time per move to 1 hour: the
    first's 1 hour meets the stored one and changes nothing (it was judged on the settings
    read before), while its threads:off beside it is saved."""
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        assert (await first.settings.get(GUILD)).time_per_move == timedelta(days=1)
        await second.settings.change(GUILD, time_per_move=timedelta(hours=1))
        same = await first.settings.change(GUILD, time_per_move=timedelta(hours=1))
        assert not same.changed
        assert same.before.time_per_move == timedelta(hours=1)
        change = await first.settings.change(GUILD, time_per_move=timedelta(hours=1), threads=False)
        assert change.changed
        assert (change.before.time_per_move, change.before.threads) == (timedelta(hours=1), True)
        assert (change.after.time_per_move, change.after.threads) == (timedelta(hours=1), False)
    finally:
        await first.close()
        await second.close()
