"""A member's move, however it arrives (``/move``, the picker, a confirmed repetition): played,
and answered with the public board (or a warning only they see), the computer's reply begun.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.errors import expired, missing_here
from bot.flow.lost_answers import Answer, made_anyway
from bot.flow.move_answers import (
    answer_publicly_if_possible,
    board_owed,
    may_post_here,
    note_refusal,
    owed_in_place,
    played_but_locked,
    played_line,
    post_for_press,
    tell_answers_only,
    update_or_answer,
)
from bot.flow.no_game_here import no_game_here
from bot.flow.posts import NO_PINGS, BoardPost, board_post, or_missing, pictures_or_text
from bot.i18n import Language, command
from bot.i18n.audience import reader
from bot.locked_refusals import refused_as_locked
from bot.services.domain import MoveResult
from bot.services.errors import BoardOwed, NoGameHere, RepetitionNeedsConfirmation
from bot.storage.announcements import LateCause
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.common import deferred_privately, within_deadline
from bot.views.confirm import ConfirmRepetition

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

EARLY_CHECK_LIMIT = 0.5
"""Seconds a /move's early refusal check may take before the move goes on without it."""


class PlayerMoves:
    """A member's moves: played, answered, the game then going on."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._noted: set[tuple[int, int, tuple[str, ...]]] = set()
        """Who was told, in which set, that I lack which permissions (:meth:`_note_once`)."""

    def _note_once(self, result: MoveResult, user_id: int, missing: list[str]) -> list[str]:
        """``missing``, the first time ``user_id`` moves in ``result``'s set while I lack just
        these permissions, else none: the note saying what waits is not repeated at every
        move (held in memory: a restart may say it once more)."""
        key = (result.game.set_id, user_id, tuple(missing))
        if not missing or key in self._noted:
            return []
        self._noted.add(key)
        return missing

    async def play_move(
        self,
        interaction: discord.Interaction[Any],
        move_text: str,
        *,
        confirm: bool = False,
        expected_ply: int | None = None,
    ) -> None:
        """Play a player's move and answer with the public board (or a warning only they see).

        From a component (picker, confirmation) the ephemeral message is first updated, then the
        board follows as a public message; from ``/move`` the board is the answer itself.

        Where I lack the permissions to post on my own (Send Messages, Attach Files), the move
        is played all the same: Discord delivers an interaction's answers without them. The
        player is told, privately and once a set, that what I post on my own waits (the outbox
        posts it once the permissions are back), so the clock never runs out on them for an
        admin's setting.
        """
        missing = missing_here(interaction)
        await self.flow.bot.remember(interaction.user)
        with self.flow.outbox.posting() as claim:
            try:
                await self._play_move(interaction, move_text, confirm, expected_ply, missing, claim)
            except BoardOwed as owed:
                if interaction.type is not discord.InteractionType.component:
                    raise
                await owed_in_place(interaction, owed)

    async def _play_move(
        self,
        interaction: discord.Interaction[Any],
        move_text: str,
        confirm: bool,
        expected_ply: int | None,
        missing: list[str],
        claim: Callable[[int, int], None],
    ) -> None:
        """:meth:`play_move`, whose stored move's board is ``claim``-ed from the outbox until
        this is done."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        is_component = interaction.type is discord.InteractionType.component
        assert interaction.guild_id is not None
        lang = await self.flow.server_language(interaction.guild_id)

        async def prepare() -> tuple[MoveResult, BoardPost | None]:
            result = await self.flow.bot.services.games.play(
                channel_id,
                interaction.user.id,
                move_text,
                confirm_repetition=confirm,
                expected_ply=expected_ply,
            )
            claim(result.game.set_id, result.game.ply)  # its board is mine to post now
            try:
                if result.set_end is not None:
                    checked = await self.flow.departures.next_set(
                        result.set_end, present=interaction.user.id
                    )
                    result = replace(result, set_end=checked)
                headline, names = await self.flow.headline_for(result, lang)
                if result.set_end is None and result.game.computer_to_move:
                    return result, None  # the computer's reply turns the line into a board
                return result, await board_post(result.game, names, lang, headline=headline)
            except Exception:
                # Stored, its board owed to the outbox: the game goes on all the same (a set
                # it ended starts the next, the computer answers it), and the player is told
                # their move counts, not asked to try again.
                error = board_owed(result)
                await self.flow.after_move(result)
                raise error from None

        try:
            if not is_component:
                await self._refuse_early(interaction, move_text, confirm)
            # A /move deferred before its refusal is known is deferred privately (its board
            # is then posted apart); a press is deferred without a message at all.
            result, post = await within_deadline(
                interaction,
                prepare(),
                ephemeral=True,
                thinking=not is_component,
                unanswered=lambda prepared: self.flow.after_move(prepared[0]),
            )
        except NoGameHere as none:
            if is_component:
                raise
            raise await no_game_here(self.flow.bot, interaction, none) from None
        except RepetitionNeedsConfirmation as warning:
            # For the position the warning was given on: the set may have ended since (the
            # opponent resigned), and its button then says so.
            confirm_view = discord.ui.View(timeout=None)
            confirm_view.add_item(
                ConfirmRepetition(
                    warning.set_id,
                    warning.ply,
                    warning.stamp,
                    warning.move_text,
                    reader(interaction),
                )
            )
            await update_or_answer(
                interaction, reader(interaction).render(warning.text), confirm_view, is_component
            )
            return
        if post is None:
            await self._acknowledge_for_computer(interaction, result, is_component, lang, missing)
            return
        try:
            try:  # the next set's first board is drawn here: one that fails is owed too
                content, files, view, pings = await self.flow.set_ends.with_next_set(
                    post, result.set_end, lang, actor=interaction.user.id
                )
            except Exception:
                raise board_owed(result) from None
            content, files = pictures_or_text(interaction, content, files, lang)
            noted = self._note_once(result, interaction.user.id, missing)
            answering: Answer | None = None  # a public answer without the outbox's nonce
            try:
                if is_component:
                    await update_or_answer(
                        interaction, played_line(interaction, result, noted), None, True
                    )
                    answering = None if may_post_here(interaction, missing) else Answer.FOLLOWUP
                    message_id: int | None = await self._press_answer(
                        interaction, result, answering, content, files, view, pings
                    )
                else:
                    if not deferred_privately(interaction):  # else posted apart, with it
                        answering = Answer.next_of(interaction)
                    public, message_id = await answer_publicly_if_possible(
                        interaction,
                        missing,
                        content,
                        files,
                        view,
                        pings,
                        nonce=await self.flow.owed_nonce(result.game, interaction),
                    )
                    answering = None
                    await tell_answers_only(interaction, noted)
                    if not public:
                        return  # the outbox owes the public board
            except (discord.HTTPException, *UNREACHABLE) as failed:
                message_id = await self._answer_lost(interaction, result, answering, failed)
            await self.flow.live_boards.board_out(result.game, message_id, result.set_end)
        finally:
            await self.flow.after_move(result)

    async def _press_answer(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        answering: Answer | None,
        content: str,
        files: list[discord.File],
        view: discord.ui.View | None,
        pings: discord.AllowedMentions,
    ) -> int:
        """Post the public answer to a press that played ``result`` (its board, or its line
        against the computer), its picker already saying the move is played; its id.

        Where I may post (:func:`may_post_here`; ``answering`` is then None) it is a message
        in the channel or thread, carrying the nonce the outbox would post the board with:
        Discord makes it once however often discord.py tries it after a 5xx, and one whose
        answer is lost for good is returned to the outbox's post. Elsewhere (``answering``:
        :attr:`Answer.FOLLOWUP`) it is a followup, which Discord delivers without Send
        Messages but which can carry no nonce: one lost is looked for in the channel
        (:func:`made_anyway`), and discord.py's own tries after a 5xx may show it twice."""
        if answering is None:
            nonce = await self.flow.board_nonce(result.game.set_id, result.game.ply)
            return await post_for_press(interaction, content, files, view, pings, nonce=nonce)
        sent = await interaction.followup.send(
            content, files=files, view=or_missing(view), wait=True, allowed_mentions=pings
        )
        return sent.id

    async def _answer_lost(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        answering: Answer | None,
        failed: BaseException,
    ) -> int:
        """The public answer to a stored move (``result``) failed with ``failed``: the id of
        its board if Discord made it all the same (``answering``: sent without the outbox's
        nonce, as :func:`made_anyway` finds it). Else the refusal that tells the player their
        move is played, its board owed to the outbox — which posts it with the nonce a post
        apart carried, or waits, refused, until I may post (a Send Messages taken away: late,
        it says I was not allowed to post, noted here) — or, refused in a locked thread, that
        it waits for the thread to open. An answer Discord refused as too late (the process
        too busy to acknowledge it in 3 seconds) is raised as it is: nothing can answer the
        player now, the error handler logs one line, and the outbox posts the board."""
        if expired(interaction, failed):
            raise failed
        announcements = self.flow.bot.services.announcements
        if isinstance(failed, discord.Forbidden):
            if refused_as_locked(interaction, failed):
                raise await played_but_locked(interaction, result, announcements) from failed
            await note_refusal(result, LateCause.REFUSED, announcements)
        if answering is not None:
            made = await made_anyway(interaction, answering, failed)
            if made is not None:
                _log.info("Game %s: the board's answer was made, only lost", result.game.set_id)
                return made
        raise board_owed(result) from failed

    async def _refuse_early(
        self, interaction: discord.Interaction[Any], move_text: str, confirm: bool
    ) -> None:
        """Raise a /move's refusal (or the repetition warning) judged on a quick read, before
        the move may have to be deferred: a deferred /move answers in public, and a refusal is
        the player's alone. A read that takes longer than ``EARLY_CHECK_LIMIT`` is left to
        the move itself."""
        assert interaction.channel_id is not None
        check = self.flow.bot.services.games.check_move(
            interaction.channel_id, interaction.user.id, move_text, confirm_repetition=confirm
        )
        with contextlib.suppress(TimeoutError, StorageError):
            await asyncio.wait_for(check, EARLY_CHECK_LIMIT)

    async def _acknowledge_for_computer(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        is_component: bool,
        lang: Language,
        missing: list[str],
    ) -> None:
        """Answer a move against the computer with one line; its reply edits it into the board."""
        message_id: int | None = None
        try:
            try:  # a fault here, the move stored, leaves its line owed, as a board's would
                headline, _names = await self.flow.headline_for(result, lang)
            except Exception:
                raise board_owed(result) from None
            content = headline + "\n" + lang._("I am thinking…")
            # Shown privately, this line is never edited into my reply (a board of its own):
            # it says where to find it rather than that I am thinking.
            privately = (
                headline
                + "\n"
                + lang._(
                    "My reply will not show here: {board_command} shows it once I have played.",
                    board_command=command("board"),
                )
            )
            noted = self._note_once(result, interaction.user.id, missing)
            answering: Answer | None = None  # a public answer without the outbox's nonce
            try:
                if is_component:
                    played = played_line(interaction, result, noted, computer=True)
                    await update_or_answer(interaction, played, None, True)
                    answering = None if may_post_here(interaction, missing) else Answer.FOLLOWUP
                    message_id = await self._press_answer(
                        interaction, result, answering, content, [], None, NO_PINGS
                    )
                else:
                    if not deferred_privately(interaction):  # else posted apart, with it
                        answering = Answer.next_of(interaction)
                    public, message_id = await answer_publicly_if_possible(
                        interaction,
                        missing,
                        content,
                        [],
                        None,
                        NO_PINGS,
                        privately=privately,
                        nonce=await self.flow.owed_nonce(result.game, interaction),
                    )
                    answering = None
                    await tell_answers_only(interaction, noted, computer=True)
                    if not public:  # my reply is a board of its own (the outbox's if refused)
                        return
            except (discord.HTTPException, *UNREACHABLE) as failed:
                message_id = await self._answer_lost(interaction, result, answering, failed)
            await self.flow.announced(result.game, message_id)
        finally:
            # The move is stored: the computer answers it even if the player's acknowledgement
            # could not be sent (its reply is then a board of its own).
            self.flow.start_computer_turn(
                result.game,
                reply_in=message_id,
                as_text=not interaction.app_permissions.attach_files,
            )
