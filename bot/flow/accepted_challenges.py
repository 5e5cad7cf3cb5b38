"""An accepted challenge whose message a restart kept from showing it: edited once the match's
first board goes out late.

Accepting a challenge stores the match, then edits the challenge's message (its Accept, Decline
and Withdraw off: who plays what, or the line linking the match's thread), then posts the first
board. A bot stopped between the first two leaves the buttons after the restart, and presses on
them are refused as the challenge is no longer open. The first board, owed since the match was
stored, is then the outbox's to post (:meth:`bot.flow.outbox.Outbox.deliver`); when it does, the
challenge's message is read, and if it still shows its buttons it is edited as the acceptance
would have. Read first: a message edited already keeps what it says (why the match has no
thread, say), and one the bot may not read is left as it is.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.flow.boards_shown import custom_ids
from bot.flow.posts import NO_PINGS
from bot.flow.threads import accepted_line, edit_reopening, match_line
from bot.i18n import Language
from bot.services.domain import ActiveGame
from bot.unreachable import UNREACHABLE

if TYPE_CHECKING:
    from bot.flow.game_flow import GameFlow

_log = logging.getLogger(__name__)

BUTTONS = "challenge:"
"""How the ``custom_id`` of a challenge's Accept, Decline and Withdraw begins."""


async def show_accepted(flow: GameFlow, active: ActiveGame, lang: Language) -> None:
    """``active`` is the first set of a match whose first board the outbox posted: if a
    challenge accepted started it and its message still shows its buttons, it is edited to
    show the acceptance, pinging nobody. What stops that (the message deleted, Discord) is
    logged: the buttons' presses are refused all the same."""
    bot = flow.bot
    challenge = await bot.services.challenges.of_match(active.match_id)
    if challenge is None or challenge.message_id is None or challenge.opponent_id is None:
        return
    channel = bot.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
    message = channel.get_partial_message(challenge.message_id)
    try:
        shown = await message.fetch()
        if not any(custom_id.startswith(BUTTONS) for custom_id in custom_ids(shown)):
            return  # edited already
        names = await bot.names_told_apart(
            await bot.display_names(
                challenge.guild_id, challenge.challenger_id, challenge.opponent_id
            ),
            or_as_shown=True,
        )
        if active.channel_id != challenge.channel_id:  # in the thread started from it
            content = match_line(challenge, names, active.channel_id, lang)
        else:
            content = accepted_line(
                names.get(challenge.opponent_id),
                active.attacker_id,
                active.defender_id,
                lang,
                names,
            )
        await edit_reopening(bot, message, content=content, view=None, allowed_mentions=NO_PINGS)
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info(
            "Challenge %s's message could not be shown accepted: %r", challenge.challenge_id, error
        )
        return
    _log.info("Challenge %s's message shows it accepted, late", challenge.challenge_id)
