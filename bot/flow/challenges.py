"""Accepting a challenge in Discord: the match between members starts in a thread of its own.

When the opponent presses Accept the bot starts a public thread from the challenge message, the
match is played there and the message becomes one line in the channel that links the thread
(bot/flow/threads.py); when no thread can be had the match is played in the channel, and the
other challenges waiting there lapse, as the channel is now busy with a game.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.flow.posts import NO_PINGS, pinging
from bot.flow.threads import (
    THREAD_ARCHIVE_MINUTES,
    accepted_line,
    close_unused_thread,
    edit_reopening,
    match_line,
    member_threads_here,
    thread_name,
    thread_not_opened,
    thread_refusal,
)
from bot.i18n import Language, _
from bot.names import account_name, mention, player_name
from bot.services.domain import ActiveGame, Challenge, ChallengeStatus, GuildSettings
from bot.services.errors import (
    ChallengeNotFound,
    ChannelBusy,
    GameError,
    accepted_already,
)
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.challenge import expired_text
from bot.views.common import pressed_on, thread_of, update_message, within_deadline

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

CANNOT_REPLY_WITHOUT_HISTORY = 160002
"""Discord's error code for a reply where the bot may not read the message history."""

THREAD_ALREADY_MADE = 160004
"""Discord's error code for "A thread has already been created for this message"."""


class _Presses:
    """The presses of Accept on one challenge being handled: one at a time, in turn."""

    def __init__(self) -> None:
        self.turn = asyncio.Lock()
        self.count = 0
        """How many hold or wait for the turn (the last one forgets the challenge)."""


def busy_for_accept(interaction: discord.Interaction[Any]) -> ChannelBusy:
    """The refusal of a press of Accept on a challenge whose channel (or thread) a game took
    since it was posted, the match being played there, not in a thread of its own: the press
    lapsed the challenge, as the game's start does (not the /challenge wording, "start yours
    elsewhere")."""
    if isinstance(interaction.channel, discord.Thread):
        return ChannelBusy(
            _("A game is already being played in this thread, so this challenge lapsed.")
        )
    return ChannelBusy(
        _("A game is already being played in this channel, so this challenge lapsed.")
    )


POSTING_AT_MOST = timedelta(hours=1)
"""Longer than a challenge's post can be under way: one stored before and still without its
message was cut off (its channel's recent messages tell whether it went out), so this process
forgets having made it — the note of each challenge made was kept for the process's life."""


class ChallengeFlow:
    """What the bot does and posts when a member accepts a challenge."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow
        self.shown: dict[int, datetime] = {}
        """Messages of challenges and takeback requests Discord showed, by id, and when
        (:func:`bot.flow.new_challenges.message_deleted`)."""
        self.accepting: dict[int, _Presses] = {}
        """Challenges presses of Accept are starting, by id: one press at a time."""
        self.made_here: dict[int, datetime] = {}
        """The challenges this process stored in the last :data:`POSTING_AT_MOST`, and when
        (its own post of one still noted as none is under way, not cut off by a restart), each
        noted before its row is committed (bot/flow/new_challenges.py)."""

    def made(self, challenge_id: int, now: datetime) -> None:
        """Note that this process stored ``challenge_id`` at ``now`` (its post is under way);
        forget those made more than :data:`POSTING_AT_MOST` ago."""
        for old in [made for made, at in self.made_here.items() if now - at >= POSTING_AT_MOST]:
            del self.made_here[old]
        self.made_here[challenge_id] = now

    async def accept(self, interaction: discord.Interaction[Any], challenge: Challenge) -> None:
        """The opponent pressed Accept: open the game's thread (or fall back), start the match.

        The thread is started from the challenge message, which becomes one line linking it.
        When no thread can be had (threads off, already in a thread, permissions, an HTTP
        error, the thread a member started from the message locked) the game is played in the
        channel, and the accept message says why.

        Presses of Accept on one challenge are handled one at a time, each to its end (the
        presses on a challenge's message all reach the process running its server's shard):
        a press while an earlier one is starting the match waits for its outcome, then is
        refused as accepted already (its own double click) or as taken, or, when the earlier
        press could not start it (a busy database), starts it itself.
        """
        services = self.flow.bot.services
        lang = await self.flow.server_language(challenge.guild_id)
        opponent = interaction.user.id  # check_accept made the presser the challenge's opponent

        async def open_match() -> tuple[ActiveGame, discord.Thread | None, str | None]:
            settings = await services.settings.get(challenge.guild_id)
            why_not = thread_refusal(interaction, settings, lang)
            thread: discord.Thread | None = None
            if why_not is None and interaction.message is not None:
                try:
                    thread, why_not = await self._open_thread(interaction.message, challenge, lang)
                except ChallengeNotFound:
                    # The message has a thread already. An earlier press made it: it took the
                    # challenge (the press is refused as taken, or as accepted already if it
                    # was theirs), or it could not start the match there (the thread is taken
                    # again). Or a member started it: it is taken for the game, unless a
                    # moderator locked it (the game is played in the channel).
                    thread, why_not = await self._left_over_thread(
                        interaction.message, challenge, lang
                    )
                    if thread is None and why_not is None:
                        raise
            try:
                active = await services.challenges.accept(
                    challenge.challenge_id,
                    opponent,
                    thread_id=None if thread is None else thread.id,
                    thread_of=thread_of(interaction),
                    threads_here=member_threads_here(interaction),
                    account_name=account_name(interaction.user, interaction.client.user),
                )
                self.flow.outbox.starting(active)  # its first board is mine to post
            except ChannelBusy:
                raise await self._lapse_on_busy(interaction, challenge) from None
            except Exception as error:
                if thread is not None:  # withdrawn or expired while the thread was made
                    reason = lang.render(error.text) if isinstance(error, GameError) else None
                    await close_unused_thread(thread, reason)
                raise
            return active, thread, why_not

        async def in_turn() -> tuple[ActiveGame, discord.Thread | None, str | None]:
            """:func:`open_match` once the presses of Accept before this one are answered:
            a second press (a double click, or another member's on a challenge open to
            anyone) is told what the first one did, not what it might still do."""
            presses = self.accepting.setdefault(challenge.challenge_id, _Presses())
            presses.count += 1
            try:
                async with presses.turn:
                    return await open_match()
            finally:
                presses.count -= 1
                if presses.count == 0:
                    del self.accepting[challenge.challenge_id]

        async def unanswered(opened: tuple[ActiveGame, discord.Thread | None, str | None]) -> None:
            """Stored, but the press cannot be answered (its deferral failed): the match's
            first board is the outbox's, which shows the challenge accepted as it posts it."""
            self.flow.outbox.started(opened[0])

        # Waiting for an earlier press, or a slow write, is deferred in time.
        active, thread, why_not = await within_deadline(
            interaction, in_turn(), thinking=False, unanswered=unanswered
        )
        try:
            await self._begin(interaction, challenge, opponent, active, thread, why_not, lang)
        finally:
            # Its first board is the outbox's if I failed before posting it.
            self.flow.outbox.started(active)

    async def _begin(
        self,
        interaction: discord.Interaction[Any],
        challenge: Challenge,
        opponent: int,
        active: ActiveGame,
        thread: discord.Thread | None,
        why_not: str | None,
        lang: Language,
    ) -> None:
        """Show the accepted challenge as such (a line linking the game's thread, or who
        attacks and defends), then begin its match (:meth:`accept`)."""
        bot = self.flow.bot
        names = await bot.names_told_apart(  # the match is stored: told it is on
            await bot.display_names(
                challenge.guild_id, challenge.challenger_id, opponent, or_remembered=True
            ),
            or_as_shown=True,
        )
        if thread is not None:
            await update_message(
                interaction, match_line(challenge, names, thread.id, lang), attachments=[]
            )
            await self.flow.begin_match(active)
            return
        accepted = accepted_line(
            names.get(opponent), active.attacker_id, active.defender_id, lang, names
        )
        await update_message(
            interaction, accepted + (f"\n{why_not}" if why_not else ""), attachments=[]
        )
        await self.flow.begin_match(active, interaction=interaction)

    async def _lapse_on_busy(
        self, interaction: discord.Interaction[Any], challenge: Challenge
    ) -> GameError:
        """The refusal of a press of Accept on ``challenge`` that found its channel busy: a
        game started there whose start has not lapsed the challenges waiting there yet (it was
        stored a moment ago, or the bot stopped before). The press lapses them now, as that
        start would, and their messages say so: its challenger reads it there, pinged by
        nobody, and the refusal is true however the start goes on. If ``challenge`` was closed
        otherwise meanwhile, it is no longer open."""
        services = self.flow.bot.services
        lapsed = await services.challenges.close_others_in_channel(challenge.channel_id)
        for closed in lapsed:
            await self._mark_lapsed(closed)
        if all(closed.challenge_id != challenge.challenge_id for closed in lapsed):
            return ChallengeNotFound()
        return busy_for_accept(interaction)

    async def lapse_waiting(self, channel_id: int) -> None:
        """A match started in ``channel_id`` (an accepted challenge, a game against the
        computer, a rematch): the challenges waiting there lapse, as the channel is now busy,
        and their messages say why. A storage error is logged: they stay open, and an Accept
        on one lapses them (:meth:`_lapse_on_busy`)."""
        try:
            lapsed = await self.flow.bot.services.challenges.close_others_in_channel(channel_id)
        except StorageError as error:
            _log.warning("Could not lapse the challenges waiting in %s: %s", channel_id, error)
            return
        for challenge in lapsed:
            await self._mark_lapsed(challenge)

    async def check_challenger_here(
        self,
        interaction: discord.Interaction[Any],
        challenge: Challenge,
        challenger: discord.Member,
    ) -> None:
        """Refuse the Accept pressed (``interaction``) on ``challenge`` if its ``challenger``
        (as Discord gave them now) can no longer see the channel (a role taken since): they
        could not play it. Read from the cached channel and roles, as a rematch checks its
        opponent; unknown counts as able. Writing is not asked: /move and the buttons need no
        Send Messages (a channel may deny it to keep chat out), as their /challenge did not."""
        channel = interaction.channel
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):  # a voice chat too
            return
        try:
            permissions = channel.permissions_for(challenger)
        except discord.ClientException:  # a thread whose parent is not cached
            return
        if not permissions.view_channel:
            raise GameError(
                _(
                    "{player} can no longer see this channel, so they could not play: this "
                    "challenge cannot be accepted here.",
                    player=f"<@{challenge.challenger_id}>",
                )
            )

    async def _left_over_thread(
        self, message: discord.Message, challenge: Challenge, lang: Language
    ) -> tuple[discord.Thread | None, str | None]:
        """The thread started from the challenge's ``message`` before this press of Accept, while
        the challenge is still open (presses are handled one at a time): one an earlier press
        started and left unused when its match could not be saved (a busy database: "try
        again"), or one a member started (Discord allows one thread per message). It is taken
        for the game, named for its players (on a challenge open to anyone, the earlier press
        may have been someone else's) and open: (thread, None). A thread a moderator locked
        is not: nobody could play there, so the game is played in the channel, and the second
        value says why (None, why). (None, None) if the challenge was taken (its thread is the
        game's) or Discord cannot give the thread."""
        try:
            stored = await self.flow.bot.services.challenges.get(challenge.challenge_id)
            if stored.status is not ChallengeStatus.OPEN:
                return None, None
            # A thread started from a message has the message's id.
            found = await self.flow.bot.fetch_channel(message.id)
        except (StorageError, GameError, discord.HTTPException, *UNREACHABLE) as error:
            _log.info("Challenge %s: no thread to take again: %r", challenge.challenge_id, error)
            return None, None
        if not isinstance(found, discord.Thread):
            return None, None
        if found.locked:
            _log.info(
                "Challenge %s: its message's thread %s is locked, the game is played in %s",
                challenge.challenge_id,
                found.id,
                message.channel.id,
            )
            return None, lang._(
                "The thread started from this challenge is locked, so the game is played in "
                "this channel."
            )
        name = await self._thread_name(challenge, lang)
        if found.name != name or found.archived:
            try:
                found = await found.edit(name=name, archived=False)
            except (discord.HTTPException, *UNREACHABLE) as error:  # its first post opens it
                _log.info("Could not rename or open thread %s again: %s", found.id, error)
        return found, None

    async def accepted_by_them(self, challenge_id: int, user_id: int) -> GameError | None:
        """The refusal of a press of Accept on a challenge ``user_id`` took with an earlier
        press (a double click): where its game is; None if they did not take it."""
        services = self.flow.bot.services
        try:
            match_id = await services.challenges.accepted_match(challenge_id, user_id)
            if match_id is None:
                return None
            terms = await services.records.match_terms(match_id)
        except (StorageError, GameError) as error:  # the refusal found is told as it was
            _log.info("Could not tell whether challenge %s was accepted: %r", challenge_id, error)
            return None
        return accepted_already(terms.channel_id)

    async def decline(self, interaction: discord.Interaction[Any], challenge_id: int) -> None:
        """The opponent pressed Decline: the challenge says so (an edit, which pings nobody),
        then a reply to it tells the challenger, pinging them alone. The decline is stored: a
        read of the server's language the database fails here leaves both told in the
        presser's language, not an apology asking them to decline again."""
        user = interaction.user.id
        # A slow write (another program holding the database) is deferred in time.
        challenge = await within_deadline(
            interaction,
            self.flow.bot.services.challenges.decline(
                challenge_id, user, pressed_on=pressed_on(interaction)
            ),
            thinking=False,
        )
        lang = await self.flow.answer_language(  # a read: deferred in time, as the write is
            interaction, challenge.guild_id, f"Challenge {challenge_id} declined", thinking=False
        )
        await update_message(
            interaction, lang._("{player} declined the challenge.", player=f"<@{user}>")
        )
        await self._tell_declined(challenge, user, lang)

    async def _tell_declined(self, challenge: Challenge, opponent: int, lang: Language) -> None:
        """Reply to the declined ``challenge``'s message so that its challenger hears of it;
        what stops the reply is logged (the challenge is declined all the same)."""
        if challenge.message_id is None:
            return
        names = await self.flow.bot.display_names(challenge.guild_id, opponent)
        channel = self.flow.bot.get_partial_messageable(
            challenge.channel_id, guild_id=challenge.guild_id
        )
        text = lang._(
            "{challenger}, {player} declined your challenge.",
            challenger=f"<@{challenge.challenger_id}>",
            player=player_name(names.get(opponent), lang),
        )
        reply = channel.get_partial_message(challenge.message_id).to_reference(
            fail_if_not_exists=False
        )
        try:
            try:
                await channel.send(
                    text, reference=reply, allowed_mentions=pinging([challenge.challenger_id])
                )
            except discord.Forbidden as refused:
                if refused.code != CANNOT_REPLY_WITHOUT_HISTORY:
                    raise
                # Without Read Message History no reply may be sent: the same words, unlinked.
                await channel.send(text, allowed_mentions=pinging([challenge.challenger_id]))
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning(
                "Could not tell the challenger of challenge %s it was declined: %s",
                challenge.challenge_id,
                error,
            )

    async def _open_thread(
        self, message: discord.Message, challenge: Challenge, lang: Language
    ) -> tuple[discord.Thread | None, str | None]:
        """Start the game's thread from the challenge message: (thread, None) or (None, why).
        A long rate limit is a refusal: the request was not made (a lost connection may have
        made the thread, and raises: a press again finds it)."""
        name = await self._thread_name(challenge, lang)
        try:
            thread = await message.create_thread(
                name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except (discord.HTTPException, discord.RateLimited) as error:
            if isinstance(error, discord.HTTPException) and error.code == THREAD_ALREADY_MADE:
                # Another press of Accept (someone else's, on a challenge open to anyone) made
                # the message's thread and is starting the match: this one is too late. Or a
                # member started a thread from it (:meth:`_left_over_thread` tells which).
                raise ChallengeNotFound() from None
            _log.warning(
                "Could not open a thread for challenge %s: %s", challenge.challenge_id, error
            )
            return None, thread_not_opened(lang)
        return thread, None

    async def _thread_name(self, challenge: Challenge, lang: Language) -> str:
        """The name of the thread of the game ``challenge`` starts (its opponent known)."""
        opponent = challenge.opponent_id
        assert opponent is not None, "the challenge being accepted has its opponent"
        players = (challenge.challenger_id, opponent)
        names = await self.flow.bot.display_names(challenge.guild_id, *players)
        # Two players shown alike are told apart by their usernames, as in their messages;
        # shown alike when those cannot be read, rather than no thread for the game.
        usernames = (await self.flow.bot.names_told_apart(names, or_as_shown=True)).usernames
        someone = lang._("a player")
        challenger, other = (names.get(player, someone) for player in players)
        tags = (usernames.get(challenge.challenger_id), usernames.get(opponent))
        return thread_name(challenger, other, challenge.ruleset, lang, tags)

    async def show_expired(self, challenge: Challenge) -> None:
        """Edit the message of ``challenge``, closed as expired, to say so, without buttons:
        through the channel, as the expiry sweep does, for no interaction answers it (or the
        press that found it expired could not be answered). Raises discord.HTTPException."""
        if challenge.message_id is None:
            return
        message = self.flow.bot.get_partial_messageable(challenge.channel_id).get_partial_message(
            challenge.message_id
        )
        lang = await self.flow.server_language(challenge.guild_id)
        # Two members shown alike are told apart by the names and usernames held in memory.
        names = self.flow.bot.names_in_hand(
            challenge.guild_id, challenge.challenger_id, challenge.opponent_id
        )
        content = expired_text(challenge, lang, names)
        await edit_reopening(self.flow.bot, message, content=content, view=None)

    async def show_expired_after_press(self, challenge_id: int) -> None:
        """Show challenge ``challenge_id``, closed as expired, so on its message through the
        channel (the press on it could not be answered); what stops that is logged, and the
        press's own error is the one to report."""
        try:
            await self.show_expired(await self.flow.bot.services.challenges.get(challenge_id))
        except (discord.HTTPException, StorageError, *UNREACHABLE) as error:
            _log.warning("Could not mark challenge %s expired: %s", challenge_id, error)

    async def lapse_disallowed(self, guild: discord.Guild) -> None:
        """The server's settings changed where games are allowed: its open challenges in a
        channel the settings as stored no longer allow lapse, and their messages say why (what
        stops an edit is logged). A challenge in a channel I do not know stays open."""

        def allowed(channel_id: int, settings: GuildSettings) -> bool | None:
            channel = guild.get_channel_or_thread(channel_id)
            if channel is None:
                return None
            parent = channel.parent_id if isinstance(channel, discord.Thread) else None
            return settings.allows(channel_id, parent)

        try:
            lapsed = await self.flow.bot.services.challenges.lapse_disallowed(guild.id, allowed)
        except StorageError as error:  # they expire as ever, and say so
            _log.warning("Could not lapse the challenges server %s disallowed: %s", guild.id, error)
            return
        for challenge in lapsed:
            await self._mark_lapsed(challenge, disallowed=True)

    async def lapse_busy(self, guild_id: int) -> None:
        """The server turned threads off: its open challenges in a channel busy with a game
        played there lapse, and their messages say so (what stops an edit is logged)."""
        try:
            lapsed = await self.flow.bot.services.challenges.lapse_busy(guild_id)
        except StorageError as error:  # a press on one lapses it, or it expires as ever
            _log.warning(
                "Could not lapse the challenges of busy channels in %s: %s", guild_id, error
            )
            return
        for challenge in lapsed:
            await self._mark_lapsed(challenge)

    async def _mark_lapsed(self, challenge: Challenge, *, disallowed: bool = False) -> None:
        """Edit a challenge made moot by a game in its channel (``disallowed``: by the
        server's settings, which no longer allow games there): no buttons, and why. It is
        stored lapsed: one whose language the database fails to read keeps its buttons (a
        press shows it is no longer open), logged, and whoever made it lapse is told no error."""
        if challenge.message_id is None:
            return
        message = self.flow.bot.get_partial_messageable(challenge.channel_id).get_partial_message(
            challenge.message_id
        )
        try:
            lang = await self.flow.server_language(challenge.guild_id)
        except StorageError as error:
            _log.warning("Challenge %s lapsed unshown: %r", challenge.challenge_id, error)
            return
        # Two players shown alike are told apart by their usernames (bare, those unread).
        bot, names, opponent = self.flow.bot, None, ""
        if challenge.opponent_id is not None:
            names = await bot.names_told_apart(
                await bot.display_names(
                    challenge.guild_id,
                    challenge.challenger_id,
                    challenge.opponent_id,
                    or_remembered=True,
                ),
                or_as_shown=True,
            )
            opponent = mention(challenge.opponent_id, names)
        challenger = mention(challenge.challenger_id, names)
        if disallowed and challenge.opponent_id is None:
            content = lang._(
                "{challenger}'s open challenge lapsed: games are no longer allowed in this "
                "channel.",
                challenger=challenger,
            )
        elif disallowed:
            content = lang._(
                "{challenger}'s challenge to {opponent} lapsed: games are no longer allowed in "
                "this channel.",
                challenger=challenger,
                opponent=opponent,
            )
        elif challenge.opponent_id is None:
            content = lang._(
                "{challenger}'s open challenge lapsed: this channel is now busy with a game.",
                challenger=challenger,
            )
        else:
            content = lang._(
                "{challenger}'s challenge to {opponent} lapsed: this channel is now busy with a "
                "game.",
                challenger=challenger,
                opponent=opponent,
            )
        try:
            await edit_reopening(
                self.flow.bot, message, content=content, view=None, allowed_mentions=NO_PINGS
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.warning("Could not mark challenge %s lapsed: %r", challenge.challenge_id, error)
