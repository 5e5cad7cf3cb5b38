"""What discord.py's cache keeps of a server's channels and threads across its outage.

Discord sends no event of a server while it is unavailable (GUILD_DELETE with ``unavailable:
true``), and its GUILD_CREATE when it is back carries its channels and active threads as they
are now. discord.py 2.7 reads that GUILD_CREATE into the server object it already holds
(``ConnectionState._get_create_guild``, ``Guild._from_data``): it adds or replaces each channel
and thread listed but removes none, so a channel or thread deleted during the outage (or a
thread archived during it) stayed in the cache for good — the bot took it for there, never
asked Discord about it, and its game ran on to its deadline, lost on time where nobody could
play. The places the cache held when the outage began are noted here; the ones the server's
GUILD_CREATE did not replace are the ones it lacked, and leave the cache as their deletion (or
archiving) seen would take them out.
"""

from __future__ import annotations

import discord

Place = discord.abc.GuildChannel | discord.Thread


class OutagePlaces:
    """The channels and threads each server in an outage had in the cache when it began."""

    def __init__(self) -> None:
        self._held: dict[int, list[Place]] = {}

    def outage_began(self, guild: discord.Guild) -> None:
        """``guild`` became unavailable: what the cache holds of it now is noted."""
        self._held[guild.id] = [*guild.channels, *guild.threads]

    def outage_ended(self, guild: discord.Guild) -> list[int]:
        """``guild``'s GUILD_CREATE came after its outage: the channels and threads noted
        when it began that it did not carry (the same objects still cached, not replaced) are
        taken out of the cache. Returns their ids. A server whose cached object was replaced
        meanwhile (a fresh READY, after a lost session) has none left to take out."""
        held = self._held.pop(guild.id, [])
        stale: list[int] = []
        for place in held:
            if isinstance(place, discord.Thread):
                if guild.get_thread(place.id) is place:
                    guild._remove_thread(place)
                    stale.append(place.id)
            elif guild.get_channel(place.id) is place:
                guild._remove_channel(place)
                stale.append(place.id)
        return stale

    def forget(self, guild_id: int) -> None:
        """``guild_id`` is gone (the bot removed): nothing of it is kept."""
        self._held.pop(guild_id, None)
