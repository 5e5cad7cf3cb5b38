"""A member's move, however it arrives (``/move``, the picker, a confirmed repetition): played,
and answered with the public board (or a warning only they see), the computer's reply begun.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import discord

from bot.answers_made import Answer, made_anyway
from bot.errors import expired, missing_here
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
)
from bot.flow.no_game_here import no_game_here
from bot.flow.posts import NO_PINGS, BoardPost, board_post, or_missing, pictures_or_text
from bot.flow.stale_boards import moved_on
from bot.followups_once import followup_once
from bot.i18n import Language, command
from bot.i18n.audience import reader
from bot.locked_refusals import refused_as_locked
from bot.recently_used import RecentlyUsed
from bot.services.domain import MoveResult
from bot.services.errors import BoardOwed, NoGameHere, RepetitionNeedsConfirmation
from bot.storage.announcements import LateCause
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.common import answer, deferred_privately, update_message, within_deadline
from bot.views.confirm import ConfirmRepetition

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

EARLY_CHECK_LIMIT = 0.5
"""Seconds a /move's early refusal check may take before the move goes on without it."""


@dataclass(frozen=True)
class _Move:
    """A member's move as it arrives, with what playing and answering it needs."""

    text: str
    """The move as written (``d1-b1``)."""
    confirm: bool
    """Whether a repetition it makes is confirmed."""
    expected_ply: int | None
    """The ply it was picked at (a press's), or None (``/move``)."""
    missing: list[str]
    """The permissions I lack where it is played (:func:`missing_here`)."""
    claim: Callable[[int, int], None]
    """Claims its stored board from the outbox (:meth:`Outbox.posting`)."""


@dataclass(frozen=True)
class _PublicAnswer:
    """The public answer to a stored move: its board (with the next set's first board, at a
    set change) or, against the computer, its line."""

    content: str
    files: list[discord.File]
    view: discord.ui.View | None
    pings: discord.AllowedMentions
    privately: str | None = None
    """Shown to a /move's player in its place where I may not post (else ``content``)."""
    computer: bool = False
    """Whether it is the line of a move against the computer, whose reply becomes the board."""


_Answering = Callable[
    [discord.Interaction[Any], MoveResult, list[str], _PublicAnswer],
    Awaitable[tuple[bool, int | None]],
]
"""How a stored move's public answer goes out, ``/move``'s or a press's
(:meth:`PlayerMoves._answer_command`, :meth:`PlayerMoves._answer_press`), given the
permissions I lack there: whether it is public (else the outbox owes it), and its id."""


def _confirmation(
    interaction: discord.Interaction[Any], warning: RepetitionNeedsConfirmation
) -> discord.ui.View:
    """The button confirming the repetition ``warning`` is about, for the position it was
    given on: the set may have ended since (the opponent resigned), and it then says so."""
    view = discord.ui.View(timeout=None)
    view.add_item(
        ConfirmRepetition(
            warning.set_id, warning.ply, warning.stamp, warning.move_text, reader(interaction)
        )
    )
    return view


NOTES_KEPT = 10_000
"""How many notes of what waits (a set, a member, the permissions I lack) the bot remembers
having told, about 2 MB: past that the least recently told is forgotten, not one kept per set
ever played where I lacked a permission."""


class PlayerMoves:
    """A member's moves: played, answered, the game then going on."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self.noted: RecentlyUsed[tuple[int, int, tuple[str, ...]], None] = RecentlyUsed(NOTES_KEPT)
        """Who was told, in which set, that I lack which permissions (:meth:`_note_once`),
        the least recently told first: at most :data:`NOTES_KEPT`."""

    def _note_once(self, result: MoveResult, user_id: int, missing: list[str]) -> list[str]:
        """``missing``, the first time ``user_id`` moves in ``result``'s set while I lack just
        these permissions, else none: the note saying what waits is not repeated at every
        move (held in memory, the :data:`NOTES_KEPT` last told: a restart, or a set left
        that long, may say it once more)."""
        key = (result.game.set_id, user_id, tuple(missing))
        if not missing:
            return []
        if key in self.noted:
            self.noted.touch(key)
            return []
        self.noted.put(key, None)
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
        board follows as a public message (:meth:`_play_pressed`); from ``/move`` the board is
        the answer itself (:meth:`_play_command`).

        Where I lack the permissions to post on my own (Send Messages, Attach Files), the move
        is played all the same: Discord delivers an interaction's answers without them. The
        player is told, privately and once a set, that what I post on my own waits (the outbox
        posts it once the permissions are back), so the clock never runs out on them for an
        admin's setting.
        """
        missing = missing_here(interaction)
        await self.flow.bot.remember(interaction.user)
        with self.flow.outbox.posting() as claim:
            move = _Move(move_text, confirm, expected_ply, missing, claim)
            if interaction.type is discord.InteractionType.component:
                await self._play_pressed(interaction, move)
            else:
                await self._play_command(interaction, move)

    async def _play_command(self, interaction: discord.Interaction[Any], move: _Move) -> None:
        """``/move``: refused on a quick read where it can be (:meth:`_refuse_early`), deferred
        privately with Discord's "thinking" if slow; its public board is the answer itself."""
        # A read (the server's language, read anew each minute): deferred privately when slow.
        lang = await within_deadline(interaction, self._language(interaction), ephemeral=True)
        try:
            await self._refuse_early(interaction, move.text, move.confirm)
            result, post = await self._played(interaction, move, lang, thinking=True)
        except NoGameHere as none:
            raise await no_game_here(self.flow.bot, interaction, none, typed_move=True) from None
        except RepetitionNeedsConfirmation as warning:
            text = reader(interaction).render(warning.text)
            await answer(
                interaction, text, ephemeral=True, view=_confirmation(interaction, warning)
            )
            return
        await self._answer_move(interaction, result, post, lang, move, self._answer_command)

    async def _play_pressed(self, interaction: discord.Interaction[Any], move: _Move) -> None:
        """A press (the picker, a confirmed repetition): deferred without a message if slow;
        the message pressed then says the move is played, and its board follows as a message
        of its own. A board owed is said in that message's place (:func:`owed_in_place`)."""
        # A read (the server's language, read anew each minute): deferred when slow.
        lang = await within_deadline(
            interaction, self._language(interaction), ephemeral=True, thinking=False
        )
        try:
            try:
                result, post = await self._played(interaction, move, lang, thinking=False)
            except RepetitionNeedsConfirmation as warning:
                text = reader(interaction).render(warning.text)
                confirmation = _confirmation(interaction, warning)
                await update_message(interaction, text, view=confirmation, attachments=[])
                return
            await self._answer_move(interaction, result, post, lang, move, self._answer_press)
        except BoardOwed as owed:
            await owed_in_place(interaction, owed)

    async def _language(self, interaction: discord.Interaction[Any]) -> Language:
        """The language of the public answer to a move made by ``interaction``."""
        assert interaction.guild_id is not None
        return await self.flow.server_language(interaction.guild_id)

    async def _played(
        self, interaction: discord.Interaction[Any], move: _Move, lang: Language, *, thinking: bool
    ) -> tuple[MoveResult, BoardPost | None]:
        """``move`` played and stored, its board ``claim``-ed from the outbox and drawn (none
        against the computer, whose reply turns the line into a board); ``interaction``
        deferred privately meanwhile if slow (``thinking``: showing Discord's "thinking")."""
        channel_id = interaction.channel_id
        assert channel_id is not None

        async def prepare() -> tuple[MoveResult, BoardPost | None]:
            result = await self.flow.bot.services.games.play(
                channel_id,
                interaction.user.id,
                move.text,
                confirm_repetition=move.confirm,
                expected_ply=move.expected_ply,
            )
            move.claim(result.game.set_id, result.game.ply)  # its board is mine to post now
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

        # A /move deferred before its refusal is known is deferred privately (its board is
        # then posted apart); a press is deferred without a message at all.
        return await within_deadline(
            interaction,
            prepare(),
            ephemeral=True,
            thinking=thinking,
            unanswered=lambda prepared: self.flow.after_move(prepared[0]),
        )

    async def _answer_move(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        post: BoardPost | None,
        lang: Language,
        move: _Move,
        answering: _Answering,
    ) -> None:
        """Answer the stored move ``result`` with its board ``post`` (with the next set's first
        board, at a set change) the way ``answering`` says, and record it as the game's board
        with buttons; against the computer, with one line (:meth:`_acknowledge_for_computer`).
        The game then goes on, whatever became of the answer."""
        if post is None:
            await self._acknowledge_for_computer(interaction, result, lang, move, answering)
            return
        try:
            try:  # the next set's first board is drawn here: one that fails is owed too
                content, files, view, pings = await self.flow.set_ends.with_next_set(
                    post, result.set_end, lang, actor=interaction.user.id
                )
            except Exception:
                raise board_owed(result) from None
            content, files = pictures_or_text(interaction, content, files, lang)
            reply = _PublicAnswer(content, files, view, pings)
            stale = result.set_end is None and await moved_on(
                self.flow.bot.services.games, result.game
            )
            if stale:  # its set's later board is out, or owed: the move is told, not shown
                reply = await self._move_told(result, lang)
            public, message_id = await answering(interaction, result, move.missing, reply)
            if public and not stale:  # else the outbox owes it (a stale one, no more)
                await self.flow.live_boards.board_out(result.game, message_id, result.set_end)
        finally:
            await self.flow.after_move(result)

    async def _move_told(self, result: MoveResult, lang: Language) -> _PublicAnswer:
        """The answer to the stored move ``result`` whose set moved on while its board was
        drawn (an admin's /abort, a resignation, time; :func:`moved_on`): its final board is
        out, or owed, and a board after it asking for a move would read as if the set went
        on. The move stands: it is told in one line, pinging nobody, without buttons."""
        _log.info("Game %s moved on while its board was drawn: told", result.game.set_id)
        try:
            headline, _names = await self.flow.headline_for(result, lang)
        except Exception:
            raise board_owed(result) from None
        return _PublicAnswer(headline, [], None, NO_PINGS)

    async def _answer_command(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        missing: list[str],
        reply: _PublicAnswer,
    ) -> tuple[bool, int | None]:
        """Answer a /move that played ``result`` with ``reply``, public, or privately where I
        may not post apart (:func:`answer_publicly_if_possible`); the player is then told,
        once a set, what I lack (:meth:`_note_once`). Whether it is public, and its id
        (:meth:`_answer_lost`'s, if it failed and was made all the same)."""
        noted = self._note_once(result, interaction.user.id, missing)
        # Not posted apart, it is an answer without the outbox's nonce.
        answering = None if deferred_privately(interaction) else Answer.next_of(interaction)
        try:
            public, message_id = await answer_publicly_if_possible(
                interaction,
                missing,
                reply.content,
                reply.files,
                reply.view,
                reply.pings,
                privately=reply.privately,
                nonce=await self.flow.owed_nonce(result.game, interaction),
            )
        except (discord.HTTPException, *UNREACHABLE) as failed:
            return True, await self._answer_lost(interaction, result, answering, failed)
        await tell_answers_only(interaction, noted, computer=reply.computer)
        return public, message_id

    async def _answer_press(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        missing: list[str],
        reply: _PublicAnswer,
    ) -> tuple[bool, int | None]:
        """Answer a press that played ``result``: the message pressed says so (with what I
        lack, once a set: :func:`played_line`), then ``reply`` follows in public
        (:meth:`_press_answer`). Always public; its id (:meth:`_answer_lost`'s, if it failed
        and was made all the same)."""
        noted = self._note_once(result, interaction.user.id, missing)
        answering: Answer | None = None  # a public answer without the outbox's nonce
        try:
            played = played_line(interaction, result, noted, computer=reply.computer)
            await update_message(interaction, played, attachments=[])
            answering = None if may_post_here(interaction, missing) else Answer.FOLLOWUP
            message_id = await self._press_answer(interaction, result, answering, reply)
        except (discord.HTTPException, *UNREACHABLE) as failed:
            message_id = await self._answer_lost(interaction, result, answering, failed)
        return True, message_id

    async def _press_answer(
        self,
        interaction: discord.Interaction[Any],
        result: MoveResult,
        answering: Answer | None,
        reply: _PublicAnswer,
    ) -> int:
        """Post the public answer to a press that played ``result`` (its board, or its line
        against the computer), its picker already saying the move is played; its id.

        Where I may post (:func:`may_post_here`; ``answering`` is then None) it is a message
        in the channel or thread, carrying the nonce the outbox would post the board with:
        Discord makes it once however often discord.py tries it after a 5xx, and one whose
        answer is lost for good is returned to the outbox's post. Elsewhere (``answering``:
        :attr:`Answer.FOLLOWUP`) it is a followup, which Discord delivers without Send
        Messages but which can carry no nonce: it is sent once (:func:`followup_once`: after
        a 5xx, sent again only if the channel shows it was not made), and one lost is looked
        for there (:func:`made_anyway`)."""
        if answering is None:
            nonce = await self.flow.board_nonce(result.game)
            return await post_for_press(
                interaction, reply.content, reply.files, reply.view, reply.pings, nonce=nonce
            )
        return await followup_once(
            interaction,
            content=reply.content,
            files=reply.files,
            view=or_missing(reply.view),
            allowed_mentions=reply.pings,
        )

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
        it waits for the thread to open. An answer Discord refused as too late (not
        acknowledged within 3 seconds of its making) is raised as it is: nothing can answer the
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
        lang: Language,
        move: _Move,
        answering: _Answering,
    ) -> None:
        """Answer a move against the computer with one line, the way ``answering`` says; its
        reply edits it into the board."""
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
            line = _PublicAnswer(content, [], None, NO_PINGS, privately=privately, computer=True)
            public, message_id = await answering(interaction, result, move.missing, line)
            if public:  # else my reply is a board of its own (the outbox's if refused)
                await self.flow.announced(result.game, message_id)
        finally:
            # The move is stored: the computer answers it even if the player's acknowledgement
            # could not be sent (its reply is then a board of its own).
            self.flow.start_computer_turn(
                result.game,
                reply_in=message_id,
                as_text=not interaction.app_permissions.attach_files,
            )
