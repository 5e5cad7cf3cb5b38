"""A set's end in Discord: its final board (with the next set's first board, or the match's
result and its Rematch button), what follows it (the computer opens the next set, the match's
line in the parent channel shows the result), whoever or whatever ended it: a move, a
resignation, time, an abort.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.flow.posts import BoardPost, board_post, match_end_pings, set_end_text
from bot.flow.threads import computer_line, finished_line
from bot.i18n import Language, Text
from bot.services.domain import ActiveGame, SetEnd
from bot.services.errors import NoGameHere
from bot.storage.announcements import OwedLine
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.rematch import rematch_view

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


class SetEnds:
    """What the bot posts and does when a set ends."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._line_edits = asyncio.Lock()
        """Held by an owed edit of a match's line, from its reads of the match (ended, played,
        taken over by a rematch) to its edit, and by a rematch's edit and a match end's edit of
        it (one lock for every line: they are few and rare)."""

    async def with_next_set(
        self, post: BoardPost, end: SetEnd | None, lang: Language, *, actor: int | None = None
    ) -> tuple[str, list[discord.File], discord.ui.View | None, discord.AllowedMentions]:
        """One message for a board, and at a set change also the next set's first board.

        Returns the content, the pictures, the buttons (the next set's, at a set change) and
        whom it may ping: the player to move; at the match's end the player who did not cause
        it, if it ended on time or by resignation, or both players of an aborted match (never
        ``actor``, who caused the post).
        """
        if end is not None and end.match_end is not None:
            if end.match_end.aborted:  # no rematch; an admin's abort notifies the players
                return post.content, [post.file()], None, match_end_pings(end, actor)
            rematch = rematch_view(end.match_end.match_id, lang)
            return post.content, [post.file()], rematch, match_end_pings(end, actor)
        if end is None or end.next_game is None:
            return post.content, [post.file()], post.view, post.allowed_mentions()
        following = end.next_game
        names = await self.flow.names_for(following, lang)
        opening = await board_post(
            following,
            names,
            lang,
            headline=lang._("**Set {number} begins.**", number=following.set_number),
        )
        return (
            f"{post.content}\n{opening.content}",
            [post.file(), opening.file(f"set-{following.set_number}.png")],
            opening.view,
            opening.allowed_mentions(),
        )

    async def after_set(self, end: SetEnd) -> None:
        """After a set: the computer opens the next set if it attacks (begun first: nothing
        here that may fail holds it up); after the match's last set, the line in the parent
        channel shows the result."""
        following = end.next_game
        if following is not None and following.computer_to_move:
            self.flow.start_computer_turn(following)
        if end.match_end is not None:
            await self._show_result_on_line(end)

    async def announce(
        self,
        end: SetEnd,
        *,
        interaction: discord.Interaction[Any] | None = None,
        reason_line: Text | None = None,
    ) -> None:
        """Post the final board of a set that ended without a move (resignation, time, abort).

        Its board is claimed from the outbox from the start: drawn or posted slower than the
        outbox's grace, it would otherwise be posted twice. The set ended whatever becomes of
        its board: what follows (:meth:`after_set`) runs in any case, and a board the database
        fails to make (a read of the server's language, of the players' names) is left to the
        outbox and only logged — the end is stored, and whoever ended it is not told it could
        not be saved."""
        active = end.game
        try:
            with self.flow.outbox.posting() as claim:
                claim(active.set_id, active.ply)  # its final board is mine to post now
                lang = await self.flow.server_language(active.guild_id)
                names = await self.flow.names_for(active, lang)
                present = interaction.user.id if interaction is not None else None
                end = await self.flow.departures.next_set(end, present=present)
                reason = lang.render(reason_line) if reason_line else ""
                headline = "\n".join(
                    line for line in (reason, set_end_text(end, names, lang)) if line
                )
                post = await board_post(
                    active,
                    names,
                    lang,
                    headline=headline,
                    with_turn=False,
                    left_server=end.left_server,
                )
                content, files, view, pings = await self.with_next_set(
                    post, end, lang, actor=present
                )
                message_id = await self.flow.post_in_channel(
                    active.channel_id,
                    content,
                    lang=lang,
                    interaction=interaction,
                    files=files,
                    view=view,
                    pings=pings,
                    nonce=await self.flow.owed_nonce(active, interaction),
                )
                await self.flow.live_boards.board_out(active, message_id, end)
        except StorageError as error:
            _log.warning("Game %s's final board is owed: %r", active.set_id, error)
        finally:
            # The set ended whatever became of its board (the outbox posts an owed one): the
            # next set begins (the computer opens it if it attacks), the line shows the result.
            await self.after_set(end)

    async def announce_apart(self, end: SetEnd, *, reason_line: Text | None = None) -> None:
        """:meth:`announce` posted on my own, not as the answer of whoever ended the
        set (an admin's abort from another channel): a post Discord refuses there — no
        permission, a locked thread, an outage — is owed by the outbox and only logged, so
        the admin, whose abort is stored, is not told something went wrong."""
        try:
            await self.announce(end, reason_line=reason_line)
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning(
                "Could not announce the end of game %s in channel %s (owed): %s",
                end.game.set_id,
                end.game.channel_id,
                error,
            )

    async def _show_result_on_line(self, end: SetEnd) -> None:
        """Edit the match's line in the parent channel to show how the match ended; one
        Discord does not take (an outage, a refusal) is owed, and the timers make it once it
        does (:meth:`show_owed_lines`), as is one the database failed to make (a read of the
        server's language, of the players' names). A line deleted is left so. Made under the
        lock of the owed lines' edits (:meth:`_write_owed`): an owed edit that read the match
        still played is made before it, not over it."""
        await self._edit_or_owe(end.game, lambda: self._write_result(end))

    async def show_owed_lines(self) -> None:
        """Edit the match lines whose result Discord did not take at the match's end
        (:meth:`_show_result_on_line`), with pauses between tries as for a board; a line gone,
        or taken over by a newer match (a rematch against the computer), is owed no more."""
        for owed in await self.flow.bot.services.announcements.lines_due():
            try:
                await self._show_owed_line(owed)
            except StorageError as error:
                # The database failed this line (its server's language, say): it stays owed,
                # tried again at the next check, and the other servers' lines go on.
                _log.warning(
                    "The line of set %s's match (server %s) stays owed: %r",
                    owed.set_id,
                    owed.guild_id,
                    error,
                )

    async def _show_owed_line(self, owed: OwedLine) -> None:
        """Edit ``owed``'s line (:meth:`show_owed_lines`); raises StorageError if the database
        fails it."""
        announcements = self.flow.bot.services.announcements
        if owed.superseded:
            await announcements.line_shown(owed)
            return
        try:
            await self._write_owed(owed)
        except (discord.HTTPException, *UNREACHABLE) as error:
            if isinstance(error, discord.NotFound):
                await announcements.line_shown(owed)
                return
            refused = not isinstance(error, UNREACHABLE)
            _log.info("The line of set %s's match not edited yet: %r", owed.set_id, error)
            await announcements.line_failed(owed, refused=refused)
            return
        except NoGameHere:  # its set ended between two reads: read again after a pause
            await announcements.line_failed(owed)
            return
        except StorageError:
            raise  # the database's trouble: still owed (:meth:`show_owed_lines` says so)
        except Exception:  # a fault of ours in one must not hold up the others
            _log.exception("The line of set %s's match could not be edited", owed.set_id)
            await announcements.line_failed(owed, refused=True)
            return
        await announcements.line_shown(owed)

    async def _write_owed(self, owed: OwedLine) -> None:
        """Edit ``owed``'s line to show its match's result — or, for a rematch against the
        computer still being played, that the game is on again (:meth:`show_game_on`) —
        unless a newer rematch took the line over since it was read as owed. All is read
        under the lock a rematch's edit and a match end's edit take, right before the edit: a
        rematch stored meanwhile keeps its line, and a match that ended meanwhile keeps its
        result (their edit waits for this one, or this one sees them). A rematch's line whose
        match is over since is left to that end's own edit (owed apart if Discord did not take
        it). Raises NoGameHere if the set ended between two reads."""
        games = self.flow.bot.services.games
        async with self._line_edits:
            try:
                end: SetEnd | None = await games.ended(owed.set_id)
            except NoGameHere:
                end = None  # still played: a rematch's line owed to say the game is on
            playing = None
            if end is None:
                playing = await games.get(owed.set_id)
            elif end.match_end is None:
                current = await games.in_channel(end.game.channel_id)
                if current is not None and current.match_id == end.game.match_id:
                    playing = current
            if await self.flow.bot.services.announcements.line_superseded(owed):
                _log.info("The line of set %s's match was taken over: not edited", owed.set_id)
                return
            if end is not None and end.match_end is not None:
                await self._write_result(end)
            elif playing is not None:
                await self._write_game_on(playing)

    async def _write_result(self, end: SetEnd) -> None:
        """Edit the match's line in the parent channel (if it has one) to show how the match
        ``end`` tells of ended; raises what Discord answers."""
        active = end.game
        if end.match_end is None or active.parent_channel_id is None:
            return
        if active.line_message_id is None:
            return
        lang = await self.flow.server_language(active.guild_id)
        names = await self.flow.names_for(active, lang)  # the computer with its level
        await self._edit(
            active, finished_line(end.match_end, active.ruleset, names, active.channel_id, lang)
        )

    async def show_game_on(self, active: ActiveGame) -> None:
        """A rematch against the computer (``active``) is played in the same thread: the line
        in the parent channel that showed the last match's result says the game is on again.
        An edit Discord does not take (an outage, a refusal, a long 429), or whose language
        the database failed to read, is owed as a result's is (table ``match_lines_owed``, by
        the rematch's first set) and made by the timers' checks (:meth:`show_owed_lines`): the
        rematch began, so the player is shown no apology for it. A line deleted is left so.
        Made under the lock of the owed lines' edits (:meth:`_write_owed`)."""
        await self._edit_or_owe(active, lambda: self._write_game_on(active))

    async def _edit_or_owe(self, active: ActiveGame, write: Callable[[], Awaitable[None]]) -> None:
        """Make the edit of ``active``'s match line that ``write`` makes, under the lock of the
        line's edits; one Discord does not take (an outage, a refusal, a long 429) or the
        database fails to make is owed by ``active``'s set (:meth:`show_owed_lines`), and a
        line deleted is left so."""
        try:
            async with self._line_edits:
                await write()
        except (discord.HTTPException, *UNREACHABLE, StorageError) as error:  # a long 429 too
            if isinstance(error, discord.NotFound):  # the line, or its channel, is gone
                _log.info("Match %s's line is gone: %r", active.match_id, error)
                return
            _log.warning("Could not edit the line of match %s (owed): %r", active.match_id, error)
            try:
                await self.flow.bot.services.announcements.line_owed(active.set_id)
            except StorageError as failed:
                _log.warning("Match %s's line stays unedited: %r", active.match_id, failed)

    async def _write_game_on(self, active: ActiveGame) -> None:
        """Edit the line of ``active``'s match against the computer (if it has one) to say the
        game is on in its thread; raises what Discord answers."""
        if active.parent_channel_id is None or active.line_message_id is None:
            return
        computer, level = active.computer_id, active.computer_level
        if computer is None or level is None:
            return
        human = active.defender_id if active.attacker_id == computer else active.attacker_id
        lang = await self.flow.server_language(active.guild_id)
        names = await self.flow.bot.display_names(active.guild_id, human, computer)
        await self._edit(
            active,
            computer_line(human, computer, active.ruleset, level, names, active.channel_id, lang),
        )

    async def _edit(self, active: ActiveGame, line: str) -> None:
        """Make ``active``'s line read ``line`` (without buttons); raises what Discord answers."""
        assert active.parent_channel_id is not None
        assert active.line_message_id is not None
        message = self.flow.bot.get_partial_messageable(
            active.parent_channel_id
        ).get_partial_message(active.line_message_id)
        await message.edit(content=line, view=None)
