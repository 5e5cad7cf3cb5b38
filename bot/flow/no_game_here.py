"""The refusal of a game command where no game is played: where the player's games are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import _, command, n_
from bot.services.errors import NoGameHere

if TYPE_CHECKING:
    from bot.client import BrandubhBot

PLACES_NAMED = 3
"""How many channels of the player's games a refusal where no game is played names."""

PLACES_LOOKED_AT = 25
"""How many of the player's games that refusal looks at to find the one meant."""


async def no_game_here(
    bot: BrandubhBot,
    interaction: discord.Interaction[Any],
    refusal: NoGameHere | None = None,
    *,
    typed_move: bool = False,
) -> NoGameHere:
    """The refusal of a game command where no game is played: it names the channels where
    the player's own games are, if they play any in this server (else ``refusal``); or, if
    the game meant is in a thread a moderator locked (the player's one game in a thread of
    this channel, else their one game), that it is locked. A refusal that says more (the
    set here just ended) is kept as it is. A ``typed_move`` (``/move``) of a player with no
    game but a puzzle unfinished is told that puzzles are played with their picker."""
    assert interaction.guild_id is not None
    if refusal is not None and not refusal.nowhere:
        return refusal
    page = await bot.services.records.in_progress(
        interaction.guild_id, player_id=interaction.user.id, limit=PLACES_LOOKED_AT
    )
    games = [game for game in page.games if game.channel_id != interaction.channel_id]
    if not games:
        if typed_move and await bot.services.puzzles.solving(interaction.user.id):
            # /move answers in the channel a game is played in; a puzzle is its private
            # message's, which only its picker edits (README, "Puzzles").
            return NoGameHere(
                _(
                    "There is no game in this channel, and {move_command} does not play "
                    "puzzles: choose your puzzle's move with the picker under its board, which "
                    "{play_command} (or the daily puzzle's **Solve**) shows again.",
                    move_command=command("move"),
                    play_command=command("puzzle play"),
                )
            )
        return refusal or NoGameHere()
    in_threads_here = [g for g in games if g.parent_channel_id == interaction.channel_id]
    meant = in_threads_here if in_threads_here else games
    if len(meant) == 1 and bot.timers.holds.thread_held(meant[0].channel_id):
        return NoGameHere(
            _(
                "Your game's thread {thread} is locked by a moderator: ask one to open it; "
                "its clocks stand still until then.",
                thread=f"<#{meant[0].channel_id}>",
            )
        )
    places = [game.channel_id for game in games[:PLACES_NAMED]]
    return NoGameHere(
        n_(
            "There is no game in this channel: yours is in {channels}, play it there.",
            "There is no game in this channel: yours are in {channels}, play each there.",
            len(places),
            channels=", ".join(f"<#{place}>" for place in places),
        )
    )
