"""What the bot posts as a game moves on: after a move, at a set's end, and for the computer.

The same path serves every way a move arrives (``/move``, the picker, a confirmed repetition,
the computer) and every way a set ends (a move, resignation, time), so each announcement reads
the same whoever caused it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.ai_pool import PoolClosed
from bot.errors import require_channel_permissions
from bot.services.domain import ActiveGame, MoveResult, SetEnd
from bot.services.errors import NoGameHere, RepetitionNeedsConfirmation, StaleGameError
from bot.views.board import BoardPost, board_post, describe_move, set_end_text
from bot.views.common import answer, bot_of, within_deadline

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

COMPUTER_ATTEMPTS = 3
COMPUTER_RETRY_PAUSE = timedelta(seconds=1)
"""Pause after the computer's first failed search (times the attempt number after later ones)."""


async def headline_for(bot: BrandubhBot, result: MoveResult) -> tuple[str, dict[int, str]]:
    """The text above the board after ``result``, and the players' names used in it."""
    active = result.game
    names = await bot.display_names(active.attacker_id, active.defender_id)
    headline = describe_move(result.record, names.get(active.player_of(result.record.side), "?"))
    if result.set_end is not None:
        headline += "\n" + set_end_text(result.set_end, names)
    return headline, names


async def play_move(
    interaction: discord.Interaction[Any],
    move_text: str,
    *,
    confirm: bool = False,
    expected_ply: int | None = None,
) -> None:
    """Play a player's move and answer with the public board (or a warning only they see).

    From a component (picker, confirmation) the ephemeral message is first updated, then the
    board follows as a public message; from ``/move`` the board is the answer itself.
    """
    from bot.views.confirm import ConfirmRepetition

    bot = bot_of(interaction)
    require_channel_permissions(interaction)
    channel_id = interaction.channel_id
    assert channel_id is not None
    await bot.remember(interaction.user)
    is_component = interaction.type is discord.InteractionType.component

    async def prepare() -> tuple[MoveResult, BoardPost]:
        result = await bot.services.games.play(
            channel_id,
            interaction.user.id,
            move_text,
            confirm_repetition=confirm,
            expected_ply=expected_ply,
        )
        headline, names = await headline_for(bot, result)
        return result, await board_post(result.game, names, headline=headline)

    try:
        result, post = await within_deadline(interaction, prepare(), thinking=not is_component)
    except RepetitionNeedsConfirmation as warning:
        active = await bot.services.games.in_channel(channel_id)
        assert active is not None
        view = discord.ui.View(timeout=None)
        view.add_item(ConfirmRepetition(active.game_id, active.ply, warning.move_text))
        await _update_or_answer(interaction, str(warning), view, is_component)
        return
    if is_component:
        await _update_or_answer(interaction, f"You played {result.record}.", None, True)
        await interaction.followup.send(post.content, file=post.file(), view=_view(post.view))
    else:
        await answer(interaction, post.content, file=post.file(), view=post.view)
    if result.set_end is not None:
        await continue_after_set(bot, result.set_end, interaction=interaction)
    elif result.game.computer_to_move:
        start_computer_turn(bot, result.game)


async def _update_or_answer(
    interaction: discord.Interaction[Any],
    content: str,
    view: discord.ui.View | None,
    is_component: bool,
) -> None:
    """Replace the picker / warning the player clicked on, or answer them privately."""
    if not is_component:
        await answer(interaction, content, ephemeral=True, view=view)
    elif interaction.response.is_done():
        await interaction.edit_original_response(content=content, view=view, attachments=[])
    else:
        await interaction.response.edit_message(content=content, view=view, attachments=[])


def _view(view: discord.ui.View | None) -> discord.ui.View:
    return view if view is not None else discord.utils.MISSING


async def post_in_channel(
    bot: BrandubhBot,
    channel_id: int,
    content: str,
    *,
    interaction: discord.Interaction[Any] | None = None,
    file: discord.File | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Post publicly: as a followup of ``interaction`` when there is one, else in the channel."""
    kwargs: dict[str, Any] = {"content": content}
    if file is not None:
        kwargs["file"] = file
    if view is not None:
        kwargs["view"] = view
    if interaction is not None:
        await interaction.followup.send(**kwargs)
    else:
        await bot.get_partial_messageable(channel_id).send(**kwargs)


async def continue_after_set(
    bot: BrandubhBot,
    end: SetEnd,
    *,
    interaction: discord.Interaction[Any] | None = None,
) -> None:
    """After a set: post the next set's board (and let the computer open it if it attacks)."""
    following = end.next_game
    if following is None:
        return
    names = await bot.display_names(following.attacker_id, following.defender_id)
    post = await board_post(following, names, headline=f"**Set {following.set_number} begins.**")
    await post_in_channel(
        bot,
        following.channel_id,
        post.content,
        interaction=interaction,
        file=post.file(),
        view=post.view,
    )
    if following.computer_to_move:
        start_computer_turn(bot, following)


async def announce_set_end(
    bot: BrandubhBot,
    end: SetEnd,
    *,
    interaction: discord.Interaction[Any] | None = None,
    reason_line: str = "",
) -> None:
    """Post the final board of a set that ended without a move (resignation, time, abort)."""
    active = end.game
    names = await bot.display_names(active.attacker_id, active.defender_id)
    headline = "\n".join(line for line in (reason_line, set_end_text(end, names)) if line)
    post = await board_post(active, names, headline=headline, with_turn=False)
    if interaction is not None and not interaction.response.is_done():
        await interaction.response.send_message(post.content, file=post.file())
    else:
        await post_in_channel(
            bot, active.channel_id, post.content, interaction=interaction, file=post.file()
        )
    await continue_after_set(bot, end, interaction=interaction)


def start_computer_turn(bot: BrandubhBot, active: ActiveGame) -> None:
    """Let the computer choose and play its move in the background."""
    bot.spawn(computer_turn(bot, active), name=f"computer-move-{active.game_id}-{active.ply}")


async def _think_visibly(
    bot: BrandubhBot, channel: discord.PartialMessageable, active: ActiveGame, level: int
) -> str:
    """The computer's move, with "Brandubh is typing…" shown while it thinks (if allowed)."""
    try:
        async with channel.typing():
            return await bot.ai.choose_move(active.game, level)
    except discord.HTTPException as error:  # typing refused: think without showing it
        _log.info("No typing indicator in channel %s: %s", active.channel_id, error)
        return await bot.ai.choose_move(active.game, level)


async def computer_turn(bot: BrandubhBot, active: ActiveGame) -> None:
    """Think in the process pool (showing "typing"), play the move, post the board."""
    assert active.computer_level is not None
    channel = bot.get_partial_messageable(active.channel_id)
    for attempt in range(1, COMPUTER_ATTEMPTS + 1):
        try:
            move = await _think_visibly(bot, channel, active, active.computer_level)
            break
        except PoolClosed:
            return  # shutting down: the turn resumes at the next start
        except Exception:
            _log.exception(
                "The computer failed to move in game %s (try %d)", active.game_id, attempt
            )
            await asyncio.sleep(COMPUTER_RETRY_PAUSE.total_seconds() * attempt)
    else:
        if bot.timers.computer_stalled(active.game_id, active.ply):
            await channel.send(
                "I could not find a move in this game; I will keep trying. "
                "An admin can stop the game with `/abort`."
            )
        return
    bot.timers.computer_unstalled(active.game_id)
    try:
        result = await bot.services.games.play_computer_move(
            active.game_id, move, expected_ply=active.ply
        )
    except (StaleGameError, NoGameHere):
        _log.info("Game %s moved on while the computer thought; move dropped", active.game_id)
        return
    headline, names = await headline_for(bot, result)
    post = await board_post(result.game, names, headline=headline)
    await channel.send(post.content, file=post.file(), view=_view(post.view))
    if result.set_end is not None:
        await continue_after_set(bot, result.set_end)
    elif result.game.computer_to_move:
        start_computer_turn(bot, result.game)
