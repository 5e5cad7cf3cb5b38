"""The game's flow: play a move, the computer's turn, a set's end, and what gets posted where.

The same path serves every way a move arrives (``/move``, the picker, a confirmed repetition,
the computer) and every way a set ends (a move, resignation, time), so each announcement reads
the same whoever caused it. Cogs, components and timers reach it as ``bot.flow``; it is the only
layer that both changes a game and talks to Discord about it.
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any

import discord

from bot.alike_names import NamesToldApart
from bot.flow.challenges import ChallengeFlow
from bot.flow.computer_match import ComputerMatchFlow
from bot.flow.computer_turns import ComputerTurns
from bot.flow.departures import Departures
from bot.flow.live_boards import LiveBoards
from bot.flow.lost_answers import edit_made
from bot.flow.members import Members
from bot.flow.outbox import Outbox
from bot.flow.place_lookup import PlaceLookup
from bot.flow.player_moves import PlayerMoves
from bot.flow.posts import (
    NO_PINGS,
    board_post,
    describe_move,
    opening_headline,
    opening_pings,
    pictures_or_text,
    pictures_posted,
    set_end_text,
)
from bot.flow.rematches import RematchFlow
from bot.flow.set_ends import SetEnds
from bot.flow.stale_boards import moved_on
from bot.flow.takebacks import TakebackFlow
from bot.flow.vanished import VanishedFlow
from bot.i18n import ENGLISH, Language, language, language_for
from bot.i18n.audience import reader
from bot.services.domain import ActiveGame, MoveResult
from bot.services.errors import FirstBoardOwed
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.common import answer, deferred_privately, within_deadline

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)


class GameFlow:
    """The game's flow for one bot: every way a game moves on and what it posts."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self.takebacks = TakebackFlow(self)
        """Asking for, answering and lapsing takebacks."""
        self.challenges = ChallengeFlow(self)
        """Accepting a challenge: the match's thread (when it can have one) and its start."""
        self.computer = ComputerMatchFlow(self)
        """Starting a match against the computer, in a thread of its own when it can."""
        self.outbox = Outbox(self)
        """Posting the boards that stored moves and set ends are still owed."""
        self.computer_turns = ComputerTurns(self)
        """The computer's moves: searched in the background, played, their boards posted."""
        self.rematches = RematchFlow(self)
        """The Rematch button: the same match again, set 1's sides swapped."""
        self.vanished = VanishedFlow(self)
        """Aborting the games whose channel, thread or server is gone."""
        self.places = PlaceLookup(self)
        """Asking Discord who can see a game's place the cache lacks (archived, deleted)."""
        self.members = Members(self)
        """Asking Discord whether someone is still a member of a server."""
        self.departures = Departures(self)
        """Ending the sets, and the matches, of players who left the server."""
        self.set_ends = SetEnds(self)
        """A set's end: its final board, what follows it, the match's line."""
        self.player_moves = PlayerMoves(self)
        """A member's move (``/move``, the picker, a confirmed repetition) and its answer."""
        self.live_boards = LiveBoards(self)
        """Which message is a game's board with buttons; the buttons off the one before."""

    async def server_language(self, guild_id: int) -> Language:
        """The language of ``guild_id``'s public messages: the one chosen with ``/settings
        language:``, else the server's own (its Community setting), else English."""
        chosen = (await self.bot.services.settings.get(guild_id)).language
        if chosen is not None:
            return language(chosen)
        guild = self.bot.get_guild(guild_id)
        return language_for(guild.preferred_locale.value if guild is not None else None)

    async def answer_language(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int,
        what: str,
        *,
        ephemeral: bool = False,
        thinking: bool = True,
    ) -> Language:
        """The language of the public answer to ``interaction``, whose work is stored already:
        ``guild_id``'s (:meth:`server_language`), read within Discord's deadline (deferred in
        time when slow, as :func:`within_deadline` is told by ``ephemeral`` and ``thinking``).
        One the database fails to read is logged (``what`` names the answer) and the answer is
        told in the presser's language, not as an apology asking them to do it again."""
        try:
            return await within_deadline(
                interaction, self.server_language(guild_id), ephemeral=ephemeral, thinking=thinking
            )
        except StorageError as error:
            _log.warning("%s, language unread: %r", what, error)
            return reader(interaction)

    async def names_for(self, active: ActiveGame, lang: Language = ENGLISH) -> NamesToldApart:
        """The players' display names ("a player" in ``lang`` for one never seen), two that
        read alike told apart by their usernames ("alex (@alex_w)", in their mentions too),
        shown alike when the usernames cannot be read (a board is not lost over a name); the
        computer is named with its level."""
        players = (active.attacker_id, active.defender_id)
        found = await self.bot.names_told_apart(
            await self.bot.display_names(active.guild_id, *players), or_as_shown=True
        )
        names = {player: found.get(player, lang._("a player")) for player in players}
        if active.computer_id is not None and active.computer_level is not None:
            me = found.get(active.computer_id, "Brandubh")
            names[active.computer_id] = lang._(
                "{name} (level {level})", name=me, level=active.computer_level
            )
        return NamesToldApart(names, found.usernames)

    async def headline_for(
        self, result: MoveResult, lang: Language = ENGLISH
    ) -> tuple[str, NamesToldApart]:
        """The text above the board after ``result``, and the players' names used in it."""
        active = result.game
        names = await self.names_for(active, lang)
        headline = describe_move(
            result.record, names.get(active.player_of(result.record.side), "?"), lang
        )
        if result.set_end is not None:
            headline += "\n" + set_end_text(result.set_end, names, lang)
        return headline, names

    async def play_move(
        self,
        interaction: discord.Interaction[Any],
        move_text: str,
        *,
        confirm: bool = False,
        expected_ply: int | None = None,
    ) -> None:
        """Play a player's move and answer with the public board (or a warning only they see):
        see :meth:`PlayerMoves.play_move`."""
        await self.player_moves.play_move(
            interaction, move_text, confirm=confirm, expected_ply=expected_ply
        )

    async def post_in_channel(
        self,
        channel_id: int,
        content: str,
        *,
        lang: Language,
        interaction: discord.Interaction[Any] | None = None,
        files: list[discord.File] | None = None,
        view: discord.ui.View | None = None,
        pings: discord.AllowedMentions = NO_PINGS,
        nonce: str | None = None,
        into_answer: bool = False,
    ) -> int | None:
        """Post publicly: as the answer to ``interaction`` if there is one, else in the channel;
        its pictures as text, in ``lang``, where I may not attach files (:func:`pictures_posted`).
        Posted in the channel, it carries ``nonce`` (an owed board's: see :meth:`owed_nonce`).
        ``into_answer``: the interaction's answer is out already, and becomes this post (an
        edit, which pings nobody); one Discord will not edit leaves it, and this is posted
        in the channel — unless the edit, failing as one Discord may have made all the same
        (a 5xx at each of discord.py's tries, no answer), is read back made
        (:func:`edit_made`).

        Returns the message's id.
        """
        if files:
            content, files = pictures_posted(
                self.bot, channel_id, interaction, content, files, lang
            )
        if interaction is not None and into_answer:
            try:
                edited = await interaction.edit_original_response(
                    content=content, attachments=files or [], view=view, allowed_mentions=pings
                )
                return edited.id
            except (discord.HTTPException, *UNREACHABLE) as error:
                made = await edit_made(interaction, content, error)
                if made is not None:
                    _log.info("The edit of an answer into its post was made, only lost")
                    return made
                _log.warning("Could not edit an answer into its post; posted apart: %r", error)
                for file in files or ():
                    file.reset()
                interaction = None
        if interaction is not None:
            return await answer(
                interaction, content, files=files, view=view, allowed_mentions=pings, nonce=nonce
            )
        kwargs: dict[str, Any] = {"content": content, "allowed_mentions": pings}
        if nonce is not None:
            kwargs["nonce"] = nonce
        if files:
            kwargs["files"] = files
        if view is not None:
            kwargs["view"] = view
        return (await self.bot.get_partial_messageable(channel_id).send(**kwargs)).id

    async def owed_nonce(
        self,
        active: ActiveGame,
        interaction: discord.Interaction[Any] | None = None,
        *,
        first: bool = False,
    ) -> str | None:
        """The nonce of the board after ``active``'s last move, owed to the outbox, if it is
        posted in the channel (not as ``interaction``'s answer, which cannot carry one): the
        outbox posts it with the same nonce, so a post Discord took but whose answer was lost
        is returned to the outbox rather than posted twice. ``first``: a set's first board,
        which takes no nonce of a board owed anew at its ply since (:meth:`board_nonce`)."""
        if interaction is not None and not deferred_privately(interaction):
            return None
        return await self.board_nonce(active, first=first)

    async def board_nonce(self, active: ActiveGame, *, first: bool = False) -> str:
        """The nonce the outbox posts the board of ``active`` with: the one the move or the
        takeback that stored it read as it owed the board (:attr:`ActiveGame.owed`),
        never that of a board owed anew at its ply since (the set's end there), whose post
        Discord would return this one for. Else as owed now (with ``first``, the first board
        owed there, else one of its own); one of its own if the database cannot say: the move
        is stored already, and a post without the outbox's nonce beats a player told it was
        not saved."""
        if active.owed is not None:
            return active.owed.nonce
        set_id, ply = active.set_id, active.ply
        try:
            return await self.bot.services.announcements.nonce(set_id, ply, first=first)
        except StorageError as error:
            _log.warning("Game %s: no nonce for the board of ply %s: %r", set_id, ply, error)
            return secrets.token_hex(8)

    async def announced(self, active: ActiveGame, message_id: int | None) -> None:
        """The board after ``active``'s last move is out: the outbox need not post it — only
        while it is the board its move owed (:attr:`ActiveGame.owed`, if known): one owed anew
        at its ply since (the set's end there) stays owed. If the database cannot record that
        now, the outbox records it once it can (:meth:`Outbox.record_later`)."""
        owed = active.owed
        delivered = self.bot.services.announcements.delivered
        try:
            await delivered(active.set_id, active.ply, message_id, owed=owed)
        except StorageError as error:
            self.outbox.record_later(
                active.set_id,
                active.ply,
                error,
                lambda: delivered(active.set_id, active.ply, message_id, owed=owed),
                None if owed is None else owed.same,
            )

    async def show_board(
        self, interaction: discord.Interaction[Any], active: ActiveGame, *, again: bool = True
    ) -> None:
        """``/board``: the game's board again, as its newest board; it pings nobody. A set that
        moved on while its board was drawn (:func:`moved_on`: an admin's /abort, a
        resignation, time, a takeback) is not shown as it was: the channel's game now is
        (the next set's, the position after the takeback; drawn ``again`` once), or, with no
        game left there, the board drawn, told over, without buttons."""

        async def words() -> tuple[Language, NamesToldApart]:
            lang = await self.server_language(active.guild_id)
            return lang, await self.names_for(active, lang)

        # Reads (the server's language, the players' names): deferred in time when slow.
        lang, names = await within_deadline(interaction, words())
        last = active.game.last_record
        headline = (
            lang._("Last move: {move}.", move=str(last))
            if last is not None
            else lang._("No move yet.")
        )
        post = await within_deadline(
            interaction, board_post(active, names, lang, headline=headline, again=True)
        )
        stale = await moved_on(self.bot.services.games, active)
        if stale and again:
            now = await within_deadline(
                interaction, self.bot.services.games.in_channel(active.channel_id)
            )
            if now is not None:
                await self.show_board(interaction, now, again=False)
                return
        told = lang._("That game is over.") if stale else post.content
        content, files = pictures_or_text(interaction, told, [post.file()], lang)
        message_id = await answer(
            interaction,
            content,
            files=files,
            view=None if stale else post.view,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if not stale:
            await self.live_boards.went_live(active, message_id)

    async def begin_match(
        self,
        active: ActiveGame,
        *,
        interaction: discord.Interaction[Any] | None = None,
        headline: str | None = None,
        into_answer: bool = False,
    ) -> None:
        """Post the first board of a new match (and let the computer open if it attacks); the
        challenges waiting where it is played lapse, the channel now busy, whether the board
        could be posted or not (the match is stored). ``into_answer``: the board replaces
        ``interaction``'s answer, which is out already (:meth:`post_in_channel`).

        A board the database fails to make (a read of the server's language, of the players'
        names) is the outbox's, logged: ``interaction``, if its answer is that board, is told
        the match is on and its board follows (:class:`FirstBoardOwed`), not that it could not
        be saved; the computer opens all the same."""
        try:
            # Its board is owed from the match's storing (a restart before it is out posts it
            # then): mine to post now, left alone by the outbox while I do.
            with self.outbox.posting() as claim:
                claim(active.set_id, active.ply)
                self.outbox.started(active)  # claimed from its storing until now
                await self._post_first_board(
                    active, interaction=interaction, headline=headline, into_answer=into_answer
                )
        except StorageError as error:
            _log.warning("Game %s: its first board is owed: %r", active.set_id, error)
            if interaction is not None and not into_answer:
                raise FirstBoardOwed() from error
        finally:
            if active.computer_to_move:  # stored: it opens whatever became of the board
                self.start_computer_turn(active)
            await self.challenges.lapse_waiting(active.channel_id)

    async def _post_first_board(
        self,
        active: ActiveGame,
        *,
        interaction: discord.Interaction[Any] | None,
        headline: str | None,
        into_answer: bool,
    ) -> None:
        """Post the first board of a new match (:meth:`begin_match`) — unless it is out
        already: a flow slower than :data:`~bot.flow.outbox.STARTING_BOUND` left it to the
        outbox, which posted it (``interaction``'s deferral, if it still thinks, is then
        taken away)."""
        if await self.bot.services.announcements.out(active.set_id, active.ply):
            _log.info("Game %s: its first board is out already, posted late", active.set_id)
            if interaction is not None and not into_answer:
                await _drop_thinking(interaction)
            return
        lang = await self.server_language(active.guild_id)
        names = await self.names_for(active, lang)
        headline = opening_headline(active, names, lang, headline)
        if interaction is not None:
            post = await within_deadline(
                interaction, board_post(active, names, lang, headline=headline)
            )
        else:
            post = await board_post(active, names, lang, headline=headline)
        message_id = await self.post_in_channel(
            active.channel_id,
            post.content,
            lang=lang,
            interaction=interaction,
            files=[post.file()],
            view=post.view,
            pings=opening_pings(active, post.allowed_mentions()),
            # Posted in the channel (an answer edited into it, a thread's first board), it
            # carries the outbox's nonce: an outbox post of it still in flight (this flow was
            # slower than the bound) then returns this one, and the other way round. Not the
            # nonce of a board owed anew at ply 0 meanwhile (the match aborted while this was
            # drawn): Discord would return this stale board for that one, never posted.
            nonce=await self.owed_nonce(active, None if into_answer else interaction, first=True),
            into_answer=into_answer,
        )
        await self.live_boards.board_out(active, message_id)  # out: the outbox need not post it

    async def after_move(self, result: MoveResult) -> None:
        """After a stored move, whatever became of its board (the outbox posts an owed one):
        the game goes on — the next set begins, or the computer answers.

        It runs after the move's answer (in a ``finally``), which an error of its own would
        replace with an untrue one: what fails here is logged with its traceback instead. The
        computer's turn is begun before anything that can fail (:meth:`SetEnds.after_set`);
        what is left, the match's result on its line in the parent channel, then stays
        unshown, as when Discord refuses that edit."""
        try:
            if result.set_end is not None:
                await self.set_ends.after_set(result.set_end)
            elif result.game.computer_to_move:
                self.start_computer_turn(result.game)
        except Exception:
            _log.exception(
                "Game %s: what follows the move at ply %s failed",
                result.game.set_id,
                result.game.ply,
            )

    def start_computer_turn(
        self, active: ActiveGame, *, reply_in: int | None = None, as_text: bool = False
    ) -> None:
        """Let the computer choose and play its move in the background (see
        :meth:`ComputerTurns.start`)."""
        self.computer_turns.start(active, reply_in=reply_in, as_text=as_text)


async def _drop_thinking(interaction: discord.Interaction[Any]) -> None:
    """Take away ``interaction``'s deferral if it still shows "thinking…" (the board it was
    to become is out apart); a press's message, edited already, is left as it is."""
    if interaction.response.type is not discord.InteractionResponseType.deferred_channel_message:
        return
    try:
        await interaction.delete_original_response()
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info("Could not take interaction %s's deferral away: %r", interaction.id, error)
