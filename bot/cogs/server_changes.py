"""What changes in a server that the game flow must hear of: permissions given back."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.client import BrandubhBot

_log = logging.getLogger(__name__)


class ServerChanges(commands.Cog):
    """Gateway events of the ``guilds`` intent (and the bot's own member) that games care about.

    A board Discord refused (no permission, a locked thread) waits up to an hour before it is
    tried again; when an admin may just have given the permission back — a channel's
    overwrites, a role, the bot's roles or a thread changed — it is tried at the next check.
    """

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    async def _maybe_allowed(self, guild_id: int | None, what: str) -> None:
        if guild_id is None:
            return
        _log.debug("%s changed in server %s: refused boards are tried again", what, guild_id)
        await self.bot.services.announcements.retry_refused(guild_id)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        """A channel's permission overwrites may have changed."""
        await self._maybe_allowed(after.guild.id, "A channel")

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread may have been unlocked or unarchived."""
        await self._maybe_allowed(payload.guild_id, "A thread")

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        """A role's permissions may have changed."""
        await self._maybe_allowed(after.guild.id, "A role")

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        """The bot's own roles may have changed (Discord sends the bot's own member updates
        without the members intent)."""
        if self.bot.user is not None and after.id == self.bot.user.id:
            await self._maybe_allowed(after.guild.id, "My roles")


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(ServerChanges(bot))
