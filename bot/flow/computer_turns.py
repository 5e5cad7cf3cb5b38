"""The computer's turns: searched in the background while "typing" shows, played at the ply
they were asked for, their board posted (edited into the player's acknowledgement when there is
one, so a round against the computer is one message)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

import discord

from bot.ai_pool import PoolClosed
from bot.answers_made import maybe_made
from bot.flow.boards_shown import still_thinking
from bot.flow.move_answers import note_refusal
from bot.flow.outbox import late_cause
from bot.flow.posts import (
    board_post,
    describe_move,
    may_attach_files,
    or_missing,
    pictures_as_text,
)
from bot.flow.stale_boards import moved_on
from bot.flow.threads import edit_reopening
from bot.i18n import Language, command
from bot.services.domain import ActiveGame, MoveResult, SetEnd
from bot.services.errors import NoGameHere, StaleGameError
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

COMPUTER_ATTEMPTS = 3
COMPUTER_RETRY_PAUSE = timedelta(seconds=1)
"""Pause after the computer's first failed search (times the attempt number after later ones)."""


class ComputerTurns:
    """The computer's moves in the games of one bot."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._under_way: dict[tuple[int, tuple[str, ...]], _Reply] = {}
        """The computer's turns under way, by set and moves so far, with the player's line
        each replies in (:meth:`line_found`)."""

    def start(
        self, active: ActiveGame, *, reply_in: int | None = None, as_text: bool = False
    ) -> None:
        """Let the computer choose and play its move in the background.

        ``reply_in`` is the message acknowledging the player's move: the computer's board
        replaces it, so a round against the computer is one message. A turn already under way
        for the same position is not started again (the start-up resume of the computer's turns
        can meet the turn of a match begun as the bot came up): one search, one board.
        ``as_text``: the player's move was answered where I may not attach files, so the
        board replacing that answer is shown as text (:func:`pictures_as_text`).
        """
        key = _turn(active)
        if key in self._under_way:
            return
        self._under_way[key] = _Reply(reply_in)
        task = self.flow.bot.spawn(
            self.play(active, reply_in=reply_in, as_text=as_text),
            name=f"computer-move-{active.set_id}-{active.ply}",
        )
        task.add_done_callback(lambda _: self._under_way.pop(key, None))

    def _line(self, active: ActiveGame, reply_in: int | None) -> int | None:
        """The player's line the turn in ``active`` replies in: ``reply_in``, or the one the
        outbox got back since (:meth:`line_found`)."""
        reply = self._under_way.get(_turn(active))
        return reply_in if reply is None or reply.line is None else reply.line

    async def line_found(
        self,
        active: ActiveGame,
        line: int,
        channel: discord.PartialMessageable,
        lang: Language,
    ) -> None:
        """The outbox got back by its nonce ``line``, the player's line before my move in
        ``active`` (its answer was lost both tries), still saying "I am thinking…": a turn
        under way that has not posted its reply yet replies in it (edited into it, or taking
        "thinking" off it once posted apart); else my reply is out already (posted apart) or
        none is coming now, and "thinking" comes off at once (a turn tried again later finds
        the line stored, and is edited into it)."""
        reply = self._under_way.get(_turn(active))
        if reply is not None and not reply.posted:
            reply.line = line
            return
        await self.stop_thinking(channel, line)

    async def _replace_or_send(
        self,
        channel: discord.PartialMessageable,
        message_id: int | None,
        board: ActiveGame,
        content: str,
        files: list[discord.File],
        view: discord.ui.View | None,
        pings: discord.AllowedMentions,
    ) -> int:
        """Edit ``message_id`` into this content (else send it anew); return the message id.

        An edit notifies nobody, so only a message sent anew can ping the player to move. Sent
        anew, it carries the nonce the outbox posts ``board`` (the game after my move) with, as
        my move owed it: if Discord took it but its answer was lost, the outbox's post returns
        it instead of a second one.
        """
        if message_id is not None:
            try:
                await edit_reopening(
                    self.flow.bot,
                    channel.get_partial_message(message_id),
                    content=content,
                    attachments=files,
                    view=view,
                    allowed_mentions=pings,
                )
                return message_id
            except (discord.HTTPException, *UNREACHABLE) as error:  # deleted: post it instead
                _log.info("Could not edit message %s into the board: %r", message_id, error)
                if maybe_made(error) and await _reads(channel, message_id, content):
                    return message_id  # Discord made the edit; only its answer was lost
                for file in files:
                    file.reset()
        nonce = await self.flow.board_nonce(board)
        sent = await channel.send(
            content,
            files=files,
            view=or_missing(view),
            allowed_mentions=pings,
            nonce=nonce,
        )
        return sent.id

    async def stop_thinking(
        self, channel: discord.PartialMessageable, message_id: int, *, told: str | None = None
    ) -> None:
        """The move's line said "I am thinking…" but no reply will replace it
        (the set ended by a resignation or an abort meanwhile, or the reply was posted apart):
        take that line off (put ``told`` in its place, if given: what happened instead) — in a
        thread Discord archived meanwhile too, which is opened again for the edit
        (:func:`edit_reopening`). It is known in any language I speak: the server's may have
        changed since the line was written."""
        try:
            message = await channel.fetch_message(message_id)
            lines = message.content.split("\n")[:-1] + ([] if told is None else [told])
            if still_thinking(message.content):
                await edit_reopening(self.flow.bot, message, content="\n".join(lines))
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info("Could not take 'thinking' off message %s: %s", message_id, error)

    async def _still_to_move(self, active: ActiveGame) -> bool:
        """Whether the computer is still to move in ``active`` as stored: a turn started from
        an older read (the start-up resume, read as a match began and its first turn was
        already played) asks for no search whose move would only be dropped."""
        try:
            current = await self.flow.bot.services.games.get(active.set_id)
        except NoGameHere:
            return False
        return current.ply == active.ply and current.computer_to_move

    async def _tell_in_lines(
        self, channel: discord.PartialMessageable, lines: set[int | None], told: str
    ) -> None:
        """The player's ``lines`` (None: none) still saying "I am thinking…" say ``told``
        (my move) in its place: no board of mine replaces them."""
        for line in sorted(line for line in lines if line is not None):
            await self.stop_thinking(channel, line, told=told)

    async def no_reply(self, channel_id: int, line: int | None) -> None:
        """No reply of mine is coming to the player's ``line`` in ``channel_id``, if there is
        one (its set ended, or moved on without my move): it says no longer that I am
        thinking."""
        if line is not None:
            channel = self.flow.bot.get_partial_messageable(channel_id)
            await self.stop_thinking(channel, line)

    async def _think_visibly(
        self, channel: discord.PartialMessageable, active: ActiveGame, level: int
    ) -> str:
        """The computer's move, with "Brandubh is typing…" shown while it thinks (if allowed).
        The indicator is shown beside the search, never before it: Discord slow to show it,
        or failing (discord.py tries a 500 five times, for about 25 s), holds up no move."""
        typing = self.flow.bot.spawn(
            _typing(channel, active.channel_id), name=f"typing-{active.set_id}"
        )
        try:
            return await self.flow.bot.ai.choose_move(active.game, level)
        finally:
            typing.cancel()

    async def play(
        self, active: ActiveGame, *, reply_in: int | None = None, as_text: bool = False
    ) -> None:
        """Ask the computer opponent (the process pool, or the job queue on PostgreSQL) for its
        move while showing "typing", play it at the ply it was asked for, post the board.

        A turn that dies on an error before its move is stored (the database, Discord) is tried
        again later, as a failed search is (:meth:`Timers.computer_died`); one that dies after
        leaves its board owed to the outbox."""
        assert active.computer_level is not None
        channel = self.flow.bot.get_partial_messageable(active.channel_id)
        try:
            result = await self._move(active, reply_in, channel)
        except Exception:
            _log.exception("The computer's turn in game %s died; tried again later", active.set_id)
            self.flow.bot.timers.computer_died(active, self._line(active, reply_in))
            return
        if result is None:
            return
        with self.flow.outbox.posting() as claim:
            claim(result.game.set_id, result.game.ply)  # its board is mine to post now
            await self._post_reply(active, result, reply_in, as_text, channel)

    async def _move(
        self, active: ActiveGame, reply_in: int | None, channel: discord.PartialMessageable
    ) -> MoveResult | None:
        """The computer's move in ``active``, searched and stored; None if there is none to
        post (the set ended or moved on, the search failed every try, the bot is stopping)."""
        assert active.computer_level is not None
        if not await self._still_to_move(active):  # ended (resigned, aborted) before I looked
            await self.no_reply(active.channel_id, self._line(active, reply_in))
            return None
        for attempt in range(1, COMPUTER_ATTEMPTS + 1):
            try:
                move = await self._think_visibly(channel, active, active.computer_level)
                break
            except PoolClosed:
                return None  # shutting down: the turn resumes at the next start
            except Exception:
                _log.exception(
                    "The computer failed to move in game %s (try %d)", active.set_id, attempt
                )
                await asyncio.sleep(COMPUTER_RETRY_PAUSE.total_seconds() * attempt)
        else:
            if not await self._still_to_move(active):  # ended while I failed: nothing to try
                await self.no_reply(active.channel_id, self._line(active, reply_in))
                return None
            if self.flow.bot.timers.computer_stalled(active, self._line(active, reply_in)):
                await self._say_still_trying(active, channel)
            return None
        try:
            result = await self.flow.bot.services.games.play_computer_move(
                active.set_id, move, expected_ply=active.ply
            )
        except (StaleGameError, NoGameHere):
            _log.info("Game %s moved on while the computer thought; move dropped", active.set_id)
            await self.no_reply(active.channel_id, self._line(active, reply_in))
            return None
        except Exception:
            stored = await self._stored_anyway(active, move)
            if stored is None:
                raise
            _log.warning(
                "Game %s: the computer's move %s was stored though its write failed",
                active.set_id,
                move,
                exc_info=True,
            )
            result = stored
        self.flow.bot.timers.computer_unstalled(active.set_id)
        return result

    async def _stored_anyway(self, active: ActiveGame, move: str) -> MoveResult | None:
        """The computer's ``move`` in ``active``, if the database stored it though its write
        failed (the answer to a commit lost on the way back), as it was stored, with its board
        as the move owed it (:meth:`GameService.with_move_board`): its board and
        what follows it (the next set, the computer opening it) are then the turn's, not left
        for a restart. None if it was not stored, the set ended otherwise (resigned, aborted,
        on time: whoever ended it announced it), or the database cannot say now."""
        games = self.flow.bot.services.games
        end: SetEnd | None = None
        try:
            try:
                stored = await games.get(active.set_id)
            except NoGameHere:
                end = await games.ended(active.set_id)  # that move may have ended the set
                stored = end.game
        except (NoGameHere, StorageError) as error:
            _log.info("Game %s: the computer's move is not found stored: %r", active.set_id, error)
            return None
        last = stored.game.last_record
        if stored.ply != active.ply + 1 or last is None or str(last.move) != move:
            return None
        outcome = stored.game.outcome
        if end is not None and (outcome is None or outcome.reason.from_outside):
            return None
        # Its board as the move owed it, not as owed when posted: a resignation (an abort,
        # time) at that ply meanwhile owes the final board anew there, under its own nonce.
        stored = await games.with_move_board(stored, ended_by_it=end is not None)
        return MoveResult(last, stored, end)

    async def ended_unseen(self, set_id: int, ply: int) -> None:
        """A computer turn at ``ply`` in ``set_id`` that died (:meth:`Timers.computer_died`)
        finds the set ended: if my move after ``ply`` ended it (stored though its write
        answered an error, and the read after it failed too, so the turn could not tell), what
        follows a set's end runs now — the next set begins (I open it if I attack), or the
        match's line shows the result. Its board is the outbox's, posted after its grace.
        Raises StorageError if the database cannot say yet (the next check asks again)."""
        try:
            end = await self.flow.bot.services.games.ended(set_id)
        except NoGameHere:
            return
        ended = end.game
        last = ended.game.last_record
        outcome = ended.game.outcome
        if ended.ply != ply + 1 or last is None or outcome is None or outcome.reason.from_outside:
            return  # it ended otherwise (resigned, aborted, on time): whoever ended it told it
        if ended.player_of(last.side) != ended.computer_id:
            return
        _log.warning(
            "Game %s: the computer's move %s ended it unseen; the set ends now", set_id, last
        )
        await self.flow.after_move(MoveResult(last, ended, end))

    async def _say_still_trying(
        self, active: ActiveGame, channel: discord.PartialMessageable
    ) -> None:
        """Tell ``active``'s channel that the computer found no move and keeps trying (its
        retry is noted already). It is noted as told once the line is sent: one Discord
        refuses, or the database failing the language before it, is sent when the computer
        gives up again at this ply."""
        lang = await self.flow.server_language(active.guild_id)
        try:
            await channel.send(
                lang._(
                    "I could not find a move in this game; I will keep trying. An admin can "
                    "stop the game with {abort_command}.",
                    abort_command=command("abort"),
                )
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning("Could not say game %s's computer keeps trying: %r", active.set_id, error)
            return
        self.flow.bot.timers.told_still_trying(active)

    async def _post_reply(
        self,
        active: ActiveGame,
        result: MoveResult,
        reply_in: int | None,
        as_text: bool,
        channel: discord.PartialMessageable,
    ) -> None:
        """Post the board after the computer's stored move ``result`` (into ``reply_in``, the
        player's line, if there is one), then let the game go on — also when making its post
        fails (the outbox then owes it, and takes the "thinking" line off): a move that ended
        the set still starts the next one (the computer opens it if it attacks) or shows the
        match's result."""
        try:
            if result.set_end is not None:  # the human may have left before the next set
                end = await self.flow.departures.next_set(result.set_end)
                result = replace(result, set_end=end)
            await self._post_board(active, result, reply_in, as_text, channel)
        except Exception:
            _log.exception(
                "The computer's board in game %s at ply %s is owed: its post failed",
                active.set_id,
                result.game.ply,
            )
        finally:
            await self.flow.after_move(result)

    async def _post_board(
        self,
        active: ActiveGame,
        result: MoveResult,
        reply_in: int | None,
        as_text: bool,
        channel: discord.PartialMessageable,
    ) -> None:
        """Draw and post the board after the computer's stored move ``result`` (into
        ``reply_in``, or the line the outbox got back since, if there is one); one Discord
        refuses is owed by the outbox."""
        reply = self._under_way.get(_turn(active), _Reply(None))
        reply_in = reply.line = self._line(active, reply_in)
        lang = await self.flow.server_language(active.guild_id)
        headline, names = await self.flow.headline_for(result, lang)
        mine = headline  # my move, told (the set's end too, if it ended it)
        if reply_in is not None:
            earlier = result.game.game.records[-2] if result.game.ply >= 2 else None
            if earlier is not None:
                mover = names.get(result.game.player_of(earlier.side), "?")
                headline = f"{describe_move(earlier, mover, lang)}\n{headline}"
        post = await board_post(
            result.game, names, lang, headline=headline, mark_earlier=reply_in is not None
        )
        content, files, view, pings = await self.flow.set_ends.with_next_set(
            post, result.set_end, lang
        )
        if result.set_end is None and await moved_on(self.flow.bot.services.games, result.game):
            # Its final board (or the takeback's) is out, or owed: a board after it asking
            # for a move, or the player's line edited into one, would read as if the set went
            # on from there. The line tells my move instead of "I am thinking…"; the later
            # board shows the position.
            reply.posted = True
            _log.info("Game %s moved on while my board was drawn: not posted", active.set_id)
            await self._tell_in_lines(channel, {reply.line, reply_in}, mine)
            return
        # Posted on my own (an opening move, a resumed turn) it follows my permissions there.
        if as_text or not may_attach_files(self.flow.bot, active.channel_id):
            content, files = pictures_as_text(content, files, lang), []
        try:
            try:
                message_id = await self._replace_or_send(
                    channel, reply_in, result.game, content, files, view, pings
                )
            finally:
                reply.posted = True  # a line the outbox gets back from now on is not mine
        except (discord.HTTPException, *UNREACHABLE) as error:
            # Stored, and its board owed: the outbox posts it once Discord takes it (a
            # permission given back), and /board shows it meanwhile; posted late, it says
            # why Discord refused it (a lock, a permission), as a member's board does.
            _log.warning(
                "The computer's board in game %s at ply %s is owed: %r",
                active.set_id,
                result.game.ply,
                error,
            )
            cause = late_cause(error)
            if cause is not None:
                await note_refusal(result, cause, self.flow.bot.services.announcements)
            # The player's line (theirs, or the one the outbox got back) was not made my
            # board: it tells my move in place of "I am thinking…" (its board follows, late).
            await self._tell_in_lines(channel, {reply_in, reply.line}, mine)
        else:
            await self.flow.live_boards.board_out(result.game, message_id, result.set_end)
            if reply_in is not None and message_id != reply_in:  # posted apart: the edit failed
                await self.stop_thinking(channel, reply_in)
            if reply.line is not None and reply.line != reply_in:  # the outbox got it back
                await self.stop_thinking(channel, reply.line)


@dataclass
class _Reply:
    """Where a computer turn under way replies: the player's ``line`` (None: none known), and
    whether its reply was ``posted`` (tried) already."""

    line: int | None
    posted: bool = False


def _turn(active: ActiveGame) -> tuple[int, tuple[str, ...]]:
    """The key of the computer's turn in ``active``: its set and the moves so far."""
    return (active.set_id, tuple(str(record.move) for record in active.game.records))


async def _typing(channel: discord.PartialMessageable, channel_id: int) -> None:
    """Show "Brandubh is typing…" in ``channel`` until cancelled; Discord refusing it (no
    permission, an outage) only leaves it unshown."""
    try:
        async with channel.typing():
            await asyncio.Event().wait()
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("No typing indicator in channel %s: %r", channel_id, error)


async def _reads(channel: discord.PartialMessageable, message_id: int, content: str) -> bool:
    """Whether message ``message_id`` reads ``content`` now (an edit whose answer was lost
    was made); False if Discord cannot say."""
    try:
        message = await channel.fetch_message(message_id)
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not read message %s back: %r", message_id, error)
        return False
    return message.content.strip() == content.strip()
