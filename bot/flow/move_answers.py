"""The answers to a member's move: its public answer (or the private one where I may not post),
the line said in place of the picker, and the refusals of a move stored whose board is owed or
whose thread is locked.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import discord

from bot.errors import answers_only_note, posting_lacks
from bot.flow.lost_answers import send_under_nonce
from bot.flow.posts import NO_PINGS
from bot.i18n.audience import reader
from bot.locked_refusals import ThreadLockedForMe, locked_refusal
from bot.services.announcements import AnnouncementService
from bot.services.domain import MoveResult
from bot.services.errors import BoardOwed
from bot.storage.announcements import LateCause
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.common import answer, deferred_privately, update_message

_log = logging.getLogger(__name__)


def played_line(
    interaction: discord.Interaction[Any],
    result: MoveResult,
    missing: list[str],
    *,
    computer: bool = False,
) -> str:
    """ "You played d1-b1.", in place of the picker: with the line saying that only my answers
    get through here if I lack ``missing``."""
    lang = reader(interaction)
    played = lang._("You played {move}.", move=str(result.record))
    if not missing:
        return played
    return played + "\n" + answers_only_note(missing, lang, computer=computer)


def may_post_here(interaction: discord.Interaction[Any], missing: list[str]) -> bool:
    """Whether I may post a message of my own where ``interaction`` is, lacking ``missing``
    there (:func:`bot.errors.missing_here`), which Discord refuses without View Channel too
    (missing_here does not count it: an interaction's own answers need none of them). Attach
    Files alone does not stop a post, whose pictures are then shown as text
    (:func:`bot.flow.posts.pictures_or_text`). The one judge of a /move's post apart
    (:func:`answer_publicly_if_possible`) and of a press's board (:func:`post_for_press`)."""
    return not posting_lacks(missing) and interaction.app_permissions.view_channel


async def answer_publicly_if_possible(
    interaction: discord.Interaction[Any],
    missing: list[str],
    content: str,
    files: list[discord.File],
    view: discord.ui.View | None,
    pings: discord.AllowedMentions,
    *,
    privately: str | None = None,
    nonce: str | None = None,
) -> tuple[bool, int | None]:
    """Answer a /move with its public message; whether it is public, and its id.

    A /move deferred privately (a slow read) has its public answer posted apart, in the
    channel, which needs what I may lack there (``missing``, or View Channel): where I may not
    post (:func:`may_post_here`, the press's judge too), the player is shown it privately
    (``privately`` if given, else ``content``; without buttons: the public board has them),
    and the outbox posts it publicly once I may. Posted apart, it carries ``nonce``
    (:meth:`GameFlow.owed_nonce`)."""
    if deferred_privately(interaction) and not may_post_here(interaction, missing):
        await interaction.followup.send(
            privately or content, files=files, ephemeral=True, allowed_mentions=NO_PINGS
        )
        return False, None
    return True, await answer(
        interaction, content, files=files, view=view, allowed_mentions=pings, nonce=nonce
    )


async def post_for_press(
    interaction: discord.Interaction[Any],
    content: str,
    files: list[discord.File],
    view: discord.ui.View | None,
    pings: discord.AllowedMentions,
    *,
    nonce: str,
) -> int:
    """Post the public answer to a press (a move picked), where I may post
    (:func:`may_post_here`), as a message of its own in the channel or thread it was pressed
    in; its id. It carries the outbox's ``nonce``, so a post whose answer was lost is tried
    again without showing twice (:func:`send_under_nonce`; a followup could carry none), and
    the outbox's post, if that fails too, returns it as well."""
    assert interaction.channel_id is not None
    channel = interaction.client.get_partial_messageable(
        interaction.channel_id, guild_id=interaction.guild_id
    )
    kwargs: dict[str, Any] = {"content": content, "allowed_mentions": pings, "nonce": nonce}
    if files:
        kwargs["files"] = files
    if view is not None:
        kwargs["view"] = view
    message = await send_under_nonce(channel, f"Interaction {interaction.id}'s board", **kwargs)
    return message.id


def board_owed(result: MoveResult) -> BoardOwed:
    """The answer to a member's move ``result``, stored, whose post could not be made (the
    error being handled is logged with its traceback; a rate limit that only held it back,
    :class:`discord.RateLimited`, in one line): it is played, its board owed."""
    held_back = sys.exc_info()[1]
    if isinstance(held_back, discord.RateLimited):
        _log.warning(
            "Game %s: the board after ply %s is owed: Discord asks to wait %.0f s before the "
            "next post there",
            result.game.set_id,
            result.game.ply,
            held_back.retry_after,
        )
    else:
        _log.exception(
            "Game %s: the board after ply %s is owed: making its post failed",
            result.game.set_id,
            result.game.ply,
        )
    return BoardOwed(str(result.record.move))


async def owed_in_place(interaction: discord.Interaction[Any], owed: BoardOwed) -> None:
    """Say ``owed`` (the move is played, its board owed) in place of the picker (or the
    warning) whose press played it: left showing its choices, it would offer a move that is no
    longer the player's to make. If Discord will not take that edit, ``owed`` is said apart."""
    try:
        await update_message(interaction, reader(interaction).render(owed.text), attachments=[])
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not put the owed board's sentence in place of the picker: %r", error)
        raise owed from None


async def played_but_locked(
    interaction: discord.Interaction[Any],
    result: MoveResult,
    announcements: AnnouncementService,
) -> ThreadLockedForMe:
    """The answer to a move played and stored whose board (or line) Discord then refused as
    locked (the cache missed the lock: :func:`bot.locked_refusals.refused_as_locked`): that it was
    played, and that the board, owed by the outbox, is posted once the thread is unlocked (if
    moves came before it, saying it is late because the thread was locked); the thread's hold
    begins on Discord's word."""
    await note_refusal(result, LateCause.LOCKED, announcements)
    ended = result.set_end
    return await locked_refusal(
        interaction,
        on_discords_word=True,
        played=str(result.record),
        match_over=ended is not None and ended.match_end is not None,
    )


async def note_refusal(
    result: MoveResult, cause: LateCause, announcements: AnnouncementService
) -> None:
    """Discord refused the flow's post of ``result``'s board (or line) for ``cause`` (the
    thread locked, a permission missing): the board, owed, says so if posted late — the
    outbox's own try may succeed (the thread unlocked, the permission back) and cannot tell
    why the first failed. Not noted, the late post blames Discord: not worth a refusal."""
    try:
        game = result.game
        await announcements.post_refused(game.set_id, game.ply, cause, owed=game.owed)
    except StorageError as error:
        _log.warning(
            "Game %s: why its board was refused is not noted: %s", result.game.set_id, error
        )


async def tell_answers_only(
    interaction: discord.Interaction[Any], missing: list[str], *, computer: bool = False
) -> None:
    """Tell the player who moved, privately, that only my answers get through here (if I lack
    ``missing``); a note Discord will not take is only logged: the move is played."""
    if not missing:
        return
    note = answers_only_note(missing, reader(interaction), computer=computer)
    try:
        await interaction.followup.send(note, ephemeral=True, allowed_mentions=NO_PINGS)
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not tell user %s that I may not post: %s", interaction.user.id, error)
