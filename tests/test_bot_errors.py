"""The one error handler: which errors become a player's sentence and which are bugs to log."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from bot.errors import MissingChannelPermissions, missing_channel_permissions, sentence_for
from bot.services.errors import NotYourTurn
from engine import Game, IllegalMoveError


def test_game_errors_are_shown_as_their_sentence() -> None:
    """A service refusal reaches the player word for word."""
    assert sentence_for(NotYourTurn(42)) == "It is not your turn: <@42> is to move."


def test_engine_refusals_are_shown_as_their_sentence() -> None:
    """The engine's explanation of an illegal move is what the player reads."""
    with pytest.raises(IllegalMoveError) as refused:
        Game().play("d2-d4")
    assert sentence_for(refused.value) == str(refused.value)
    assert "d3" in str(refused.value)


def test_unexpected_errors_get_no_sentence() -> None:
    """A bug has no player sentence (it is logged and answered with an apology)."""
    assert sentence_for(ZeroDivisionError("division by zero")) is None


def test_missing_manage_server_is_named() -> None:
    """An admin command refused for lack of Manage Server says so."""
    error = app_commands.MissingPermissions(["manage_guild"])
    assert sentence_for(error) == "You need the Manage Server permission to use this command."


def test_missing_channel_permissions_are_listed() -> None:
    """Without Send Messages and Attach Files the bot names exactly those two; Embed Links is
    not needed (no game post carries an embed)."""
    permissions = discord.Permissions(embed_links=True)
    missing = missing_channel_permissions(permissions)
    assert missing == ["send_messages", "attach_files"]
    assert "the Send Messages and Attach Files permissions" in str(
        MissingChannelPermissions(missing)
    )
    assert (
        missing_channel_permissions(discord.Permissions(send_messages=True, attach_files=True))
        == []
    )


def test_threads_need_send_messages_in_threads_instead() -> None:
    """In a thread the bot needs Send Messages in Threads, not Send Messages."""
    permissions = discord.Permissions(send_messages_in_threads=True, attach_files=True)
    assert missing_channel_permissions(permissions, in_thread=True) == []
    assert missing_channel_permissions(permissions) == ["send_messages"]
