"""The choices slash-command options offer, shared by the cogs that take them (their names are
translated like the commands', from this module: bot/i18n/extract.py)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from engine import RULESETS


def ruleset_label(title: str, size: int) -> str:
    """ "Brandubh (World Tafl Federation) · 7x7", or "Tablut (9x9)" when the title says it."""
    board = f"{size}x{size}"
    return title if board in title else f"{title} · {board}"


RULESET_CHOICES = [
    app_commands.Choice(name=ruleset_label(rules.title, rules.size), value=name)
    for name, rules in RULESETS.items()
][:25]

TIME_CHOICES = [
    app_commands.Choice(name="5 minutes", value=5),
    app_commands.Choice(name="1 hour", value=60),
    app_commands.Choice(name="12 hours", value=12 * 60),
    app_commands.Choice(name="1 day", value=24 * 60),
    app_commands.Choice(name="3 days", value=3 * 24 * 60),
    app_commands.Choice(name="1 week", value=7 * 24 * 60),
]

SIDE_CHOICES = [
    app_commands.Choice(name="attackers (move first)", value="attackers"),
    app_commands.Choice(name="defenders (the king)", value="defenders"),
]

SETS_CHOICES = [
    app_commands.Choice(name="2 sets: sides swap; tied at one win each, fewer moves wins", value=2),
    app_commands.Choice(name="1 set", value=1),
]


class GameChannelOption(app_commands.Transformer):
    """A channel option that offers every kind games are played from: a text or announcement
    channel, a voice or stage channel's chat, and a forum, whose posts are threads (Discord
    offers an option only the channel types it names; the channel is given as Discord resolved
    it)."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        return [
            discord.ChannelType.text,
            discord.ChannelType.news,
            discord.ChannelType.voice,
            discord.ChannelType.stage_voice,
            discord.ChannelType.forum,
        ]

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> Any:
        return value


GameChannel = app_commands.Transform[app_commands.AppCommandChannel, GameChannelOption]
"""The channels ``/settings allow:`` and ``disallow:`` offer (:class:`GameChannelOption`)."""
