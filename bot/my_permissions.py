"""My permissions in a channel or thread as Discord last told me (its channel, overwrite and
role updates, kept by discord.py's cache): a pure reading of discord.py's objects, which the
error handler and the flow both make, below the flow layer."""

from __future__ import annotations

import discord


def my_permissions(client: discord.Client, channel_id: int) -> discord.Permissions | None:
    """My permissions in ``channel_id`` (a channel or a thread) as Discord last told me; None
    when it is not cached, is a thread whose channel is not, or my member is not (discord.py
    would raise)."""
    place = client.get_channel(channel_id)
    if isinstance(place, discord.Thread) and place.parent is None:
        return None
    if not isinstance(place, discord.abc.GuildChannel | discord.Thread):
        return None
    me = place.guild.me
    if me is None:  # my member not cached (permissions_for would raise)
        return None
    return place.permissions_for(me)


def may_post(client: discord.Client, channel_id: int) -> bool:
    """Whether I may post in ``channel_id`` (a channel or a thread) as Discord last told me:
    see it, and send messages there (in a thread, Send Messages in Threads); False when that
    is not known (not cached)."""
    mine = my_permissions(client, channel_id)
    if mine is None or not mine.view_channel:
        return False
    if isinstance(client.get_channel(channel_id), discord.Thread):
        return mine.send_messages_in_threads
    return mine.send_messages
