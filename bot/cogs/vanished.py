"""Discord's word that a game's place is gone: a channel or thread deleted, the bot removed.

The bot runs with the guilds intent only, which brings these events. A thread deleted with its
channel comes as the channel's deletion (Discord sends no THREAD_DELETE for it; discord.py
reports the threads it knew of as deleted too). What happened is in bot/flow/vanished.py.
"""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.client import BrandubhBot
from bot.flow.vanished import Gone


class Vanished(commands.Cog):
    """Games whose channel, thread or server is gone."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted, and with it the threads in it."""
        await self.bot.flow.vanished.channel_gone(channel.id, Gone.DELETED)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted (raw: whether or not discord.py had it cached)."""
        await self.bot.flow.vanished.channel_gone(payload.thread_id, Gone.DELETED)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server, or the server was deleted (not an outage: that
        is ``on_guild_unavailable``)."""
        await self.bot.flow.vanished.guild_gone(guild.id)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Vanished(bot))
