"""An owed board that Discord may show already: looked for among the channel's newest messages.

A ``/move``'s board is its answer, which can carry no nonce: a bot stopped after Discord took it
and before it noted it out owes it again after the restart, and the outbox's post, under the
board's nonce, would show it a second time. So would the outbox's own post whose answer was
lost, tried again once Discord no longer holds its nonce. Before posting such a board
(:func:`may_be_out`), the outbox looks for it among the channel's newest messages: one of mine
whose Takeback button names the board's set, ply and moves taken back
(:class:`bot.views.takeback.TakebackButton`), which no other board carries.

A board without that button cannot be found so, and may show twice, as before: a set's final
board (the outbox does not look for it), a member's line against the computer (looked for at
the game's current position, never found).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import discord

from bot.my_permissions import my_permissions
from bot.storage.announcements import AnnouncementRow
from bot.storage.times import to_us
from bot.unreachable import UNREACHABLE
from bot.views.takeback import TakebackButton

_log = logging.getLogger(__name__)

NONCE_HELD = timedelta(minutes=2)
"""How long Discord is counted on to return the post made earlier under the same nonce ("in the
past few minutes", its documentation says): a board owed longer is looked for first."""

HISTORY_LOOKED_AT = 20
"""How many of the channel's newest messages are read for an owed board."""


def may_be_out(row: AnnouncementRow, started: datetime, now: datetime) -> bool:
    """Whether ``row``'s board may be out though it is owed, and its nonce would not say so:
    owed from before this process ``started`` (a ``/move``'s answer, noted by nobody), or for
    longer than Discord holds a nonce (``now``)."""
    return row.created_us < to_us(started) or row.created_us < to_us(now - NONCE_HELD)


def board_id(row: AnnouncementRow) -> str:
    """The ``custom_id`` of the Takeback button under ``row``'s board."""
    button = TakebackButton(row.set_id, ply=row.ply, undone=row.undone)
    custom_id = button.item.custom_id
    assert custom_id is not None
    return custom_id


async def shown_already(client: discord.Client, row: AnnouncementRow) -> discord.Message | None:
    """My message showing ``row``'s board among its channel's newest; None if there
    is none — or if Discord cannot say (I may not read the channel's history, or it failed):
    the board is then posted, shown twice rather than never."""
    me = client.user
    if me is None or not _may_read_history(client, row.channel_id):
        return None
    wanted = board_id(row)
    channel = client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
    try:
        async for message in channel.history(limit=HISTORY_LOOKED_AT):
            if message.author.id == me.id and wanted in custom_ids(message):
                return message
    except (discord.HTTPException, *UNREACHABLE) as error:
        _log.info(
            "Board of game %s at ply %s not looked for (%r): posted, it may show twice",
            row.set_id,
            row.ply,
            error,
        )
    return None


def custom_ids(message: discord.Message) -> set[str]:
    """The ``custom_id`` of every button and select on ``message``."""
    found: set[str] = set()
    for row in message.components:
        for item in getattr(row, "children", ()):
            custom_id = getattr(item, "custom_id", None)
            if custom_id:
                found.add(custom_id)
    return found


def _may_read_history(client: discord.Client, channel_id: int) -> bool:
    """Whether I may read ``channel_id``'s history as Discord last told me (True when the
    channel is not cached: Discord then says, and a refusal is only logged)."""
    mine = my_permissions(client, channel_id)
    return mine is None or (mine.view_channel and mine.read_message_history)
