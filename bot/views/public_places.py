"""Which places' games and challenges may be given out where they are asked for: the lists
and exports are public, so a place @everyone cannot see is shown only inside it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from bot.services.domain import HiddenPlaces, Place, Unshown
from bot.views.common import bot_of


def private_channels(interaction: discord.Interaction[Any]) -> frozenset[int]:
    """The server's channels @everyone may not see, their threads and the private threads the
    bot knows of — except the one the list is asked for in (or its parent): the list is
    public, so a game or challenge in a private place is listed only inside it, never to
    members who cannot see it."""
    guild = interaction.guild
    if guild is None:
        return frozenset()
    everyone = guild.default_role
    shown_anyway = _shown_anyway(interaction)
    private = {
        channel.id
        for channel in guild.channels
        if not channel.permissions_for(everyone).view_channel and channel.id not in shown_anyway
    }
    private.update(
        thread.id
        for thread in guild.threads
        if thread.parent_id in private
        or (thread.type is discord.ChannelType.private_thread and thread.id not in shown_anyway)
    )
    return frozenset(private)


async def unknown_places(
    interaction: discord.Interaction[Any], places: Iterable[Place]
) -> dict[int, Unshown]:
    """Of ``places``, those the bot cannot tell are public (to hide with
    :func:`private_channels`), each with why: a channel or thread not in its cache — deleted,
    or a thread archived since, whose channel and kind it no longer knows — unless Discord,
    asked (bot/flow/place_lookup.py: all at once, the answers kept a few minutes), shows a
    public thread of a channel @everyone can see. A thread the bot started in a channel
    @everyone cannot see is private without asking; one it started in a channel they can
    see is asked about too, as it may have been deleted while the bot was away. A public
    thread of the channel asked in is shown there, as private_channels shows one cached."""
    guild = interaction.guild
    if guild is None:
        return {}
    everyone = guild.default_role
    shown_anyway = _shown_anyway(interaction)
    unknown: dict[int, Unshown] = {}
    asked = []
    for channel_id, parent_id in places:
        if channel_id in shown_anyway or guild.get_channel_or_thread(channel_id) is not None:
            continue  # known: private_channels judges it
        parent = guild.get_channel(parent_id) if parent_id is not None else None
        if (
            parent is not None
            and parent.id not in shown_anyway
            and not parent.permissions_for(everyone).view_channel
        ):
            unknown[channel_id] = Unshown.PRIVATE
        else:
            asked.append(channel_id)
    places_lookup = bot_of(interaction).flow.places
    return unknown | await places_lookup.judge_all(guild, asked, here=shown_anyway)


async def hidden_for(interaction: discord.Interaction[Any], set_id: int | None) -> HiddenPlaces:
    """The places whose games are not given out here, each with why
    (:func:`private_channels`, and the place of ``set_id`` if the bot cannot tell it is
    public: :func:`unknown_places`). Discord is asked only about a set of this server."""
    hidden = dict.fromkeys(private_channels(interaction), Unshown.PRIVATE)
    if set_id is None or interaction.guild_id is None:
        return hidden
    place = await bot_of(interaction).services.records.place_of(set_id, interaction.guild_id)
    return hidden if place is None else hidden | await unknown_places(interaction, [place])


def _shown_anyway(interaction: discord.Interaction[Any]) -> set[int]:
    """Where the list is asked for, and that thread's channel: shown there whatever it is."""
    here = interaction.channel
    parent = getattr(here, "parent_id", None)
    return {i for i in (interaction.channel_id, parent) if i is not None}
