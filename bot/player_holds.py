"""Player holds: a player a moderator shut out of their game's channel — they can no longer see
it (a role or an overwrite taken away), or they are timed out — does not lose on time while
that lasts (bot/holds.py tells the story of holds).

The bot has no members intent, so Discord does not tell it when a member's roles or timeout
change. It looks when it matters: when a player's time would run out, it asks Discord for the
member (one request: their roles and timeout) and reads their permissions in the channel from
the cache (the channel's overwrites and the server's roles, which the guilds intent keeps
fresh). One who cannot play is not flagged: their game's channel is held from when their turn
began (the bot cannot tell since when they could not play, as for a lock found late), and a
public line says why. While it is held they are asked about again every :data:`ASK_AGAIN`, and
their own command or press there shows at once that they can play: the time is given back then
— their whole time for the move, as the bot cannot tell when they were shut out (where a hold's
start is known, a locked thread's or an outage's, only the stretch held is given back) — and
(when they were asked about) a line says their clock runs again. Only a moderator can time a
member out or change a channel's overwrites (a moderator can, to themselves); but a player who
picks the role that shows the channel themselves (onboarding, a reaction-role bot) can drop it
at their deadline, and the bot cannot tell who took a role away. So a hold is bounded rather
than its cause guessed: it lasts at most :data:`MOST_HELD` from the deadline it held (then the
time is given back as if they were back, and a line pinging them says why), and a move is held
once: one shut out again at a later deadline of the same move loses on time, with a line saying
why. The holds are stored (schema 36's ``player_holds``: which set and move, which player,
since when), the row taken away in the transaction that gives the time back. A hold is stored
before its line is posted, the line noted owed until Discord takes it (schema 38): the stored
hold is what keeps the player from losing, so a crash between leaves a hold whose line the next
check (or the restart's first) posts, never a line saying a clock is held that nothing holds;
the line saying it runs again is owed likewise from the transaction that gives the time back
(schema 39), and posted after a restart if the move is still to play. A
restart takes them up (a line posted is not posted again), asking Discord at its first check,
and a Discord error then leaves the clock held, as at any check. A Discord error at the
deadline itself, before any hold, is not the player's doing either: the game is not lost on
time until Discord answers (asked again each :data:`ASK_AGAIN`), then held or lost as the
answer says — not held at once, which would give a whole move to a player who simply ran out of
time; only if Discord says nothing for :data:`MOST_HELD` past the deadline is it lost on time.
A hold found a day past its deadline (the checks could not end the game sooner) is stored and
told like any other, and ends at once, as a day's hold does. Both bounds are read from what is
stored — the set's deadline, which stands while its clock is held, and the move a player's hold
last gave its time back to, noted with that give-back (schema 34's ``player_holds_given``) — so
a restart does not make a hold new. Only a player's own hold counts: a lock of the thread found
at the deadline gives back the same stretch, from the turn's start, but the player had no hand
in it. A press of theirs while the minute's check gives the time back waits for that, so their
move is not refused as too late.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.flow.lost_answers import send_under_nonce
from bot.flow.posts import NO_PINGS, pinging
from bot.hold_keeping import HoldKeeping
from bot.services.held import BackLine, BackLineOwed, HoldKind, PlayerHold, ShutOut
from bot.storage.errors import StorageError
from bot.storage.times import from_us
from bot.unreachable import UNREACHABLE, not_taken_now

if TYPE_CHECKING:
    from bot.client import BrandubhBot
    from bot.i18n import Language
    from bot.storage.sets import SetRow
    from bot.timers import Timers

_log = logging.getLogger(__name__)

ASK_AGAIN = timedelta(minutes=1)
"""How often Discord is asked again about a player whose clock is held (one request each)."""

MOST_HELD = timedelta(days=1)
"""How long a player's clock is held at most, from the deadline it held: then it runs again,
their whole time for the move given back, as if they could play (a player who picks the role
that shows the channel themselves could otherwise hold their clock for as long as they like)."""


def shut_out(
    member: discord.Member,
    channel: discord.abc.GuildChannel | discord.Thread,
    now: datetime,
    deadline: datetime | None = None,
) -> ShutOut | None:
    """Why ``member`` cannot play in ``channel`` at ``now``, if they cannot: their timeout, or
    their permissions there as the cache computes them. Use Application Commands and Send
    Messages are not asked: the board's buttons play a move without either. At their
    ``deadline`` (asked at a check, a little after it), a timeout until the deadline or later
    counts, though it ended since: they could not move before it (and were not reminded)."""
    until = member.timed_out_until
    if until is not None and (until > now or (deadline is not None and until >= deadline)):
        return ShutOut.TIMED_OUT
    if not channel.permissions_for(member).view_channel:
        return ShutOut.CANNOT_SEE
    return None


class _Seen(enum.Enum):
    """What the bot saw of a player, when not why they are shut out."""

    CAN_PLAY = enum.auto()
    LEFT = enum.auto()
    """Discord says they are not a member of the server (Unknown Member)."""
    NO_ANSWER = enum.auto()
    """Discord did not answer (an error, or not within a second)."""
    UNKNOWN = enum.auto()
    """The cache cannot say: the channel is not cached."""


@dataclass
class _Held:
    """A game channel held for its player to move: the stored hold, and what this process
    knows of it besides."""

    hold: PlayerHold
    asked: datetime
    """When Discord was last asked about the player."""
    line_owed: ShutOut | None = None
    """Why they are held, while the public line saying so is not yet posted (stored with the
    hold: a restart posts it)."""
    held_a_day: bool = False
    """Their clock was held :data:`MOST_HELD`: it ends so, whether they can play or not."""
    giving_back: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while its time is given back: their press meanwhile waits for that (their move
    then finds their clock given back) rather than being refused as too late."""


class PlayerHolds(HoldKeeping):
    """The game channels whose player to move a moderator shut out, held while they are."""

    def __init__(self, bot: BrandubhBot, timers: Timers) -> None:
        super().__init__(bot, timers)
        self._players: dict[int, _Held] = {}
        """By channel (or thread), the game channels held for their player to move: the
        stored holds (read again at start-up, :meth:`reload_players`)."""
        self._unanswered: dict[int, datetime] = {}
        """By channel, the games past their deadline whose player Discord did not answer
        about, and when it was last asked: not lost on time until it says."""
        self._back_lines_unread = True
        """Whether lines players' holds owe since they gave the time back may be stored
        unposted (at start-up, and after a post or its note failed)."""

    def held_player(self, channel_id: int) -> int | None:
        """The player whose clock ``channel_id``'s hold stands for, if it is held for one."""
        held = self._players.get(channel_id)
        return None if held is None else held.hold.player_id

    def shut_out_channels(self) -> frozenset[int]:
        """The game channels held for their player to move."""
        return frozenset(self._players)

    async def reload_players(self) -> None:
        """Take up the players' holds kept before the restart, their lines not posted again
        (one still owed, the process stopped before posting it, is posted at the first check):
        Discord is asked about each at the first check, and a Discord error then leaves it
        held, as at any check."""
        try:
            kept = await self.bot.services.holds.players_held()
        except StorageError as error:
            _log.warning("Could not read the players' holds kept before the restart: %s", error)
            return
        asked = self.bot.clock() - ASK_AGAIN
        for hold in kept:
            self._players.setdefault(hold.channel_id, _Held(hold, asked, hold.line_owed))
        if kept:
            _log.info("Holding %d game channels for players shut out before the restart", len(kept))

    async def _why_shut_out(
        self,
        guild_id: int,
        channel_id: int,
        player_id: int,
        parent_id: int | None,
        deadline: datetime | None = None,
    ) -> ShutOut | _Seen:
        """Why ``player_id`` cannot play in ``channel_id`` (a thread of ``parent_id``, if
        given) now, as Discord (their member) and the cache (the channel's overwrites, the
        server's roles) say; or that they can, that they left the server, that Discord did
        not answer, or that the cache cannot say (the channel is not cached)."""
        channel = self.bot.get_channel(channel_id)
        if channel is None and parent_id is not None:
            # An archived thread (discord.py drops them from its cache; a game's goes quiet
            # for a week while its player is held): a thread's permissions are its channel's.
            channel = self.bot.get_channel(parent_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return _Seen.UNKNOWN
        if self.bot.flow.members.unanswered(guild_id):  # asked lately in vain: not again yet
            return _Seen.NO_ANSWER
        member = await self.bot.flow.members.member_now(guild_id, player_id)
        if member is False:
            return _Seen.LEFT
        if member is None:  # the channel is cached, so its server is: Discord did not answer
            return _Seen.NO_ANSWER
        try:
            why = shut_out(member, channel, self.bot.clock(), deadline)
        except discord.ClientException:  # a thread whose channel is not cached
            return _Seen.UNKNOWN
        return _Seen.CAN_PLAY if why is None else why

    async def hold_shut_out(self, rows: Iterable[SetRow]) -> frozenset[int]:
        """Before the games of ``rows`` are lost on time: each whose player to move (not the
        computer) a moderator shut out of its channel is held instead, from when their turn
        began — the hold stored first, then a public line saying so (owed until posted: a
        restart posts it). One found a day past its deadline (the checks could not end it
        sooner) is held all the same, and ends at once, as a day's hold does. One Discord does
        not answer about is not their doing: it is not lost on time until Discord says (asked
        again each :data:`ASK_AGAIN`), unless a day past its deadline. Returns the channels
        whose games are not lost on time now."""
        rows = list(rows)
        due = {row.channel_id for row in rows}
        self._unanswered = {c: at for c, at in self._unanswered.items() if c in due}
        spared = set()
        for row in rows:
            player = row.to_move_id
            if player == row.computer_id or row.channel_id in self._players:
                continue
            now = self.bot.clock()
            deadline = from_us(row.deadline_us)
            a_day_past = now >= deadline + MOST_HELD
            asked = self._unanswered.get(row.channel_id)
            if asked is not None and now - asked < ASK_AGAIN and not a_day_past:
                spared.add(row.channel_id)
                continue
            why = await self._why_shut_out(
                row.guild_id, row.channel_id, player, row.parent_channel_id, deadline
            )
            if why is _Seen.NO_ANSWER and not a_day_past:
                _log.info("Game %s: no answer whether %s can play: it waits", row.set_id, player)
                self._unanswered[row.channel_id] = now
                spared.add(row.channel_id)
                continue
            self._unanswered.pop(row.channel_id, None)
            if not isinstance(why, ShutOut):
                continue
            since = await self.bot.flow.vanished.turn_began(row.set_id)
            if await self._held_this_move(row, since):
                _log.info("Game %s: %s %s again this move: not held", row.set_id, player, why.value)
                turn = (row.set_id, row.ply, row.undone)
                try:
                    await self._say(row.guild_id, row.channel_id, player, Told.HELD_ONCE, turn=turn)
                except StorageError as error:  # not owed, as one Discord cannot take
                    _log.warning("Game %s: its line unsaid (not owed): %s", row.set_id, error)
                continue
            _log.info("Game %s: %s %s, so its clock stands still", row.set_id, player, why.value)
            hold = PlayerHold(
                row.channel_id, row.set_id, row.ply, row.guild_id, player, since, line_owed=why
            )
            held = _Held(hold, self.bot.clock(), line_owed=why)
            self._players[row.channel_id] = held
            spared.add(row.channel_id)
            await self._keep_player(held)
            if self._players.get(row.channel_id) is not held:
                continue  # their press came meanwhile: given back, no line
            try:
                await self._post_held_line(held, row.undone)
            except StorageError as error:  # the other games' time-outs go on
                _log.warning("Channel %s's held line stays owed: %s", row.channel_id, error)
            if a_day_past:
                _log.info("Game %s: found a day past its deadline: it runs", row.set_id)
                held.held_a_day = True
                await self.player_back(row.channel_id, announce=True)
        return frozenset(spared)

    async def _post_held_line(self, held: _Held, undone: int) -> None:
        """Post the line saying why ``held``'s clock is held, if it is owed (its set has had
        ``undone`` moves taken back: :meth:`_say`'s turn). Once Discord took
        it (or refused it: it would refuse it again) it is owed no more, in the database too;
        one Discord could not take now, or whose language the database failed to read (raised),
        stays owed, posted when the player is next asked about (:meth:`ask_again`)."""
        why = held.line_owed
        if why is None:
            return
        held.line_owed = None  # not posted twice meanwhile
        hold = held.hold
        taken = False
        try:  # the database failing the line's language leaves it owed too
            turn = (hold.set_id, hold.ply, undone)
            taken = await self._say(hold.guild_id, hold.channel_id, hold.player_id, why, turn=turn)
        finally:
            if not taken:
                held.line_owed = why
        if not taken:
            return
        try:
            await self.bot.services.holds.player_line_posted(hold.channel_id)
        except StorageError as error:
            _log.warning(
                "Could not note the line of channel %s's hold posted (a restart posts it "
                "again): %s",
                hold.channel_id,
                error,
            )

    async def _keep_player(self, held: _Held) -> None:
        """Store ``held``'s hold (a restart takes it up again); if the database cannot, it is
        held for as long as this process runs. One given back while it was being stored (their
        press came) has its row taken away again."""
        try:
            await self.bot.services.holds.hold_player(held.hold)
        except StorageError as error:
            _log.warning("Could not keep the hold of channel %s: %s", held.hold.channel_id, error)
            return
        if self._players.get(held.hold.channel_id) is not held:
            await self._release(HoldKind.PLAYER, held.hold.channel_id)

    async def _held_this_move(self, row: SetRow, since: datetime) -> bool:
        """Whether ``row``'s clock was held for its player this move already: a hold of theirs
        gave it its time back since ``since``, its turn's start (a locked thread's or an
        outage's does not count; if the database cannot say, it was not)."""
        try:
            return await self.bot.services.holds.held_this_move(row.set_id, row.ply, since)
        except StorageError as error:
            _log.warning("Could not tell whether game %s was held: %s", row.set_id, error)
            return False

    async def ask_again(self) -> None:
        """At each check: the players shut out who were last asked about :data:`ASK_AGAIN`
        ago are asked about again; one who can play now, or whose clock was held
        :data:`MOST_HELD` since their deadline, has their time given back, and a line pinging
        them says their clock runs again (and why). A channel whose game moved on meanwhile
        (their opponent resigned, an admin's ``/abort``) or whose player left the server is
        held no more, with nothing given back (one who left loses on time at the next check).
        If Discord cannot say, the hold stands, and they are asked again a minute on; if the
        database fails its line (owed), at the next check, and the other players are asked
        about now."""
        await self._post_back_lines_owed()
        now = self.bot.clock()
        for channel_id, held in list(self._players.items()):
            if now - held.asked < ASK_AGAIN or held.giving_back.locked():
                continue
            held.asked = now
            try:
                active = await self.bot.services.games.in_channel(channel_id)
            except StorageError as error:
                _log.warning("Could not read the game in held channel %s: %s", channel_id, error)
                continue
            if active is None or (active.set_id, active.ply, active.player_to_move) != (
                held.hold.set_id,
                held.hold.ply,
                held.hold.player_id,
            ):
                await self._forget(channel_id, held)
                continue
            try:  # owed by a restart, Discord, or the database
                await self._post_held_line(held, active.undone)
            except StorageError as error:  # asked about at the next check; the others go on
                _log.warning(
                    "Channel %s (server %s)'s held line stays owed: %s",
                    channel_id,
                    held.hold.guild_id,
                    error,
                )
                held.asked = now - ASK_AGAIN
                continue
            why = await self._why_shut_out(
                held.hold.guild_id, channel_id, held.hold.player_id, active.parent_channel_id
            )
            if why is _Seen.LEFT:
                await self._forget(channel_id, held)
            elif why is _Seen.CAN_PLAY:
                await self.player_back(channel_id, announce=True)
            elif now >= active.deadline + MOST_HELD:
                _log.info("Channel %s held a day for %s: it runs", channel_id, held.hold.player_id)
                held.held_a_day = True
                await self.player_back(channel_id, announce=True)

    async def came(self, channel_id: int | None, user_id: int) -> None:
        """A command or press from ``user_id`` in ``channel_id`` came: if its clock is held for
        them, they can play after all (Discord takes nothing from a member shut out), so its
        time is given back before the command or press goes on (if the minute's check is
        giving it back already, once that is done) — their own move shows it, so no line is
        posted."""
        if channel_id is None:
            return
        held = self._players.get(channel_id)
        if held is not None and held.hold.player_id == user_id:
            _log.info("Player %s shut out of channel %s played there again", user_id, channel_id)
            await self.player_back(channel_id, announce=False)

    async def player_back(self, channel_id: int, *, announce: bool) -> None:
        """The player shut out of ``channel_id`` can play again: its clock is given back the
        time since their turn began, less what was given meanwhile (a restart), its stored hold
        ending in the same transaction, and, if ``announce``, a line pinging them says when
        their time runs out now — owed from that transaction (schema 39), so a crash before
        it is posted posts it after the restart. One given back meanwhile gives nothing; if
        the database fails, the hold stays, tried again at the next check."""
        held = self._players.get(channel_id)
        if held is None:
            return
        hold = (HoldKind.PLAYER, channel_id)
        line = (BackLine.HELD_A_DAY if held.held_a_day else BackLine.BACK) if announce else None
        async with held.giving_back:
            if self._players.get(channel_id) is not held:
                return  # given back while this waited (the minute's check, or their press)
            until = self._ended(hold)
            given = await self._give_back(
                held.hold.since,
                until,
                f"player {channel_id}",
                hold,
                channel_id=channel_id,
                line_owed=None if line is None else line.value,
            )
            if not given:
                self._unended.setdefault(hold, until)
                return
            self._unended.pop(hold, None)
            del self._players[channel_id]
        if line is not None:
            owed = BackLineOwed(held.hold.set_id, held.hold.ply, channel_id, line)
            await self._post_back_line(owed, held)

    async def _post_back_lines_owed(self) -> None:
        """Post the lines players' holds owe since they gave the time back, stored with that
        give-back: read at the first check after a start (a crash came before they were
        posted) and after one failed (Discord could not take it, or the database could not
        read or note it); else each is posted as its time is given back."""
        if not self._back_lines_unread:
            return
        self._back_lines_unread = False
        try:
            owed = await self.bot.services.holds.back_lines_owed()
        except StorageError as error:
            _log.warning("Could not read the lines owed by players' holds: %s", error)
            self._back_lines_unread = True
            return
        for line in owed:
            await self._post_back_line(line)

    async def _post_back_line(self, owed: BackLineOwed, held: _Held | None = None) -> None:
        """Post ``owed``, the line saying a player's clock runs again (after ``held``'s line
        saying why it was held, if that one is still owed), if their move is still to play;
        then note it posted (or not to be: the game moved on). One Discord could not take, or
        that the database could not read or note, stays owed (posted again at the next check,
        under the same nonce: :meth:`_say`)."""
        try:
            active = await self.bot.services.games.in_channel(owed.channel_id)
            if active is not None and (active.set_id, active.ply) == (owed.set_id, owed.ply):
                if held is not None:
                    await self._post_held_line(held, active.undone)  # why it was held, first
                taken = await self._say(
                    active.guild_id,
                    owed.channel_id,
                    active.player_to_move,
                    _TOLD[owed.line],
                    active.deadline,
                    turn=(owed.set_id, owed.ply, active.undone),
                )
                if not taken:
                    self._back_lines_unread = True
                    return
            await self.bot.services.holds.back_line_posted(owed.set_id, owed.ply)
        except StorageError as error:
            _log.warning("The line of channel %s's hold stays owed: %s", owed.channel_id, error)
            self._back_lines_unread = True

    async def _forget(self, channel_id: int, held: _Held) -> None:
        """``channel_id``, held as ``held``, is held no more, with nothing to give back."""
        async with held.giving_back:
            if self._players.get(channel_id) is not held:
                return
            del self._players[channel_id]
            self._unended.pop((HoldKind.PLAYER, channel_id), None)
            await self._release(HoldKind.PLAYER, channel_id)

    async def _say(
        self,
        guild_id: int,
        channel_id: int,
        player_id: int,
        line: ShutOut | Told,
        deadline: datetime | None = None,
        *,
        turn: tuple[int, int, int],
    ) -> bool:
        """Post ``line`` of ``player_id``'s clock at ``turn`` (set, ply, moves taken back in
        the set so far) in ``channel_id``:
        held (why), pinging nobody; or running again until ``deadline``, pinging them; or not
        held again. It carries a nonce of its own (:func:`line_nonce`): posted again after an
        answer lost (a 5xx, no answer at all), at once or at a later check within the few
        minutes Discord keeps a nonce, Discord returns the line it made instead of a second
        one. Returns whether Discord took it or refused it (False: it could not take it now)."""
        lang = await self.bot.flow.server_language(guild_id)
        text = held_text(lang, player_id, line, deadline)
        mentions = pinging([player_id]) if line in _PINGING else NO_PINGS
        try:
            await send_under_nonce(
                self.bot.get_partial_messageable(channel_id),
                f"Channel {channel_id}'s line of a player's clock",
                content=text,
                allowed_mentions=mentions,
                nonce=line_nonce(turn, line),
            )
        except (discord.HTTPException, *UNREACHABLE) as error:
            if not_taken_now(error):  # a 429 discord.py gave up on too
                _log.warning(
                    "Could not tell channel %s of a player's clock yet: %r", channel_id, error
                )
                return False
            _log.warning("Could not tell channel %s of a player's clock: %r", channel_id, error)
        return True


class Told(enum.Enum):
    """What a line says of a player's clock, when not why it is held."""

    BACK = enum.auto()
    """They can play again: it runs."""
    HELD_A_DAY = enum.auto()
    """It was held :data:`MOST_HELD`: it runs, whether they can play or not."""
    HELD_ONCE = enum.auto()
    """It was held this move already: not again (they lose on time)."""


_PINGING = frozenset({Told.BACK, Told.HELD_A_DAY})
"""The lines that ping the player: their clock runs again."""

_TOLD = {BackLine.BACK: Told.BACK, BackLine.HELD_A_DAY: Told.HELD_A_DAY}
"""The line told for each line a hold owes once it gave the time back."""

_LINE_CODES: dict[ShutOut | Told, str] = {
    ShutOut.TIMED_OUT: "t",
    ShutOut.CANNOT_SEE: "s",
    Told.BACK: "b",
    Told.HELD_A_DAY: "d",
    Told.HELD_ONCE: "o",
}
"""A letter for each line of a player's clock, in its nonce."""


def line_nonce(turn: tuple[int, int, int], line: ShutOut | Told) -> str:
    """The nonce of ``line`` of a player's clock at ``turn``: the set, its ply, and how many
    moves were taken back in it so far (``SetRow.undone``), as a takeback brings a ply back
    and begins a new turn there, which may be held again within the few minutes Discord keeps
    a nonce (a move is held once a turn). Each line is posted at most once a turn, so the
    nonce names that line alone. At most 25 characters, as Discord takes: each number is cut
    to its last digits (as a board's nonce is), which no two turns a few minutes apart share."""
    set_id, ply, undone = turn
    return f"clock.{set_id % 10**9}.{ply % 10**4}.{undone % 10**3}{_LINE_CODES[line]}"


def held_text(
    lang: Language, player_id: int, line: ShutOut | Told, deadline: datetime | None
) -> str:
    """The public line ``line`` of ``player_id``'s clock: held (why), running again until
    ``deadline``, or not held again."""
    player = f"<@{player_id}>"
    if line is ShutOut.TIMED_OUT:
        return lang._(
            "{player}'s clock is held: a moderator timed them out, so they cannot play. It "
            "runs again, with their whole time for this move, once the timeout ends (a clock "
            "is held at most a day).",
            player=player,
        )
    if line is ShutOut.CANNOT_SEE:
        return lang._(
            "{player}'s clock is held: they can no longer see this channel, so they cannot "
            "play. It runs again, with their whole time for this move, once they can (a clock "
            "is held at most a day).",
            player=player,
        )
    if line is Told.HELD_ONCE:
        return lang._(
            "{player}'s time for this move has run out: they cannot play here, but a clock is "
            "held only once a move.",
            player=player,
        )
    assert deadline is not None
    runs_out = f"<t:{int(deadline.timestamp())}:R>"
    if line is Told.HELD_A_DAY:
        return lang._(
            "{player}'s clock runs again, as a clock is held at most a day: their time for "
            "this move runs out {deadline}.",
            player=player,
            deadline=runs_out,
        )
    return lang._(
        "{player} can play again: their clock runs, and their time for this move runs out "
        "{deadline}.",
        player=player,
        deadline=runs_out,
    )
