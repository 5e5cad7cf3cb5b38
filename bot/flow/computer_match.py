"""A match against the computer in Discord: its own thread when the server allows one.

As for a match between members, the game goes into a public thread so that the channel stays
free for others: the answer to /challenge becomes one line in the channel, the thread is
started from it, and the line links the thread (and shows the result once the match is over).
Every term is checked before anything is posted, so a refused match leaves no empty thread.
When no thread can be had (threads off, already in a thread, a voice or stage channel's chat,
permissions, an HTTP error) the game is played in the channel, and the answer to /challenge says
why in the same sentence an accepted challenge's message gives (bot/flow/threads.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.flow.posts import NO_PINGS
from bot.flow.threads import (
    THREAD_ARCHIVE_MINUTES,
    close_unused_thread,
    computer_line,
    join_to_reopen,
    member_threads_here,
    thread_name,
    thread_not_opened,
    thread_refusal,
)
from bot.i18n import Language
from bot.names import account_name
from bot.services.domain import ActiveGame
from bot.services.errors import GameError
from bot.storage.errors import StorageError
from bot.unreachable import UNREACHABLE
from bot.views.common import answer, thread_of, within_deadline
from engine import Side, get_ruleset

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)


COUNT_LIMIT = 0.5
"""Seconds the count of a member's matches against the computer may take before the match goes
on without it (its answer must come within Discord's 3 seconds)."""


class ComputerMatchFlow:
    """What the bot does and posts when a member challenges the computer."""

    def __init__(self, flow: GameFlow) -> None:
        self.flow = flow

    async def start(
        self,
        interaction: discord.Interaction[Any],
        *,
        level: int,
        ruleset: str | None,
        sets_total: int,
        human_side: Side,
        time_per_move: timedelta | None,
    ) -> None:
        """Start the match at once, in a thread of its own when one can be opened."""
        bot = self.flow.bot
        services = bot.services
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None
        assert channel_id is not None
        assert bot.user is not None
        human, computer = interaction.user.id, bot.user.id
        name, _per_move = await services.matches.check_computer_match(
            guild_id,
            channel_id,
            human,
            computer,
            level=level,
            ruleset=ruleset,
            sets_total=sets_total,
            time_per_move=time_per_move,
            thread_of=thread_of(interaction),
        )
        # A member's matches against the computer are counted before the line and its thread
        # are posted (the start counts again as it stores): unless the read is slow, then
        # the start's own count refuses, and the thread is closed again.
        with contextlib.suppress(TimeoutError, StorageError):
            await asyncio.wait_for(
                services.matches.check_computer_matches(guild_id, human), COUNT_LIMIT
            )
        lang = await self.flow.server_language(guild_id)
        headline = lang._(
            "{player} plays **{ruleset}** against the computer (level {level}).",
            player=f"<@{human}>",
            ruleset=lang.gettext(get_ruleset(name).title),
            level=level,
        )

        async def start_in(
            channel: int, parent: int | None = None, line_id: int | None = None
        ) -> ActiveGame:
            active = await services.matches.start_computer_match(
                guild_id,
                channel,
                human,
                computer,
                level=level,
                ruleset=name,
                sets_total=sets_total,
                human_side=human_side,
                time_per_move=time_per_move,
                parent_channel_id=parent,
                line_message_id=line_id,
                thread_of=thread_of(interaction),
                threads_here=member_threads_here(interaction),
                account_name=account_name(interaction.user, interaction.client.user),
            )
            bot.flow.outbox.starting(active)  # its first board is mine to post
            return active

        settings = await services.settings.get(guild_id)
        why_not = thread_refusal(interaction, settings, lang)
        if why_not is None:
            line, apart = await self._post_line(interaction, headline)
            edit_line = line.edit if apart else interaction.edit_original_response
            delete_line = line.delete if apart else interaction.delete_original_response
            names = await bot.display_names(guild_id, human, computer)
            thread, why_not = await self._open_thread(
                line, names, human, computer, name, level, lang
            )
            try:
                if thread is not None:
                    active = await start_in(thread.id, channel_id, line.id)
                else:
                    active = await start_in(channel_id)
            except BaseException as error:
                # Nothing started: the line would announce a match that does not exist, and
                # the thread opened from it would stay empty.
                with contextlib.suppress(discord.HTTPException):
                    await delete_line()
                if thread is not None:
                    reason = lang.render(error.text) if isinstance(error, GameError) else None
                    await close_unused_thread(thread, reason)
                raise
            if thread is None:
                # Discord refused the thread: the line becomes the first board, saying why, as
                # where no thread was tried (one Discord will not edit keeps its headline, and
                # the board is posted apart). A line posted apart gives way to the board.
                if apart:
                    with contextlib.suppress(discord.HTTPException, *UNREACHABLE):
                        await delete_line()
                await self.flow.begin_match(
                    active,
                    interaction=None if apart else interaction,
                    headline=f"{headline}\n{why_not}",
                    into_answer=not apart,
                )
                return
            content = computer_line(human, computer, name, level, names, thread.id, lang)
            try:
                await edit_line(content=content, allowed_mentions=NO_PINGS)
            except (discord.HTTPException, *UNREACHABLE) as error:
                # The match is stored: it begins all the same (its first board, the computer's
                # opening move), the line keeping the headline it was posted with.
                _log.warning("Could not edit the line of game %s: %r", active.set_id, error)
            await self.flow.begin_match(active, headline=headline)
            return
        # No thread to try (threads off, already in a thread, a voice or stage channel's chat,
        # my permissions): the first board, the answer to /challenge, says why, as an accepted
        # challenge's message does.
        headline = f"{headline}\n{why_not}"
        # A slow write (another program holding the database) is deferred in time, privately:
        # the start may still be refused (one sentence for the player alone); its board, when
        # it comes, is posted for everyone. Stored but unanswerable, the board is posted anyway.
        active = await within_deadline(
            interaction,
            start_in(channel_id),
            ephemeral=True,
            unanswered=lambda started: self.flow.begin_match(started, headline=headline),
        )
        await self.flow.begin_match(active, interaction=interaction, headline=headline)
        # Its boards may all be answers, which do not make me a member of a member's thread:
        # I join it, or Discord would not let me open it again to edit them once archived.
        await join_to_reopen(bot, interaction.channel)

    async def _post_line(
        self, interaction: discord.Interaction[Any], headline: str
    ) -> tuple[discord.Message | discord.PartialMessage, bool]:
        """Post the match's line for everyone (its thread is started from it): the command's
        answer, or, the command deferred privately already (a held player's time given back
        first: BrandubhBot.came), a message of its own in the channel (:func:`answer` posts it
        and takes the private "thinking…" away). Returns it, and whether it is apart."""
        if not interaction.response.is_done():
            await interaction.response.send_message(headline, allowed_mentions=NO_PINGS)
            return await interaction.original_response(), False
        message_id = await answer(interaction, headline, allowed_mentions=NO_PINGS)
        assert interaction.channel_id is not None
        assert message_id is not None  # a message posted, apart or as a followup
        channel = self.flow.bot.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id
        )
        return channel.get_partial_message(message_id), True

    async def _open_thread(
        self,
        line: discord.Message | discord.PartialMessage,
        names: Mapping[int, str],
        human: int,
        computer: int,
        ruleset: str,
        level: int,
        lang: Language,
    ) -> tuple[discord.Thread | None, str | None]:
        """Start the game's thread from the line: (thread, None) or (None, why). Its name
        gives the computer's level, as the line does ("alice vs Brandubh (level 4) · …")."""
        me = names.get(computer, "Brandubh")
        opponent = lang._("{name} (level {level})", name=me, level=level)
        try:
            thread = await line.create_thread(
                name=thread_name(names.get(human, lang._("a player")), opponent, ruleset, lang),
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except (discord.HTTPException, discord.RateLimited) as error:  # not made: the channel
            _log.warning("Could not open a thread for a computer match of %s: %s", human, error)
            return None, thread_not_opened(lang)
        return thread, None
