"""An owed board that Discord may show already: looked for among the channel's newest messages.

A ``/move``'s board is its answer, which can carry no nonce: a bot stopped after Discord took it
and before it noted it out owes it again after the restart, and the outbox's post, under the
board's nonce, would show it a second time. So would the outbox's own post whose answer was
lost, tried again once Discord no longer holds its nonce. Before posting such a board
(:func:`may_be_out`), the outbox looks for it among the channel's newest messages, one of mine
showing it (:func:`shown_already`), known by what only that board carries:

- a board, by its Takeback button, which names the board's set, ply and moves taken back
  (:class:`bot.views.takeback.TakebackButton`), or by its picture's file name, which names
  them too (:func:`bot.flow.posts.board_picture_name`): the game moved on, its buttons came off,
  and a board posted late has none (:func:`board`). A ``/board`` answer, which shows the game
  again, is not that board: its button is marked, its picture named ``board.png``;
- a set's final board, which has none, by its picture's file name, which names its set
  (:func:`final_board`, :func:`bot.flow.posts.final_picture`); a set ends once; shown as text
  (I may not attach files there), by the set's number ending that text;
- a member's line against the computer, which has neither, by its text, the move's headline
  and "I am thinking…" (:func:`line`): my reply edits that line, or takes "I am thinking…" off
  it, so the newest line still saying it is the one owed. The player's name in it is left out
  of the comparison: they may have taken another since.

A board shown as text (I may not attach files there) has no picture name: with its buttons
taken off (the game moved on) it has nothing left to be known by, and is posted again, late,
if its noting out failed and I was stopped before trying again. That is left so: a mark naming
its set, ply and moves taken back would be noise in every board shown as text, for a board
shown twice rather than never, after a failed write, a move and a restart together.

What I wrote is known in every language I speak, not only the server's now: it may have chosen
another (``/settings language:``) while I was stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

import discord

from bot.flow.posts import board_picture_name, describe_move, final_board_mark, final_picture
from bot.i18n import Language, languages
from bot.my_permissions import my_permissions
from bot.storage.announcements import AnnouncementRow
from bot.storage.times import to_us
from bot.unreachable import UNREACHABLE
from bot.views.takeback import TakebackButton
from engine import MoveRecord

_log = logging.getLogger(__name__)

NONCE_HELD = timedelta(minutes=2)
"""How long Discord is counted on to return the post made earlier under the same nonce ("in the
past few minutes", its documentation says): a board owed longer is looked for first."""

HISTORY_LOOKED_AT = 20
"""How many of the channel's newest messages are read for an owed board."""


def may_be_out(row: AnnouncementRow, started: datetime, now: datetime) -> bool:
    """Whether ``row``'s board may be out though it is owed, and its nonce would not say so:
    owed from before this process ``started``, or at that very instant (a ``/move``'s answer,
    noted by nobody: the process before may have owed it in the microsecond this one read as
    its start, as on a clock that stands still; this process owes nothing before it runs), or
    for longer than Discord holds a nonce (``now``)."""
    return row.created_us <= to_us(started) or row.created_us < to_us(now - NONCE_HELD)


def board_id(row: AnnouncementRow) -> str:
    """The ``custom_id`` of the Takeback button under ``row``'s board."""
    button = TakebackButton(row.set_id, ply=row.ply, undone=row.undone)
    custom_id = button.item.custom_id
    assert custom_id is not None
    return custom_id


Shows = Callable[[discord.Message], bool]
"""Whether a message of mine is the board looked for."""


def with_buttons(row: AnnouncementRow) -> Shows:
    """``row``'s board with its buttons: its Takeback button names it (:func:`board_id`)."""
    wanted = board_id(row)
    return lambda message: wanted in custom_ids(message)


def board(row: AnnouncementRow) -> Shows:
    """``row``'s board: with its buttons (:func:`with_buttons`), or by its picture, named after
    its set, ply and moves taken back (its buttons taken off, or posted late without them)."""
    buttons = with_buttons(row)
    wanted = board_picture_name(row.set_id, row.ply, row.undone)
    return lambda message: (
        buttons(message) or any(file.filename == wanted for file in message.attachments)
    )


def final_board(set_id: int) -> Shows:
    """``set_id``'s final board: its picture is named after the set; shown as text in its
    place (I may not attach files there), that text, quoted, ends with the set's number
    (:func:`final_board_mark`, in any language I speak)."""
    wanted = final_picture(set_id)
    marks = tuple({final_board_mark(set_id, lang) for lang in languages()})
    return lambda message: (
        any(file.filename == wanted for file in message.attachments)
        or any(
            text.startswith("> ") and text.endswith(marks) for text in message.content.split("\n")
        )
    )


_SOMEONE = "SOMEONE"
"""A name standing in for the player's in their line (:func:`line`): Markdown and mentions
leave it as it is."""


def line(record: MoveRecord) -> Shows:
    """A member's line against the computer telling their move ``record`` and that I am
    thinking (the newest such), in any language I speak: its words around the player's name,
    whatever name it shows (their display name then; it may have changed since, and the line
    is not edited)."""
    around = {_around_name(record, lang) for lang in languages()}

    def shows(message: discord.Message) -> bool:
        content = message.content
        for before, after in around:
            if len(content) <= len(before) + len(after):
                continue
            name = content[len(before) : len(content) - len(after)]
            if content.startswith(before) and content.endswith(after) and "\n" not in name:
                return True
        return False

    return shows


def _around_name(record: MoveRecord, lang: Language) -> tuple[str, str]:
    """The words before and after the player's name in their line telling ``record`` and that
    I am thinking, in ``lang``."""
    before, after = describe_move(record, _SOMEONE, lang).split(_SOMEONE, 1)
    return before, after + "\n" + lang._("I am thinking…")


def still_thinking(content: str) -> bool:
    """Whether ``content``, a member's line against me, still says "I am thinking…" as its
    last line, in any language I speak (the server's may have changed since I wrote it)."""
    return content.split("\n")[-1] in {lang._("I am thinking…") for lang in languages()}


async def shown_already(
    client: discord.Client, row: AnnouncementRow, shows: Shows
) -> discord.Message | None:
    """My message showing ``row``'s board (as ``shows`` knows it) among its channel's newest;
    None if there is none — or if Discord cannot say (I may not read the channel's history, or
    it failed): the board is then posted, shown twice rather than never."""
    me = client.user
    if me is None or not _may_read_history(client, row.channel_id):
        return None
    channel = client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
    try:
        async for message in channel.history(limit=HISTORY_LOOKED_AT):
            if message.author.id == me.id and shows(message):
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
