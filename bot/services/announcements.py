"""The outbox: the board after every stored move is posted once, even through Discord outages.

A move and its announcement are stored in one statement (SQLite's moves trigger, or the move's
statement on PostgreSQL). The flow marks the announcement delivered once the board is out;
:meth:`AnnouncementService.due` hands the timer what was not, with growing pauses between
tries, also after a restart. So does it owe the edit of a takeback request's message that Discord
refused as locked when the request was answered (:meth:`AnnouncementService.answer_owed`), and
the edit of a match's line to show its result that Discord did not take at the match's end
(:meth:`AnnouncementService.line_owed`).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from bot.services.clock import Clock
from bot.services.domain import OwedBoard
from bot.shards import Shards
from bot.storage import Database, announcements
from bot.storage.announcements import AnnouncementRow, LateCause, OwedAnswer, OwedLine
from bot.storage.sets import EVERY
from bot.storage.times import to_us

RETRY_FIRST = timedelta(seconds=1)
RETRY_MAX = timedelta(seconds=10)
"""Pauses between tries double from the first to this, so a recovered Discord hears soon."""
REFUSED_RETRY_MAX = timedelta(hours=1)
"""The longest pause before posting a board Discord refused (a 4xx) again."""
_DOUBLINGS = 12
"""Doublings of RETRY_FIRST past which the pause stops growing (it is capped long before)."""


class AnnouncementService:
    """Mark boards posted, and hand out the ones still to post."""

    def __init__(self, database: Database, clock: Clock, shards: Shards = EVERY) -> None:
        self._database = database
        self._clock = clock
        self._shards = shards

    async def delivered(
        self, set_id: int, ply: int, message_id: int | None, *, owed: OwedBoard | None = None
    ) -> None:
        """The board of ``set_id`` at ``ply`` the flow posted itself is out (or superseded):
        never post it again (the outbox's own posts are marked by :meth:`posted`). With
        ``owed`` (the board as its move owed it), only while that is the board owed there: one
        owed anew there since (the set's end at that move) stays owed."""
        same = None if owed is None else owed.same
        async with self._database.transaction() as db:
            await announcements.delivered(
                db, set_id, ply, message_id, to_us(self._clock()), owed=same
            )

    async def posted(self, row: AnnouncementRow, message_id: int | None) -> None:
        """The outbox posted ``row`` as it read it (or found it out already, or superseded):
        never post it again — unless the board was owed anew since (a takeback back to its
        ply while it was posted), which is another board, still owed."""
        async with self._database.transaction() as db:
            await announcements.delivered(
                db,
                row.set_id,
                row.ply,
                message_id,
                to_us(self._clock()),
                owed=row,
            )

    async def message_of(self, set_id: int, ply: int) -> int | None:
        """The message the board of ``set_id`` at ``ply`` went out as, if known (against the
        computer: the line "… I am thinking…" its reply is edited into)."""
        async with self._database.snapshot() as db:
            return await announcements.message_of(db, set_id, ply)

    async def out(self, set_id: int, ply: int) -> bool:
        """Whether the board of ``set_id`` at ``ply`` is out (or superseded) already."""
        async with self._database.snapshot() as db:
            return await announcements.out(db, set_id, ply)

    async def nonce(self, set_id: int, ply: int, *, first: bool = False) -> str:
        """The nonce to post the board of ``set_id`` at ``ply`` with, which the outbox posts it
        with too: Discord creates it once, whoever posts it (the flow's post whose answer was
        lost, then the outbox's). A board never owed gets a nonce of its own; so does the
        ``first`` board owed there once another was owed anew there (the set ended before any
        move while the flow drew it): that one's post is not returned for the first."""
        async with self._database.snapshot() as db:
            owed = await announcements.nonce_of(db, set_id, ply, first=first)
        return secrets.token_hex(8) if owed is None else owed

    async def retry_refused(self, guild_id: int) -> None:
        """Something changed in server ``guild_id`` that may let the bot post again (a channel's
        permissions, a role, the bot's roles, a thread unlocked): boards (and takeback answers)
        paused after a refusal are tried at the next check instead of up to an hour later."""
        now = self._clock()
        async with self._database.transaction() as db:
            await announcements.retry_refused(db, guild_id, to_us(now), to_us(now + RETRY_MAX))

    async def refused_channels(self, guild_id: int) -> list[int]:
        """The channels of server ``guild_id`` whose owed boards are paused after a refusal."""
        now = self._clock()
        async with self._database.snapshot() as db:
            return await announcements.refused_channels(db, guild_id, to_us(now + RETRY_MAX))

    async def due(self, limit: int = 20) -> list[AnnouncementRow]:
        """Boards that should have been posted by now and were not, oldest first."""
        async with self._database.snapshot() as db:
            return await announcements.due(db, to_us(self._clock()), limit, self._shards)

    async def failed(
        self,
        row: AnnouncementRow,
        *,
        refused: bool = False,
        cause: LateCause | None = None,
        not_before: datetime | None = None,
    ) -> None:
        """Posting ``row`` failed: try again after a pause that doubles with every failure, up
        to ``RETRY_MAX`` — or, when Discord refused it (a 4xx: no permission, the channel gone,
        the thread locked), up to ``REFUSED_RETRY_MAX``: that lasts until someone changes
        something — and not before ``not_before`` (a rate limit's end). ``cause``: why Discord
        refused it, which its late post tells (none: it could not be reached)."""
        next_try = self._clock() + _pause(row.attempts, refused=refused)
        if not_before is not None:
            next_try = max(next_try, not_before)
        async with self._database.transaction() as db:
            await announcements.failed(db, row, to_us(next_try), cause)

    async def held_back(self, row: AnnouncementRow, until: datetime) -> None:
        """``row`` is not tried before ``until``: Discord asked the posts in its channel to
        wait (a rate limit), and trying it would only be refused so again. Its count of
        tries and its late cause stay as they are."""
        async with self._database.transaction() as db:
            await announcements.held_back(db, row, to_us(until))

    async def post_refused(
        self, set_id: int, ply: int, cause: LateCause, *, owed: OwedBoard | None = None
    ) -> None:
        """Discord refused the flow's post of the board of ``set_id`` at ``ply`` for ``cause``:
        its late post, if it is posted late, says so (a moderator had locked the thread, or I
        was not allowed to post), not that Discord could not be reached. With ``owed`` (the
        board as its move owed it), only that board: one owed anew there since is not told
        as refused."""
        same = None if owed is None else owed.same
        async with self._database.transaction() as db:
            await announcements.post_refused(db, set_id, ply, cause, owed=same)

    async def answer_owed(self, takeback_id: int) -> None:
        """Discord refused as locked the edit of takeback request ``takeback_id``'s message
        that shows how it ended: the outbox makes it once it may (:meth:`answers_due`)."""
        async with self._database.transaction() as db:
            await announcements.answer_owed(db, takeback_id, to_us(self._clock()))

    async def answers_due(self, limit: int = 20) -> list[OwedAnswer]:
        """Takeback requests whose message should show how they ended by now and does not."""
        async with self._database.snapshot() as db:
            return await announcements.answers_due(db, to_us(self._clock()), limit, self._shards)

    async def answer_shown(self, owed: OwedAnswer) -> None:
        """``owed``'s message shows how the request ended (or is gone): nothing is owed."""
        async with self._database.transaction() as db:
            await announcements.answer_shown(db, owed.takeback_id)

    async def answer_failed(
        self, owed: OwedAnswer, *, refused: bool = False, not_before: datetime | None = None
    ) -> None:
        """Editing ``owed``'s message failed: try again after a pause, as for a board
        (:meth:`failed`)."""
        next_try = self._clock() + _pause(owed.attempts, refused=refused)
        if not_before is not None:
            next_try = max(next_try, not_before)
        async with self._database.transaction() as db:
            await announcements.answer_failed(db, owed.takeback_id, to_us(next_try))

    async def line_owed(self, set_id: int) -> None:
        """Discord did not take the edit of the line of the match whose last set is ``set_id``
        (to show its result), or whose first set it is (a rematch against the computer: to
        say the game is on again): the timers make it once it does (:meth:`lines_due`)."""
        async with self._database.transaction() as db:
            await announcements.line_owed(db, set_id, to_us(self._clock()))

    async def lines_due(self, limit: int = 20) -> list[OwedLine]:
        """Match lines that should show their match's result by now and do not."""
        async with self._database.snapshot() as db:
            return await announcements.lines_due(db, to_us(self._clock()), limit, self._shards)

    async def line_superseded(self, owed: OwedLine) -> bool:
        """Whether a newer match took ``owed``'s line over since it was read (a rematch against
        the computer): read again right before its edit."""
        async with self._database.snapshot() as db:
            return await announcements.line_superseded(db, owed.set_id)

    async def line_shown(self, owed: OwedLine) -> None:
        """``owed``'s line shows its match's result (or is gone, or another match's): nothing
        is owed."""
        async with self._database.transaction() as db:
            await announcements.line_shown(db, owed.set_id)

    async def line_failed(self, owed: OwedLine, *, refused: bool = False) -> None:
        """Editing ``owed``'s line failed: try again after a pause, as for a board
        (:meth:`failed`)."""
        async with self._database.transaction() as db:
            await announcements.line_failed(
                db, owed.set_id, to_us(self._clock() + _pause(owed.attempts, refused=refused))
            )


def _pause(attempts: int, *, refused: bool) -> timedelta:
    """The pause after a post (or edit) failed ``attempts`` times before this one: doubling
    from ``RETRY_FIRST`` up to ``RETRY_MAX``, or ``REFUSED_RETRY_MAX`` when Discord refused it."""
    ceiling = REFUSED_RETRY_MAX if refused else RETRY_MAX
    pause: timedelta = min(RETRY_FIRST * (2 ** min(attempts, _DOUBLINGS)), ceiling)
    return pause
