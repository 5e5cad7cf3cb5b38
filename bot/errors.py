"""The one place where errors become replies.

Domain errors (the services' ``GameError`` sentences, the engine's ``IllegalMoveError``) and
Discord's check failures become ephemeral one-sentence replies; anything else is logged with its
traceback and the player gets a short apology, never a Python message. The command tree, every
button and every select route their errors here.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.services.errors import GameError
from bot.storage.errors import DatabaseBusy, IdOutOfRange, StorageError
from engine import IllegalMoveError

_log = logging.getLogger(__name__)

APOLOGY = "Sorry, something went wrong on my side. It has been logged; please try again."

UNKNOWN_COMMAND = "I do not know that command (any more): type / to see mine."
MISSING_OPTIONS = (
    "That command arrived without the options it needs: pick it again from the / menu."
)
UNKNOWN_BUTTON = "That button is not one of mine (any more): use the newest message, or /games."

CHANNEL_PERMISSIONS = ("send_messages", "attach_files", "embed_links")
"""What the bot needs in a channel where games are played."""

_PERMISSION_NAMES = {
    "send_messages": "Send Messages",
    "attach_files": "Attach Files",
    "embed_links": "Embed Links",
    "view_channel": "View Channel",
    "read_message_history": "Read Message History",
    "send_messages_in_threads": "Send Messages in Threads",
    "manage_guild": "Manage Server",
}


class MissingChannelPermissions(Exception):
    """The bot lacks permissions it needs in a channel; ``str()`` names them for the players."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        names = ", ".join(_PERMISSION_NAMES.get(name, name) for name in missing)
        super().__init__(
            f"I can't play in this channel: I need the {names} permission(s) here. "
            "Ask a server admin to give them to me, or use another channel."
        )


THREAD_PERMISSIONS = ("send_messages_in_threads", "attach_files", "embed_links")
"""What the bot needs in a thread (where Send Messages in Threads replaces Send Messages)."""


def missing_channel_permissions(
    permissions: discord.Permissions, *, in_thread: bool = False
) -> list[str]:
    """The game permissions missing from ``permissions`` (the bot's, in a channel or thread)."""
    needed = THREAD_PERMISSIONS if in_thread else CHANNEL_PERMISSIONS
    return [name for name in needed if not getattr(permissions, name)]


def require_channel_permissions(interaction: discord.Interaction[Any]) -> None:
    """Raise MissingChannelPermissions unless the bot may post boards where ``interaction`` is."""
    in_thread = isinstance(interaction.channel, discord.Thread)
    missing = missing_channel_permissions(interaction.app_permissions, in_thread=in_thread)
    if missing:
        raise MissingChannelPermissions(missing)


def sentence_for(error: BaseException) -> str | None:
    """The reply a player should see for ``error``, or None if it is a bug to log."""
    if isinstance(error, app_commands.CommandInvokeError):
        return sentence_for(error.original)
    if isinstance(error, app_commands.TransformerError) and error.__cause__ is not None:
        cause = sentence_for(error.__cause__)
        if cause is not None:
            return cause
    if isinstance(error, GameError | IllegalMoveError | MissingChannelPermissions):
        return str(error)
    if isinstance(error, StorageError):
        return error.sentence
    if isinstance(error, app_commands.CommandNotFound):
        return UNKNOWN_COMMAND
    if isinstance(error, app_commands.CommandSignatureMismatch):
        return MISSING_OPTIONS
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Brandubh is played in server channels, not in direct messages."
    if isinstance(error, app_commands.MissingPermissions):
        names = ", ".join(_PERMISSION_NAMES.get(n, n) for n in error.missing_permissions)
        return f"You need the {names} permission to use this command."
    if isinstance(error, app_commands.BotMissingPermissions):
        return str(MissingChannelPermissions(error.missing_permissions))
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down a little: try again in {error.retry_after:.0f} seconds."
    if isinstance(error, app_commands.TransformerError):
        return f"I could not read {error.value!r} as {error.type.name.lower()}."
    if isinstance(error, discord.Forbidden):
        return str(MissingChannelPermissions(list(CHANNEL_PERMISSIONS)))
    return None


_ODD_INPUT = (
    app_commands.CommandNotFound,
    app_commands.CommandSignatureMismatch,
    app_commands.NoPrivateMessage,
)
"""What a forged, stale or garbled interaction raises: a WARNING line, never a traceback."""


def _storage_error(error: BaseException) -> StorageError | None:
    if isinstance(error, app_commands.CommandInvokeError):
        return _storage_error(error.original)
    return error if isinstance(error, StorageError) else None


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Answer ``interaction`` with the sentence for ``error`` (or an apology, after logging it)."""
    sentence = sentence_for(error)
    storage = _storage_error(error)
    if storage is not None:
        # The details (file, SQLite's words) are for the operator, never for the player.
        level = (
            logging.WARNING if isinstance(storage, DatabaseBusy | IdOutOfRange) else logging.ERROR
        )
        _log.log(level, "Database trouble (user=%s): %s", interaction.user.id, storage)
    elif isinstance(error, _ODD_INPUT):
        _log.warning("Odd interaction from user %s: %s", interaction.user.id, sentence)
    if sentence is None:
        command = interaction.command.qualified_name if interaction.command else None
        custom_id = interaction.data.get("custom_id") if interaction.data else None
        _log.error(
            "Error in interaction (command=%s, component=%s, user=%s)",
            command,
            custom_id,
            interaction.user.id,
            exc_info=error,
        )
        sentence = APOLOGY
    try:
        if interaction.response.is_done():
            await interaction.followup.send(sentence, ephemeral=True)
        else:
            await interaction.response.send_message(sentence, ephemeral=True)
    except discord.HTTPException:
        _log.warning("Could not tell user %s about an error: %s", interaction.user.id, sentence)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make :func:`report_error` the command tree's error handler."""

    async def on_error(
        interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    tree.error(on_error)
    tree.interaction_check = _guild_only_check  # type: ignore[method-assign]


async def _guild_only_check(interaction: discord.Interaction[Any]) -> bool:
    """Refuse a server-only command that arrived without a server (a DM, or a forged call).

    Discord hides such commands outside servers, but the bot does not rely on it.
    """
    command = interaction.command
    root = getattr(command, "root_parent", None) or command
    if interaction.guild_id is not None or not getattr(root, "guild_only", False):
        return True
    if interaction.type is discord.InteractionType.autocomplete:
        await interaction.response.autocomplete([])
        return False
    raise app_commands.NoPrivateMessage()
