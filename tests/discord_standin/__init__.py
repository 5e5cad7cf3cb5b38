"""A local stand-in for Discord's gateway and REST API, for end-to-end tests of the bot.

Typical use (the ``discord_standin`` fixture in ``fixtures.py`` does the first three lines and
sets DISCORD_API_BASE, DISCORD_GATEWAY_URL and DISCORD_TOKEN)::

    async with DiscordStandin() as discord_fake:
        with discord_fake.discord_py_pointed_here():
            guild = discord_fake.add_guild("Tafl Club", channels=["games"])
            alice = discord_fake.add_member(guild, "alice")
            bob = discord_fake.add_member(guild, "bob")
            task = asyncio.create_task(bot.start(discord_fake.token))
            await discord_fake.wait_synced("challenge", guild=guild)
            await discord_fake.wait_ready()
            reply = await discord_fake.slash(
                guild, guild.channel("games"), alice, "challenge", {"opponent": bob}
            )
            await discord_fake.click(reply.message, "accept", bob)
            await bot.close()
            await task
"""

from .model import FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser
from .recorder import (
    InteractionNotAnswered,
    InteractionRecord,
    RestCall,
    StoredAttachment,
    StoredMessage,
)
from .server import DiscordStandin
from .world_changes import DEFAULT_BOT_PERMISSIONS

__all__ = [
    "DEFAULT_BOT_PERMISSIONS",
    "DiscordStandin",
    "FakeChannel",
    "FakeGuild",
    "FakeMember",
    "FakeRole",
    "FakeUser",
    "InteractionNotAnswered",
    "InteractionRecord",
    "RestCall",
    "StoredAttachment",
    "StoredMessage",
]
