"""Takebacks in Discord: the request with Accept / Decline, the answer, and lapsed requests."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.alike_names import NamesToldApart
from bot.answers_made import Answer, made_anyway
from bot.flow.lost_answers import post_apart_under_nonce
from bot.flow.new_challenges import message_deleted
from bot.flow.no_game_here import no_game_here
from bot.flow.posts import NO_PINGS, board_post, pictures_or_text, pinging
from bot.flow.stale_boards import moved_on
from bot.flow.threads import edit_reopening
from bot.i18n import Language, _
from bot.i18n.audience import reader
from bot.locked_refusals import locked_refusal, refused_as_locked
from bot.names import mention, player_name, shown_name
from bot.services.domain import ActiveGame, Takeback, TakebackStatus
from bot.services.errors import (
    CannotTakeBack,
    NoGameHere,
    TakebackLapsed,
    TakebackWaiting,
    TakenBackBoardOwed,
    TimeRanOut,
)
from bot.services.held import NOTHING, Held
from bot.storage.announcements import OwedAnswer
from bot.storage.errors import StorageError
from bot.thread_locks import refused_for_lock
from bot.unreachable import UNREACHABLE, not_taken_now
from bot.views.common import (
    answer,
    deferred_privately,
    pressed_on,
    update_message,
    within_deadline,
)
from bot.views.takeback import takeback_answer_view

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


class TakebackFlow:
    """What the bot does and posts when a player asks to take a move back."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self._unnoted: dict[int, int] = {}
        """Requests shown whose message the database failed to note, by takeback id: their
        message's id, noted at the timers' next check (:meth:`_note_messages`) and, until the
        request's lapse is shown, kept here to edit it (:meth:`_show_lapsed`)."""
        self._lapses_unshown: dict[int, Takeback] = {}
        """Requests lapsed whose message could not be edited to say so and whose edit the
        outbox could not be told either (the database failing both), by takeback id: shown at
        the timers' next check (:meth:`lapse`), else they would keep their buttons for good."""

    async def ask(
        self, interaction: discord.Interaction[Any], *, board: tuple[int, int] | None = None
    ) -> None:
        """/takeback or the Takeback button (under a board of ``board``, its ply and the moves
        taken back before it, if it says): ask the opponent (the computer agrees at once)."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        user = interaction.user.id
        services = self.flow.bot.services
        # Deferred privately when slow: the request may still be refused (one sentence for
        # the asker alone); a request made is then posted for everyone.
        try:
            asked = await within_deadline(
                interaction, self._ask(channel_id, user, board), ephemeral=True
            )
        except NoGameHere as none:
            if interaction.type is discord.InteractionType.component:
                raise  # a button's game is over: its own sentence says so
            raise await no_game_here(self.flow.bot, interaction, none) from None
        except TimeRanOut:
            held = self.flow.bot.timers.holds.held_player(channel_id)
            if held is None or held == user:
                raise
            # The opponent's deadline passed while a moderator shut them out: their clock is
            # held (bot/player_holds.py), so the asker has not won on time.
            raise CannotTakeBack(
                _(
                    "{player} cannot play here now (their clock is held), so they could not "
                    "answer a takeback request: ask once they can.",
                    player=f"<@{held}>",
                )
            ) from None
        assert interaction.guild_id is not None
        # A read before the answer: deferred privately in time when slow, as the request is.
        lang = await self.flow.answer_language(
            interaction,
            interaction.guild_id,
            f"Takeback in channel {channel_id} asked",
            ephemeral=True,
        )
        if isinstance(asked, ActiveGame):  # against the computer: both moves are undone
            with self.flow.outbox.posting() as claim:
                claim(asked.set_id, asked.ply)  # its board, owed, is mine to post now
                try:
                    await self._answer_undone(interaction, asked, lang)
                except discord.Forbidden as refused:
                    if not refused_as_locked(interaction, refused):
                        raise
                    raise await locked_refusal(
                        interaction, on_discords_word=True, taken_back=True
                    ) from refused
            return
        # The opponent and the move as the request was stored: no read that could fail now.
        # Two players shown alike are told apart by the names and usernames held in memory.
        assert asked.asked_of is not None
        assert asked.move is not None
        opponent = asked.asked_of
        names = self.flow.bot.names_in_hand(interaction.guild_id, opponent, user)
        until = int(asked.expires_at.timestamp())
        request: dict[str, Any] = {
            "content": lang._(
                "{opponent}, {player} asks to take back their last move ({move}). Accept "
                "or decline: the request lapses {deadline} or when either of you moves.",
                opponent=mention(opponent, names),
                player=mention(user, names),
                move=asked.move,
                deadline=f"<t:{until}:R>",
            ),
            "view": takeback_answer_view(asked.takeback_id, lang),
            # One ping a move: asked again after a lapse, the request names them unpinged.
            "allowed_mentions": NO_PINGS if asked.asked_before else pinging([opponent]),
        }
        # Not posted apart, the request is an answer Discord can be asked about after a failure.
        answering = None if deferred_privately(interaction) else Answer.next_of(interaction)
        message_id: int | None
        try:
            if answering is None:
                message_id = await post_apart_under_nonce(
                    interaction, f"Takeback {asked.takeback_id}'s request", **request
                )
            else:
                message_id = await answer(interaction, **request)
        except (discord.HTTPException, *UNREACHABLE) as failed:
            # Made though its answer was lost (a 5xx, no answer, found made already): the
            # request is shown, and stands for its Accept. Posted apart, its nonce asked
            # about it already (a second try returns the message Discord made).
            made = None if answering is None else await made_anyway(interaction, answering, failed)
            if made is None:
                # Refused (a thread locked, a permission missing) or not taken (Discord down):
                # nobody was asked, so nothing stays asked — no request only its lapse would
                # clear, blocking the next one for ten minutes.
                await self._withdraw(asked)
                raise  # its refusal says why (bot/errors.py), or the apology asks to try again
            _log.info("Takeback %s: its request was made, only its answer lost", asked.takeback_id)
            message_id = made
        if message_id is None:
            return
        try:
            await services.takebacks.set_message(asked.takeback_id, message_id)
        except StorageError as error:  # asked and shown: its buttons answer it all the same
            _log.warning("Takeback %s shown, its message unstored: %r", asked.takeback_id, error)
            # Its lapse must still take its buttons off: noted later, known here meanwhile.
            self._unnoted[asked.takeback_id] = message_id

    async def _note_messages(self) -> None:
        """Note the messages of the requests shown whose note the database failed (a restart
        forgets what is only in memory); one it fails again stays to be noted next time."""
        for takeback_id, message_id in list(self._unnoted.items()):
            try:
                await self.flow.bot.services.takebacks.set_message(takeback_id, message_id)
            except StorageError as error:
                _log.warning("Takeback %s's message still unnoted: %r", takeback_id, error)
                return  # the database is failing: the others wait for the next check
            _log.info("Takeback %s's message %s noted late", takeback_id, message_id)
            if self._unnoted.get(takeback_id) == message_id:
                del self._unnoted[takeback_id]

    async def _withdraw(self, asked: Takeback) -> None:
        """Forget the request ``asked``, whose message Discord did not post (or, posted apart
        or asked about in vain, cannot say it did). If the database cannot, the request stands
        unseen until it lapses (logged)."""
        try:
            await self.flow.bot.services.takebacks.withdraw(asked.takeback_id)
        except StorageError as error:
            _log.warning("Takeback %s unposted, not withdrawn: %r", asked.takeback_id, error)

    async def _ask(
        self, channel_id: int, user: int, board: tuple[int, int] | None
    ) -> Takeback | ActiveGame:
        """Ask as the service does; a request still open that nobody can answer any more
        gives way: one the game has moved past (the timers' next check would lapse it) is
        lapsed now, and one whose message a moderator deleted (Discord does not tell me of
        it: I ask) lapses, so the player is not refused for ten minutes over a request
        nobody sees."""
        takebacks = self.flow.bot.services.takebacks
        try:
            return await takebacks.ask(channel_id, user, board=board)
        except TakebackWaiting as waiting:
            earlier = waiting.takeback
            # Its message as stored, else as shown though the database failed to note it.
            shown = earlier.message_id or self._unnoted.get(earlier.takeback_id)
            if waiting.moot:
                lapsed = await takebacks.lapse_moot(earlier.takeback_id)
                if lapsed is not None:
                    await self._show_lapsed(lapsed)
            elif shown is not None and await message_deleted(self.flow.bot, channel_id, shown):
                await takebacks.message_gone(earlier.takeback_id, shown)
                self._unnoted.pop(earlier.takeback_id, None)  # gone: nothing edits it again
                _log.info(
                    "Takeback %s lapsed: its message %s was deleted", earlier.takeback_id, shown
                )
            else:
                raise
        return await takebacks.ask(channel_id, user, board=board)

    async def answer(
        self, interaction: discord.Interaction[Any], takeback_id: int, *, accept: bool
    ) -> None:
        """The opponent accepts (the move is undone and a new board posted) or declines."""
        user = interaction.user.id
        answered = self.flow.bot.services.takebacks.answer(
            takeback_id, user, accept=accept, pressed_on=pressed_on(interaction)
        )
        with self.flow.outbox.posting() as claim:
            try:
                # A slow write (another program holding the database) is deferred in time; if
                # even the deferral fails, an accepted takeback's board is posted in the
                # channel.
                active = await within_deadline(
                    interaction,
                    answered,
                    thinking=False,
                    unanswered=self._post_taken_back if accept else None,
                )
            except TakebackLapsed as lapsed:  # stored as lapsed now: the request says so itself
                assert interaction.guild_id is not None
                lang = await self.flow.answer_language(
                    interaction,
                    interaction.guild_id,
                    f"Takeback {takeback_id} lapsed",
                    thinking=False,
                )
                try:
                    await update_message(interaction, lapsed_text(lapsed.takeback, lang))
                except discord.Forbidden as refused:
                    if not refused_as_locked(interaction, refused):
                        raise
                    # Lapsed by this press, not the timers: their edit will not come, so the
                    # request's message, which still offers Accept and Decline, is owed.
                    await self._answer_owed(takeback_id)
                    raise await locked_refusal(
                        interaction, on_discords_word=True, lapsed=True
                    ) from refused
                return
            if accept:
                claim(active.set_id, active.ply)  # its board, owed, is mine to post now
            try:
                await self._answered(interaction, active, accept=accept)
            except discord.Forbidden as refused:
                if not refused_as_locked(interaction, refused):
                    raise
                # Stored: accepted, the board after it, owed, is posted once the thread is
                # unlocked; declined, the game goes on as it was. Either way the request's
                # message, which still offers Accept and Decline, is edited then to show it.
                await self._answer_owed(takeback_id)
                raise await locked_refusal(
                    interaction, on_discords_word=True, taken_back=accept, declined=not accept
                ) from refused
            except (discord.HTTPException, *UNREACHABLE) as failed:
                if not not_taken_now(failed):
                    raise
                # Stored, but Discord could not take the request's edit just now (a 5xx,
                # unreachable, a long 429): the outbox edits it once it can, as a lapse's;
                # accepted, the board after it, owed, is the outbox's too.
                await self._answer_owed(takeback_id)
                raise

    async def _lapse_owed(self, lapsed: Takeback) -> None:
        """The message of the request ``lapsed`` could not be edited to say so: the outbox
        owes that edit; if the database cannot take it either, I try again at the timers'
        next check (:meth:`lapse`)."""
        if not await self._answer_owed(lapsed.takeback_id):
            self._lapses_unshown[lapsed.takeback_id] = lapsed

    async def _answer_owed(self, takeback_id: int) -> bool:
        """The request ``takeback_id``'s message could not be edited to show how it ended
        (Discord refused it as locked; a lapse's also when Discord could not take it just
        now): the outbox owes that edit (bot/flow/outbox.py ``Outbox.show_answers``). If the
        database cannot take it, the message keeps its buttons, which then say the request was
        already answered. The outbox edits the message the database notes: one whose note
        failed is noted first, if it can be. Whether the outbox owes it."""
        await self._note_messages()
        try:
            await self.flow.bot.services.announcements.answer_owed(takeback_id)
        except StorageError as error:
            _log.warning("Takeback %s's answer is not owed: %s", takeback_id, error)
            return False
        return True

    async def _answered(
        self, interaction: discord.Interaction[Any], active: ActiveGame, *, accept: bool
    ) -> None:
        """Say in the request's message how it was answered and, accepted, post the board
        after the takeback (``active``). The answer is stored: a read the database fails here
        leaves the request told in the presser's language, naming them as Discord shows them,
        not an apology asking them to answer again."""

        async def read() -> tuple[Language, dict[int, str]]:
            lang = await self.flow.server_language(active.guild_id)
            return lang, await self.flow.names_for(active, lang)

        try:  # reads before the request's message is edited: deferred in time when slow
            lang, names = await within_deadline(interaction, read(), thinking=False)
            who = player_name(names.get(interaction.user.id), lang)
        except StorageError as error:
            _log.warning("Takeback in game %s answered, names unread: %r", active.set_id, error)
            lang = reader(interaction)
            who = player_name(shown_name(interaction.user, interaction.client.user), lang)
        if not accept:
            await update_message(
                interaction,
                lang._("{player} declined the takeback: the game goes on as it was.", player=who),
            )
            return
        await update_message(interaction, lang._("{player} accepted the takeback.", player=who))
        await self._post_taken_back(active, interaction)

    async def _answer_undone(
        self, interaction: discord.Interaction[Any], active: ActiveGame, lang: Language
    ) -> None:
        """Answer a takeback against the computer with the board after it (``active``). The
        takeback is stored: a read of the players' names the database fails leaves the board
        owed to the outbox, and the player told so, not that it could not be saved."""
        try:
            names = await within_deadline(
                interaction, self.flow.names_for(active, lang), ephemeral=True
            )
        except StorageError as error:
            _log.warning("Game %s: the board after its takeback is owed: %r", active.set_id, error)
            raise TakenBackBoardOwed() from error
        told = taken_back_line(active, names, lang)
        post = await board_post(active, names, lang, headline=told)
        content, files = pictures_or_text(interaction, post.content, [post.file()], lang)
        stale = await self._moved_on(active)
        message_id = await answer(
            interaction,
            told if stale else content,
            files=[] if stale else files,
            view=None if stale else post.view,
            allowed_mentions=NO_PINGS,
            nonce=await self.flow.owed_nonce(active, interaction),
        )
        if not stale:
            await self.flow.live_boards.board_out(active, message_id)

    async def _post_taken_back(
        self, active: ActiveGame, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """Post the board after an accepted takeback (as ``interaction``'s answer, if given)
        and mark it out: the outbox need not post it. One the database fails to make (a read
        of the server's language, of the players' names) is the outbox's, logged: the takeback
        is stored."""
        try:
            lang = await self.flow.server_language(active.guild_id)
            names = await self.flow.names_for(active, lang)
        except StorageError as error:
            _log.warning("Game %s: the board after its takeback is owed: %r", active.set_id, error)
            return
        told = taken_back_line(active, names, lang)
        post = await board_post(active, names, lang, headline=told)
        stale = await self._moved_on(active)
        message_id = await self.flow.post_in_channel(
            active.channel_id,
            told if stale else post.content,
            lang=lang,
            interaction=interaction,
            files=[] if stale else [post.file()],
            view=None if stale else post.view,
            pings=NO_PINGS if stale else post.allowed_mentions(),
            nonce=await self.flow.owed_nonce(active, interaction),
        )
        if not stale:
            await self.flow.live_boards.board_out(active, message_id)

    async def _moved_on(self, active: ActiveGame) -> bool:
        """Whether the set moved on from ``active`` (the board after a takeback) while its
        board was drawn (an admin's /abort, a resignation, time: :func:`moved_on`): its final
        board is out, or owed, and a board after it asking for a move would read as if the set
        went on. The takeback stands, and is told in one line, pinging nobody, without
        buttons."""
        if not await moved_on(self.flow.bot.services.games, active):
            return False
        _log.info("Game %s moved on while its takeback's board was drawn: told", active.set_id)
        return True

    async def lapse(self, held: Held = NOTHING) -> None:
        """Edit the requests that lapsed (a move was played, or ten minutes passed where
        they could be answered: not ``held``)."""
        await self._note_messages()
        for lapsed in list(self._lapses_unshown.values()):
            await self._show_lapsed(lapsed)
        for lapsed in await self.flow.bot.services.takebacks.lapse_stale(held=held):
            await self._show_lapsed(lapsed)

    async def _show_lapsed(self, lapsed: Takeback) -> None:
        """Edit the message of the request ``lapsed`` to say it lapsed, without its buttons
        (the one stored, else the one shown whose note the database failed); one neither
        edited nor owed to the outbox is tried again at the next check."""
        self._lapses_unshown.pop(lapsed.takeback_id, None)
        message_id = lapsed.message_id or self._unnoted.get(lapsed.takeback_id)
        if message_id is None or lapsed.channel_id is None or lapsed.guild_id is None:
            return
        message = self.flow.bot.get_partial_messageable(lapsed.channel_id).get_partial_message(
            message_id
        )
        # The set's server's language: discord.py forgets a thread Discord archived.
        try:
            lang = await self.flow.server_language(lapsed.guild_id)
        except StorageError as error:  # the outbox's check edits it; the others go on
            _log.warning("Takeback %s lapsed unshown: %r", lapsed.takeback_id, error)
            await self._lapse_owed(lapsed)
            return
        try:
            await edit_reopening(
                self.flow.bot, message, content=lapsed_text(lapsed, lang), view=None
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info("Could not mark takeback %s lapsed: %r", lapsed.takeback_id, error)
            # Locked and archived too (edit_reopening left it so), or Discord could not take
            # it just now (a 5xx, unreachable, a long 429): the outbox's checks edit it.
            if refused_for_lock(error) or not_taken_now(error):
                await self._lapse_owed(lapsed)
                return
        self._unnoted.pop(lapsed.takeback_id, None)  # shown lapsed: nothing edits it again


def taken_back_line(active: ActiveGame, names: dict[int, str], lang: Language) -> str:
    """The line above the board after a takeback, ``active`` as it left the set: the turn is
    back with the player whose move it took back (against the computer, with my reply)."""
    return taken_back_text(
        player_name(names.get(active.player_to_move), lang),
        active.ply + 1,
        against_computer=active.computer_id is not None,
        lang=lang,
    )


def taken_back_text(player: str, number: int, *, against_computer: bool, lang: Language) -> str:
    """The line telling that ``player``'s move ``number`` was taken back (escaped name), or,
    against the computer, their move and my reply."""
    if against_computer:
        return lang._("{player} took back their move and my reply.", player=player)
    return lang._("{player}'s move {number} was taken back.", player=player, number=number)


def lapsed_text(takeback: Takeback | OwedAnswer, lang: Language) -> str:
    """What a takeback request's message says once it lapsed."""
    return lang._("{player}'s takeback request lapsed.", player=f"<@{takeback.asked_by}>")


def ended_request_text(
    owed: OwedAnswer, lang: Language, names: NamesToldApart | None = None
) -> str:
    """What a takeback request's message says once it ended, shown late (the thread was
    locked when it was answered, :meth:`Outbox.show_answers`): who answered it, naming (as a
    mention) its asker, who was not there to see the answer; two players shown alike with
    their usernames where ``names`` tells them apart (:func:`mention`)."""
    asker = mention(owed.asked_by, names)
    player = "" if owed.answered_by is None else mention(owed.answered_by, names)
    match TakebackStatus(owed.status):
        case TakebackStatus.ACCEPTED:
            return lang._(
                "{player} accepted {asker}'s takeback request.", player=player, asker=asker
            )
        case TakebackStatus.DECLINED:
            return lang._(
                "{player} declined {asker}'s takeback request.", player=player, asker=asker
            )
        case _:  # lapsed (an open request is never owed)
            return lapsed_text(owed, lang)
