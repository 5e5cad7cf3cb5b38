"""Late boards: each board the outbox owes, made as it stood after its move and posted.

The outbox (bot/flow/outbox.py) decides when a board is owed and tried; this makes it: the
current position's board with its buttons, or an earlier move's without them, saying why it
is late, or the set's end as its live post told it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import discord

from bot.alike_names import NamesToldApart
from bot.flow.accepted_challenges import show_accepted
from bot.flow.boards_shown import (
    Shows,
    board,
    custom_ids,
    final_board,
    line,
    may_be_out,
    shown_already,
    still_thinking,
    with_buttons,
)
from bot.flow.posts import (
    NO_PINGS,
    BoardPost,
    board_picture,
    board_picture_name,
    board_post,
    describe_move,
    final_picture,
    match_end_pings,
    opening_headline,
    opening_pings,
    or_missing,
    pictures_posted,
    set_end_text,
)
from bot.flow.takebacks import taken_back_line, taken_back_text
from bot.i18n import Language
from bot.names import escaped
from bot.services.domain import ActiveGame
from bot.services.errors import NoGameHere
from bot.services.records import AT_LEVEL
from bot.storage.announcements import AnnouncementRow, LateCause
from bot.views.confirm import aborted_line, computer_name
from bot.views.rematch import rematch_view
from engine import Side

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LatePost:
    """A board :meth:`LateBoards.post` posted (or found out already) as ``message_id``, and
    ``follow_up``, what goes with it: it becomes the live board (or its Rematch the match's),
    a challenge's message shows the acceptance, the line before my reply says no longer that
    I am thinking. The board is out before that runs, so the database failing it
    (StorageError) must not leave the board owed, to be posted again once Discord forgets its
    nonce; made again later, it changes nothing more."""

    message_id: int
    follow_up: Callable[[], Awaitable[None]]


class LateBoards:
    """Posts one owed board at a time for :class:`~bot.flow.outbox.Outbox`."""

    def __init__(self, flow: GameFlow, started: datetime) -> None:
        self.flow = flow
        self._started = started
        """When this process began: a board owed since before may be out, unnoted
        (:func:`may_be_out`)."""

    async def post(self, row: AnnouncementRow) -> LatePost | None:
        """Post the board of ``row.set_id`` as it stood after move ``row.ply``; None if
        superseded. Its nonce makes Discord create the post once, however often it is sent.
        What goes with the post (:class:`LatePost`) is the caller's to make, once it is out.

        The board of the current position carries the buttons; a board owed for an earlier
        move (several moves were made while Discord was unreachable, or its thread was locked)
        shows that move's position, without buttons or pings, saying why it is late
        (``row.late_cause``). One owed by a takeback (``row.taken_back``: it stepped the set
        back to ``ply``) tells of the takeback instead of the move before it; against the
        computer it pings nobody, as its live answer: the player took it back themselves, and
        was told it was done. It is in the language of the set's server (``row.guild_id``), not
        found through the channel: discord.py forgets a thread once Discord archives it.
        """
        set_id, ply, channel_id, nonce = row.set_id, row.ply, row.channel_id, row.nonce
        taken_back = row.taken_back
        services = self.flow.bot.services
        channel = self.flow.bot.get_partial_messageable(channel_id)
        lang = await self.flow.server_language(row.guild_id)
        try:
            active: ActiveGame | None = await services.games.get(set_id)
        except NoGameHere:
            active = None
        if active is not None and active.ply == ply:
            names = await self.flow.names_for(active, lang)
            last = active.game.last_record
            first_board = not taken_back and last is None and active.set_number == 1
            if taken_back:
                headline = taken_back_line(active, names, lang)
            elif last is not None:
                headline = describe_move(last, names[active.player_of(last.side)], lang)
            elif first_board:  # the match's first board: a restart (or Discord) cut its post off
                headline = opening_headline(active, names, lang)
            else:
                headline = ""
            if not taken_back and last is not None and active.computer_to_move:
                shows: Shows = line(last)  # a member's line
            else:  # with its buttons: the game's board, as it stands, must keep them
                shows = with_buttons(row)
            sent = await self._shown_already(row, shows) or await self._post_live_board(
                row, active, names, lang, headline, first_board=first_board
            )
            shown = active

            async def went_live() -> None:
                await self.flow.live_boards.went_live(shown, sent.id)
                if first_board:  # a restart may have cut its challenge's edit off too
                    await show_accepted(self.flow, shown, lang)
                if (
                    not taken_back
                    and last is not None
                    and shown.player_of(last.side) == shown.computer_id
                ):
                    await self.stop_thinking(set_id, ply, channel)
                elif _still_thinking(sent):  # the flow's line, its answer lost: I think
                    await self.flow.computer_turns.line_found(shown, sent.id, channel, lang)

            return LatePost(sent.id, went_live)
        exported = await services.records.export(
            set_id=set_id, unnamed=lang._("a player"), at_level=lang.gettext(AT_LEVEL)
        )
        game = exported.game
        if game.ply < ply:
            return None  # taken back: that move is no longer part of the game
        position = game.copy()
        while position.ply > ply:
            position.undo()
        if ply == 0 and not taken_back and position.outcome is None:
            # A match's first board, moved on from: the move's board shows it. Its challenge's
            # edit, if a restart cut it off (or the database failed it after that board was
            # posted, leaving it owed), is still to make, also once that set ended.
            first = active
            if first is None:  # the set ended meanwhile: as it ended
                with contextlib.suppress(NoGameHere):
                    first = (await services.games.ended(set_id)).game
            if first is not None and first.set_number == 1:
                await show_accepted(self.flow, first, lang)
            return None
        last = position.last_record
        computer_moved = not taken_back and last is not None and last.side is exported.computer_side
        # A member's move against me: its board was the line saying I am thinking.
        thought = exported.computer_side is not None and last is not None and not taken_back
        thought = thought and not computer_moved
        found = None
        if position.outcome is None and not thought:
            found = await self._shown_already(row, board(row))
        if found is not None:  # the board (an old picture now): its buttons, if any, come off
            old = found.id
            buttons = bool(custom_ids(found))

            async def buttons_off() -> None:
                if buttons:
                    await self.flow.live_boards.take_buttons_off(channel_id, old)
                if computer_moved:
                    await self.stop_thinking(set_id, ply, channel)

            return LatePost(old, buttons_off)
        mover = (
            exported.attacker_name
            if last and last.side is Side.ATTACKERS
            else exported.defender_name
        )
        if taken_back:  # the side to move at ``ply`` is the one whose move was taken back
            lines = [
                taken_back_text(
                    escaped(
                        exported.attacker_name
                        if position.to_move is Side.ATTACKERS
                        else exported.defender_name
                    ),
                    ply + 1,
                    against_computer=exported.computer_side is not None,
                    lang=lang,
                )
            ]
        else:
            lines = [describe_move(last, mover, lang) if last else ""]
        known: Shows | None = None  # how to know it among my messages, if it may be out
        if position.outcome is not None:
            known = final_board(set_id)
        elif thought and last is not None:
            known = line(last)
        files: list[discord.File] = []
        view: discord.ui.View | None = None
        live: ActiveGame | None = None  # the set whose buttons the post carries
        end_of_match: ActiveGame | None = None  # or the match it offers a rematch of
        pings = NO_PINGS
        one_set = exported.sets_total == 1  # as the live board: no "Set 1 of 1"
        png, alt = await asyncio.to_thread(
            board_picture,
            position,
            exported.attacker_name,
            exported.defender_name,
            None if one_set else exported.set_number,
            None if one_set else exported.sets_total,
            lang,
            left_server=exported.left_by is not None,
        )
        files.append(  # with its alt text and name, as live boards
            BoardPost("", png, alt, None).file(
                board_picture_name(set_id, ply, row.undone)
                if position.outcome is None
                else final_picture(set_id)
            )
        )
        if position.outcome is not None:
            # The set's end as its live post tells it (who won and why, the walkover of the
            # next set, the match's result), from what was stored when it ended.
            end = await services.games.ended(set_id)
            if position.outcome.reason.from_outside:
                lines = []  # its last move was told already: the set ended after it
            names = await self.flow.names_for(end.game, lang)
            if end.aborted_by is not None:  # as the live post: who aborted it, naming the players
                me = await computer_name(self.flow.bot, end.game)
                lines.append(lang.render(aborted_line(end.game, end.aborted_by, me, names)))
            lines.append(set_end_text(end, names, lang))
            if end.match_end is not None:  # as the live post: whom it pings, the Rematch button
                pings = match_end_pings(end, end.aborted_by)  # not the admin who aborted it
                if not end.match_end.aborted:
                    view = rematch_view(end.match_end.match_id, lang)
                    end_of_match = end.game
            following = await services.games.in_channel(channel_id)
            if following is not None and following.ply == 0:
                opening = await board_post(
                    following,
                    await self.flow.names_for(following, lang),
                    lang,
                    headline=lang._("**Set {number} begins.**", number=following.set_number),
                )
                lines.append(opening.content)
                files.append(opening.file(f"set-{following.set_number}.png"))
                view, pings = opening.view, opening.allowed_mentions()
                live = following
        elif taken_back:
            # Moves came since (or the set ended): posted after their boards, it must not
            # read as the game's newest position.
            lines.append(lang._("posted late: the game has moved on since."))
        else:
            lines.append(late_line(ply + 1, row.late_cause, lang))
        # Where I may still not attach files (Send Messages given back alone), as text.
        content, files = pictures_posted(
            self.flow.bot, channel_id, None, "\n".join(line for line in lines if line), files, lang
        )
        found = None if known is None else await self._shown_already(row, known)
        sent = found or await channel.send(
            content,
            files=files,
            view=or_missing(view),
            allowed_mentions=pings,
            nonce=nonce,
        )
        offers_rematch = end_of_match if view is not None else None

        async def posted_late() -> None:
            if live is not None:
                await self.flow.live_boards.went_live(live, sent.id)
            elif offers_rematch is not None:
                await self.flow.live_boards.match_end_went_live(offers_rematch, sent.id)
            if computer_moved:
                await self.stop_thinking(set_id, ply, channel)
            elif _still_thinking(sent):
                # Discord returned, under the nonce, the flow's own line of this member's move
                # against me (made, its answer lost both tries): my reply, stored since, was
                # posted apart and will not replace it, nor will one to a set that ended.
                await self.flow.computer_turns.stop_thinking(channel, sent.id)

        return LatePost(sent.id, posted_late)

    async def _shown_already(self, row: AnnouncementRow, shows: Shows) -> discord.Message | None:
        """``row``'s board among its channel's newest messages, if it may be out though owed
        (:func:`may_be_out`: no nonce would return it) and is (:func:`shown_already`, known as
        ``shows`` says: a set's end owed at the ply of its last move, a timeout or a
        resignation, is another board than that move's, with its buttons)."""
        if not may_be_out(row, self._started, self.flow.bot.clock()):
            return None
        found = await shown_already(self.flow.bot, row, shows)
        if found is not None:
            _log.info("Board of game %s at ply %s was out already", row.set_id, row.ply)
        return found

    async def _post_live_board(
        self,
        row: AnnouncementRow,
        active: ActiveGame,
        names: NamesToldApart,
        lang: Language,
        headline: str,
        *,
        first_board: bool,
    ) -> discord.Message:
        """Post ``row``'s board, ``active`` as it stands, with its buttons, under ``headline``
        (``first_board``: the match's first, pinging as a match's opening does)."""
        post = await board_post(active, names, lang, headline=headline)
        pings = post.allowed_mentions()
        content, pictures = pictures_posted(
            self.flow.bot, row.channel_id, None, post.content, [post.file()], lang
        )
        own_takeback = row.taken_back and active.computer_id is not None
        return await self.flow.bot.get_partial_messageable(row.channel_id).send(
            content,
            files=pictures,
            view=or_missing(post.view),
            allowed_mentions=NO_PINGS
            if own_takeback
            else opening_pings(active, pings)
            if first_board
            else pings,
            nonce=row.nonce,
        )

    async def stop_thinking(
        self, set_id: int, ply: int, channel: discord.PartialMessageable
    ) -> None:
        """The computer's move ``ply`` was posted apart from the line of the player's move
        before it, which said "I am thinking…": take that off (the reply did not replace it)."""
        line = await self.flow.bot.services.announcements.message_of(set_id, ply - 1)
        if line is not None:
            await self.flow.computer_turns.stop_thinking(channel, line)


def _still_thinking(sent: discord.Message) -> bool:
    """Whether ``sent``, the message Discord returned for a late board, is a member's line
    against me still saying "I am thinking…" (a late board of mine never ends so)."""
    return still_thinking(sent.content)


def late_line(number: int, cause: LateCause | None, lang: Language) -> str:
    """The line under a board posted late, after boards of moves played since, showing the
    position at move ``number`` (as a live board's turn line numbers it), saying why it is
    late (``cause``: why its last post failed)."""
    if cause is LateCause.LOCKED:
        return lang._(
            "move {number} · posted late: a moderator had locked this thread.", number=number
        )
    if cause is LateCause.REFUSED:
        return lang._(
            "move {number} · posted late: I was not allowed to post here when it was played.",
            number=number,
        )
    return lang._(
        "move {number} · posted late: Discord could not be reached when it was played.",
        number=number,
    )
