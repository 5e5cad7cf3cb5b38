"""Rematches in Discord: the Rematch button under a match's result asks for the same match again.

Against the computer the new match starts at once, where the last one was played; against a
member it is a new challenge in the channel the last one came from.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.flow.lost_answers import send_under_nonce
from bot.flow.new_challenges import create_unheld, forget_unshown, opponent_ping, shown_anyway
from bot.flow.posts import pinging
from bot.flow.threads import (
    may_open_threads_in,
    member_threads_here,
    member_threads_in,
    rematch_reason,
    require_thread_member,
)
from bot.i18n import Language, _, command
from bot.i18n.audience import reader
from bot.locked_refusals import locked_refusal
from bot.names import account_name
from bot.services.domain import ActiveGame, MatchTerms
from bot.services.errors import (
    ChallengeNotFound,
    ChannelBusy,
    ForeignButton,
    GameError,
    NotAPlayer,
)
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.challenge import challenge_text, challenge_view
from bot.views.common import answer, locked_by_discords_word, thread_of, within_deadline
from engine import Side, get_ruleset

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


def pressed_in_busy(refusal: ChannelBusy, channel_id: int) -> ChannelBusy:
    """``refusal`` (a game is on in ``channel_id``, where the rematch would be played) said to
    one who pressed Rematch rather than typed a command: the channel named, as the press may
    come from a thread of it, and ``/challenge`` named as the way to a match elsewhere."""
    if refusal.text == ChannelBusy.ELSEWHERE:
        return ChannelBusy(
            _(
                "A game is already being played in {channel}, so the rematch cannot be played "
                "there: {challenge_command} in another channel or in a thread starts a new match.",
                channel=f"<#{channel_id}>",
                challenge_command=command("challenge"),
            )
        )
    if refusal.text == ChannelBusy.NO_THREADS:
        return ChannelBusy(
            _(
                "A game is already being played in {channel}, so the rematch cannot be played "
                "there: {challenge_command} in another channel starts a new match.",
                channel=f"<#{channel_id}>",
                challenge_command=command("challenge"),
            )
        )
    return refusal


def answered_here(interaction: discord.Interaction[Any]) -> None:
    """Tell, as a press answered for all to see is (bot/views/common.py ``guarded``), that
    the rematch was shown where Rematch was pressed: its thread, if held, is open after all."""
    interaction.client.dispatch("component_completion", interaction)


class RematchFlow:
    """What the bot does and posts when a player of a finished match asks for a rematch."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow

    async def ask(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """The Rematch button: the same match again with set 1's sides swapped.

        Against the computer it starts at once, where the last match was played; against a
        member it is a new challenge in the channel the last one came from (which, accepted,
        opens a new thread).
        """
        # A read first: deferred when slow, without a message (the answer may be a refusal,
        # privately, or the match begun here, for all to see).
        terms = await within_deadline(
            interaction, self.flow.bot.services.records.match_terms(match_id), thinking=False
        )
        try:
            await self._ask(interaction, terms)
        finally:  # apart, so that no answer waits for it
            self.flow.bot.spawn(
                self._archive_again(interaction, terms), name=f"archive-again-{match_id}"
            )

    async def _ask(self, interaction: discord.Interaction[Any], terms: MatchTerms) -> None:
        """:meth:`ask` for the match of ``terms``."""
        services = self.flow.bot.services
        if interaction.channel_id != terms.channel_id or not terms.finished:
            # The button is under the match's result, in its channel: a forged id naming
            # another match would start it (or post its challenge) from here, and one naming
            # a match still played or aborted (which has no Rematch) would offer it.
            raise ForeignButton()
        user = interaction.user.id
        if user not in terms.player_ids:
            raise NotAPlayer(_("Only the two players of that match can ask for a rematch."))
        # The Rematch button answers privately (bot/views/rematch.py), so a press in the
        # thread of a finished match a moderator locked goes on where the offer is posted
        # elsewhere. Against the computer the rematch is played here, and a match not in a
        # thread of mine (a channel, a member's thread) is offered here: refused as locked.
        shown_here = terms.computer_id is not None or terms.parent_channel_id is None
        if shown_here and await locked_by_discords_word(interaction):
            raise await locked_refusal(interaction)
        if shown_here:  # played or offered here, as /challenge would be: not where I was removed
            await require_thread_member(interaction)
        other = terms.player2_id if user == terms.player1_id else terms.player1_id
        first_side = terms.player1_side if user == terms.player1_id else terms.player1_side.opponent
        side = first_side.opponent
        # A match played in a member's thread (not its own) is allowed by the thread's channel.
        in_thread_of = (
            thread_of(interaction)
            if terms.parent_channel_id is None and interaction.channel_id == terms.channel_id
            else None
        )
        if terms.computer_id is not None:

            async def read() -> tuple[Language, str | None]:
                await self._refuse_if_on(terms.channel_id, user)
                lang = await self.flow.server_language(terms.guild_id)
                if terms.parent_channel_id is not None:
                    return lang, None
                # No thread of its own: said, as /challenge does.
                settings = await services.settings.get(terms.guild_id)
                return lang, rematch_reason(interaction, settings, lang)

            # Reads, deferred in time when slow, as the match's own write is.
            lang, why_not = await within_deadline(interaction, read(), thinking=False)
            started = services.matches.start_computer_match(
                terms.guild_id,
                terms.channel_id,
                user,
                terms.computer_id,
                level=terms.computer_level or 3,
                ruleset=terms.ruleset,
                sets_total=terms.sets_total,
                human_side=side,
                time_per_move=terms.time_per_move,
                parent_channel_id=terms.parent_channel_id,
                line_message_id=terms.line_message_id,
                thread_of=in_thread_of,
                threads_here=member_threads_here(interaction),  # pressed where it is played
                account_name=account_name(interaction.user, interaction.client.user),
            )

            async def begin_unanswered(stored: ActiveGame) -> None:
                """Stored, but the press cannot be answered (its deferral failed): the match
                begins all the same, its first board posted apart, as /challenge's does."""
                try:
                    await self.flow.begin_match(stored)
                finally:
                    await self.flow.set_ends.show_game_on(stored)

            # A slow write (another program holding the database) is deferred in time.
            try:
                active = await within_deadline(
                    interaction, started, thinking=False, unanswered=begin_unanswered
                )
                self.flow.outbox.starting(active)  # its first board is mine to post
            except ChannelBusy as busy:
                # A second press at the same moment started it first.
                await self._refuse_if_on(terms.channel_id, user)
                raise pressed_in_busy(busy, terms.channel_id) from busy
            player, level = f"<@{user}>", active.computer_level or 3
            ruleset = lang.gettext(get_ruleset(active.ruleset).title)
            if terms.sets_total == 1 and side is Side.ATTACKERS:
                headline = lang._(
                    "Rematch: {player} plays **{ruleset}** against the computer (level {level}), "
                    "as the attackers.",
                    player=player,
                    ruleset=ruleset,
                    level=level,
                )
            elif terms.sets_total == 1:
                headline = lang._(
                    "Rematch: {player} plays **{ruleset}** against the computer (level {level}), "
                    "as the defenders.",
                    player=player,
                    ruleset=ruleset,
                    level=level,
                )
            elif side is Side.ATTACKERS:
                headline = lang._(
                    "Rematch: {player} plays **{ruleset}** against the computer (level {level}), "
                    "as the attackers first.",
                    player=player,
                    ruleset=ruleset,
                    level=level,
                )
            else:
                headline = lang._(
                    "Rematch: {player} plays **{ruleset}** against the computer (level {level}), "
                    "as the defenders first.",
                    player=player,
                    ruleset=ruleset,
                    level=level,
                )
            if why_not is not None:
                headline = f"{headline}\n{why_not}"
            try:
                await self.flow.begin_match(active, interaction=interaction, headline=headline)
            finally:  # stored: its line says so whatever became of its first board
                await self.flow.set_ends.show_game_on(active)
            answered_here(interaction)
            return
        where = terms.parent_channel_id or terms.channel_id
        await self._check_opponent(interaction, terms.guild_id, other, where)
        created = create_unheld(
            self.flow.bot,
            lambda stored: services.challenges.create(
                terms.guild_id,
                where,
                user,
                other,
                ruleset=terms.ruleset,
                sets_total=terms.sets_total,
                challenger_side=side,
                time_per_move=terms.time_per_move,
                plays_here=not may_open_threads_in(interaction.client, where),
                thread_of=in_thread_of,
                threads_here=member_threads_in(interaction, where),
                rematch=True,
                names={user: account_name(interaction.user, interaction.client.user)},
                stored=stored,
            ),
        )
        try:
            challenge = await within_deadline(interaction, created, thinking=False)
        except ChannelBusy as busy:
            raise pressed_in_busy(busy, where) from busy
        # As /challenge: one member's challenges ping another at most once in 15 minutes.
        try:
            quiet_until = await within_deadline(
                interaction, opponent_ping(self.flow.bot, challenge.challenge_id), thinking=False
            )
        except BaseException:
            # Not shown (the press could not be answered): it must not hold the pair.
            await forget_unshown(self.flow.bot, challenge.challenge_id)
            raise
        try:
            lang = await within_deadline(
                interaction, self.flow.server_language(terms.guild_id), thinking=False
            )
            # Under a nonce of its own: a post made though its answer was lost (a 503) is
            # returned by a second try, not withdrawn as never shown; one whose last try's
            # answer was lost too is looked for in the channel.
            try:
                posted = await send_under_nonce(
                    self.flow.bot.get_partial_messageable(where),
                    f"Rematch challenge {challenge.challenge_id}",
                    content=challenge_text(
                        challenge, lang, self.flow.bot.names_in_hand(terms.guild_id, user, other)
                    ),
                    view=challenge_view(challenge.challenge_id, lang),
                    allowed_mentions=pinging([] if quiet_until else [other]),
                    nonce=f"rematch-{challenge.challenge_id}",
                )
            except (discord.HTTPException, *UNREACHABLE) as error:
                found = await shown_anyway(self.flow.bot, challenge, error)
                if found is None:
                    raise
                posted_id = found
            else:
                posted_id = posted.id
        except Exception as error:
            # Never shown (the channel is gone, or the bot may not post there): it must not
            # hold the pair until it expires; the post's own error is the one to tell.
            await forget_unshown(self.flow.bot, challenge.challenge_id)
            # Said of the channel the rematch goes to, not of the thread it was asked in.
            if isinstance(error, discord.Forbidden):
                raise GameError(
                    _(
                        "I could not offer the rematch in {channel}: I may not post there. A "
                        "server admin can give me View Channel and Send Messages in that channel.",
                        channel=f"<#{where}>",
                    )
                ) from error
            if isinstance(error, discord.NotFound):
                raise GameError(
                    _(
                        "I could not offer the rematch in {channel}: that channel is gone.",
                        channel=f"<#{where}>",
                    )
                ) from error
            raise
        # The challenge is out (its Accept works): what follows is no reason for an apology.
        try:  # a write before the answer: deferred in time when it waits for a lock
            await within_deadline(
                interaction,
                services.challenges.set_message(challenge.challenge_id, posted_id),
                thinking=False,
            )
        except (StorageError, ChallengeNotFound) as error:
            _log.warning(
                "Rematch challenge %s was posted, but its message could not be noted (its "
                "expiry will not edit it): %s",
                challenge.challenge_id,
                error,
            )
        if shown_here:
            answered_here(interaction)
        if quiet_until is None:
            offered = reader(interaction)._(
                "Rematch offered in {channel}: {player} can accept it there.",
                channel=f"<#{where}>",
                player=f"<@{other}>",
            )
        else:
            offered = reader(interaction)._(
                "Rematch offered in {channel} without pinging {player}: your challenges ping "
                "them at most once every 15 minutes (next {when}).",
                channel=f"<#{where}>",
                player=f"<@{other}>",
                when=f"<t:{int(quiet_until.timestamp())}:R>",
            )
        await answer(interaction, offered, ephemeral=True)

    async def _archive_again(
        self, interaction: discord.Interaction[Any], terms: MatchTerms
    ) -> None:
        """A press in the thread I started for the finished match opened it, if I had archived
        it (Discord's client unarchives a thread before a press there): it is archived again a
        little later, as at the match's end, not left open in everyone's list for a week."""
        if terms.parent_channel_id is None or interaction.channel_id != terms.channel_id:
            return
        try:
            await self.flow.bot.services.boards.archive_again(terms.match_id, terms.channel_id)
        except StorageError as error:  # Discord archives it after a week of quiet anyway
            _log.warning("Could not arm the archiving of thread %s: %s", terms.channel_id, error)

    async def _refuse_if_on(self, channel_id: int, user: int) -> None:
        """Raise ChannelBusy saying so if ``user``'s rematch against the computer is already
        being played in ``channel_id`` (a second press of Rematch)."""
        playing = await self.flow.bot.services.games.in_channel(channel_id)
        if playing is not None and playing.computer_id is not None and user in playing.player_ids:
            raise ChannelBusy(_("Your rematch is already on: play it here."))

    async def _check_opponent(
        self, interaction: discord.Interaction[Any], guild_id: int, other: int, where: int
    ) -> None:
        """Refuse a rematch ``other`` could never answer in ``where``: they have left the
        server, or cannot see that channel (when Discord cannot say in time, it is offered).
        Discord is asked while the press waits: deferred when slow, as the reads are."""
        member = await within_deadline(
            interaction, self.flow.members.member_now(guild_id, other), thinking=False
        )
        if member is False:
            raise GameError(
                _(
                    "{player} has left the server, so there can be no rematch.",
                    player=f"<@{other}>",
                )
            )
        channel = interaction.guild.get_channel(where) if interaction.guild else None
        if (
            member is not None
            and channel is not None
            and not channel.permissions_for(member).view_channel
        ):
            raise GameError(
                _(
                    "{player} cannot see {channel}, where the rematch would be offered, so "
                    "they could not answer it.",
                    player=f"<@{other}>",
                    channel=f"<#{where}>",
                )
            )
