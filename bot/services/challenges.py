"""Challenges: one member asks another for a match; the answer starts it (or not)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from bot.i18n import _
from bot.services.challenge_lapses import ChallengeLapses, challenge_from_row
from bot.services.clock import Clock
from bot.services.domain import (
    CHALLENGE_LIFETIME,
    MAX_OPEN_CHALLENGES,
    ActiveGame,
    Challenge,
    ChallengeStatus,
    WaitingChallenges,
)
from bot.services.errors import (
    CannotChallengeBot,
    CannotChallengeSelf,
    ChallengeAlreadyOpen,
    ChallengeExpired,
    ChallengeNotFound,
    ChannelNotAllowed,
    ForeignButton,
    NotYourChallenge,
    OpenChallengeWaiting,
    RecentlyDeclined,
    TooManyChallenges,
)
from bot.services.matches import MatchService, check_member_matches
from bot.services.sets import active_game
from bot.services.settings import SettingsService
from bot.services.terms import busy, check_terms
from bot.shards import Shards
from bot.storage import Database, challenges, places, players, sets
from bot.storage.challenges import ChallengeRow
from bot.storage.connection import Connection
from bot.storage.errors import StorageError
from bot.storage.sets import EVERY
from bot.storage.times import duration, duration_us, from_us, to_us
from engine import Side

DECLINE_PAUSE = timedelta(minutes=15)
"""How long a member who declined a challenge is not challenged again by the same member
(each challenge pings them)."""


ROLE_PING_PAUSE = timedelta(minutes=15)
"""How long after one of a member's open challenges pinged the server's role their next ones
go out without pinging it (withdrawing and posting again would ping everyone each time)."""


OPPONENT_PING_PAUSE = timedelta(minutes=15)
"""How long after one of a member's challenges pinged another member their next ones to that
member go out without pinging them (withdrawing and challenging again would ping them each
time; declining stops only the challenges themselves)."""


class ChallengeService(ChallengeLapses):
    """Create, answer, withdraw and expire challenges."""

    def __init__(
        self,
        database: Database,
        clock: Clock,
        settings: SettingsService,
        matches: MatchService,
        shards: Shards = EVERY,
    ) -> None:
        self._shards = shards
        self._database = database
        self._clock = clock
        self._settings = settings
        self._matches = matches

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        *,
        ruleset: str | None = None,
        sets_total: int = 2,
        challenger_side: Side = Side.ATTACKERS,
        time_per_move: timedelta | None = None,
        opponent_is_bot: bool = False,
        plays_here: bool = False,
        thread_of: int | None = None,
        threads_here: bool = True,
        rematch: bool = False,
        names: Mapping[int, str] | None = None,
        stored: Callable[[int], None] | None = None,
    ) -> Challenge:
        """Open a challenge that expires 10 minutes from now and return it; with
        ``opponent_id`` None it is open to anyone in the channel but the challenger.
        ``names``: the account names the caller has of the two (by id), stored with them (a
        player the bot never saw is then never named by an id).
        ``plays_here``: its game could have no thread of its own even with threads on (the
        channel is a thread, or the bot may not start threads there). ``thread_of``: the
        channel is a thread of that channel, whose allowance counts. ``threads_here``: a
        member's thread could host a game (the busy channel's refusal suggests one).
        ``rematch``: it is a match's Rematch (a refusal says to ask for it again).
        ``stored``: called with the new challenge's id before it is committed, so before anyone
        else can read it (the caller notes it as its own, its post under way).

        ``ruleset`` and ``time_per_move`` default to the server's settings. Raises
        CannotChallengeSelf, CannotChallengeBot (``opponent_is_bot``), ChannelNotAllowed,
        ChannelBusy (a game is in progress in the channel), TooManyChallenges, TooManyMatches
        (the challenger, or else ``opponent_id``, already plays MAX_MEMBER_MATCHES against
        members in the server: nothing is stored, and nobody is pinged for nothing),
        ChallengeAlreadyOpen (one between the two members already), OpenChallengeWaiting (the
        challenger's open one), InvalidOption (ruleset, sets not 1 or 2, time per move).
        """
        if challenger_id == opponent_id:
            raise CannotChallengeSelf()
        if opponent_is_bot:
            raise CannotChallengeBot()
        settings = await self._settings.get(guild_id)
        name, per_move = check_terms(
            settings, channel_id, ruleset, time_per_move, sets_total, thread_of=thread_of
        )
        now = self._clock()
        async with self._database.transaction() as db:
            # With threads on, the game will not be played in this channel: it may be busy.
            if not settings.threads or plays_here:
                playing = await sets.active_in_channel(db, channel_id)
                if playing is not None:
                    raise busy(playing, threads=settings.threads, threads_here=threads_here)
            # Counted under a lock on the challenger, held until the insert commits: two
            # challenges at once (to two members) cannot both pass the limit on PostgreSQL.
            await db.lock(f"challenges:{challenger_id}:open")
            if await challenges.open_count(db, challenger_id, to_us(now)) >= MAX_OPEN_CHALLENGES:
                held = await challenges.open_of(db, challenger_id, to_us(now))
                raise TooManyChallenges(
                    MAX_OPEN_CHALLENGES, tuple(challenge_from_row(row) for row in held)
                )
            # A member named who could not accept it now is not pinged for it.
            named = () if opponent_id is None else (opponent_id,)
            await check_member_matches(
                db, guild_id, challenger_id, *named, challenging=True, rematch=rematch
            )
            if opponent_id is None:
                await self._check_no_open_to_anyone(db, guild_id, challenger_id, to_us(now))
            else:
                await self._check_none_between(db, guild_id, challenger_id, opponent_id, to_us(now))
                declined = await challenges.declined_since(
                    db, guild_id, challenger_id, opponent_id, to_us(now - DECLINE_PAUSE)
                )
                if declined is not None:
                    raise RecentlyDeclined(opponent_id, from_us(declined) + DECLINE_PAUSE)
            for user_id in (challenger_id, opponent_id):
                if user_id is not None:
                    await players.ensure(db, user_id, now, (names or {}).get(user_id))
            challenge_id = await challenges.insert(
                db,
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=challenger_id,
                opponent_id=opponent_id,
                ruleset=name,
                sets_total=sets_total,
                challenger_side=challenger_side.value,
                time_per_move_us=duration_us(per_move),
                created_us=to_us(now),
                expires_us=to_us(now + CHALLENGE_LIFETIME),
            )
            if stored is not None:
                stored(challenge_id)
            row = await challenges.get(db, challenge_id)
        assert row is not None
        return challenge_from_row(row)

    @staticmethod
    async def _check_none_between(
        db: Connection, guild_id: int, challenger_id: int, opponent_id: int, now_us: int
    ) -> None:
        """One open challenge between two members: checked (and then stored, in the caller's
        transaction) under a lock on the pair, so two at once (a double press of Rematch, or
        each challenging the other) cannot both pass on PostgreSQL either."""
        pair = sorted((challenger_id, opponent_id))
        await db.lock(f"challenges:{guild_id}:{pair[0]}:{pair[1]}")
        earlier = await challenges.open_between(db, guild_id, challenger_id, opponent_id, now_us)
        if earlier is not None:
            assert earlier.opponent_id is not None
            raise ChallengeAlreadyOpen(
                earlier.challenger_id,
                earlier.opponent_id,
                _where(earlier),
                yours=earlier.challenger_id == challenger_id,
                earlier=challenge_from_row(earlier),
            )

    @staticmethod
    async def _check_no_open_to_anyone(
        db: Connection, guild_id: int, challenger_id: int, now_us: int
    ) -> None:
        """One challenge open to anyone per member and server (checked under a lock, as the
        pairs are): a second would only ask the channel the same thing twice."""
        await db.lock(f"challenges:{guild_id}:{challenger_id}:anyone")
        earlier = await challenges.open_to_anyone(db, guild_id, challenger_id, now_us)
        if earlier is not None:
            raise OpenChallengeWaiting(_where(earlier), earlier=challenge_from_row(earlier))

    async def get(self, challenge_id: int) -> Challenge:
        """The challenge with this id in whatever state it is. Raises ChallengeNotFound."""
        async with self._database.snapshot() as db:
            row = await challenges.get(db, challenge_id)
        if row is None:
            raise ChallengeNotFound()
        return challenge_from_row(row)

    async def of_match(self, match_id: int) -> Challenge | None:
        """The challenge whose acceptance started match ``match_id``; None if none did."""
        async with self._database.snapshot() as db:
            row = await challenges.of_match(db, match_id)
        return None if row is None else challenge_from_row(row)

    async def accepted_match(self, challenge_id: int, user_id: int) -> int | None:
        """The match that ``user_id`` started by accepting challenge ``challenge_id``; None if
        they did not accept it (it is open, or someone else took it, or it closed unanswered)."""
        async with self._database.snapshot() as db:
            row = await challenges.get(db, challenge_id)
        if row is None or row.status != ChallengeStatus.ACCEPTED.value:
            return None
        return row.match_id if row.opponent_id == user_id else None

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the bot's message that shows the challenge (to edit it on expiry).

        Raises ChallengeNotFound.
        """
        async with self._database.transaction() as db:
            found = await challenges.set_message(db, challenge_id, message_id)
        if not found:
            raise ChallengeNotFound()

    async def claim_role_ping(self, challenge_id: int) -> datetime | None:
        """Claim the server's role ping for the challenge's post, before it is posted: None
        when claimed (the post pings the role), else until when its challenger's open
        challenges do not ping it (one of theirs pinged it less than 15 minutes ago). Two
        claims at once, here or in another process, cannot both succeed.

        Raises ChallengeNotFound."""
        now = self._clock()
        since = to_us(now - ROLE_PING_PAUSE)
        async with self._database.transaction() as db:
            row = await challenges.get(db, challenge_id)
            if row is None:
                raise ChallengeNotFound()
            await db.lock(f"challenges:{row.guild_id}:{row.challenger_id}:role-ping")
            if await challenges.claim_role_ping(db, challenge_id, to_us(now), since):
                return None
            pinged = await challenges.role_pinged_since(db, row.guild_id, row.challenger_id, since)
        return (now if pinged is None else from_us(pinged)) + ROLE_PING_PAUSE

    async def claim_opponent_ping(self, challenge_id: int) -> datetime | None:
        """Claim the ping of the challenge's opponent for its post, before it is posted: None
        when claimed (the post pings them), else until when its challenger's challenges to
        them do not ping them (one not accepted pinged them less than 15 minutes ago:
        withdrawing and challenging again would ping them each time; after a match, a
        rematch pings). Two claims at once, here or in another process, cannot both succeed.

        Raises ChallengeNotFound."""
        now = self._clock()
        since = to_us(now - OPPONENT_PING_PAUSE)
        async with self._database.transaction() as db:
            row = await challenges.get(db, challenge_id)
            if row is None or row.opponent_id is None:
                raise ChallengeNotFound()
            pair = sorted((row.challenger_id, row.opponent_id))
            await db.lock(f"challenges:{row.guild_id}:{pair[0]}:{pair[1]}:ping")
            if await challenges.claim_opponent_ping(db, challenge_id, to_us(now), since):
                return None
            pinged = await challenges.opponent_pinged_since(
                db, row.guild_id, row.challenger_id, row.opponent_id, since
            )
        return (now if pinged is None else from_us(pinged)) + OPPONENT_PING_PAUSE

    async def check_accept(
        self,
        challenge_id: int,
        user_id: int,
        *,
        thread_of: int | None = None,
        pressed_on: tuple[int, int] | None = None,
    ) -> Challenge:
        """The challenge, if ``user_id`` may accept it now (before a thread is made for it);
        one open to anyone comes back with ``user_id`` as its opponent. ``thread_of``: the
        challenge is in a thread of that channel, whose allowance counts. ``pressed_on``: the
        channel and message the press came from, which must be the challenge's own.

        Raises ForeignButton (``pressed_on`` is not the challenge's message), ChallengeNotFound
        (not open), NotYourChallenge (not the opponent, or the challenger of one open to
        anyone), ChallengeExpired (past its expiry; it is marked expired), ChannelNotAllowed,
        TooManyMatches (``user_id``, or else the challenger, already plays MAX_MEMBER_MATCHES
        against members in the server: the challenge stays open, to be accepted once they
        have finished one, or to expire).
        """
        row = await self._open(challenge_id, pressed_on)
        return await self._check_accept(row, user_id, thread_of)

    async def _check_accept(
        self, row: ChallengeRow, user_id: int, thread_of: int | None = None
    ) -> Challenge:
        """:meth:`check_accept` of the open challenge ``row``."""
        if row.opponent_id is None:
            if user_id == row.challenger_id:
                raise NotYourChallenge(
                    _(
                        "You cannot accept your own challenge: withdraw it if you no longer "
                        "want to play."
                    )
                )
        elif user_id != row.opponent_id:
            raise _not_the_opponent(row, user_id)
        now = self._clock()
        if to_us(now) >= row.expires_us:
            async with self._database.transaction() as db:
                await challenges.close(
                    db, row.challenge_id, ChallengeStatus.EXPIRED.value, now_us=to_us(now)
                )
            raise ChallengeExpired()
        settings = await self._settings.get(row.guild_id)
        if not settings.allows(row.channel_id, thread_of):
            raise ChannelNotAllowed(settings.allowed_channel_ids)
        async with self._database.snapshot() as db:
            await check_member_matches(db, row.guild_id, user_id, row.challenger_id)
        return replace(challenge_from_row(row), opponent_id=user_id)

    async def accept(
        self,
        challenge_id: int,
        user_id: int,
        *,
        thread_id: int | None = None,
        thread_of: int | None = None,
        threads_here: bool = True,
        account_name: str | None = None,
    ) -> ActiveGame:
        """The opponent accepts (anyone but the challenger, for one open to anyone, who becomes
        its opponent): the match starts and its first set is returned. ``account_name``: the
        name the caller has of ``user_id``'s account, stored with them.

        With ``thread_id`` the match is played in that thread (started from the challenge
        message); without, in the challenge's channel (``thread_of``: as for
        :meth:`check_accept`). Raises what :meth:`check_accept` raises, and ChannelBusy (a game
        started in the channel meanwhile) in the words :meth:`create` would use there
        (``threads_here``: the opponent could start a thread there and play in it).
        """
        try:
            return await self._start(
                challenge_id, user_id, thread_id, thread_of, threads_here, account_name
            )
        except ChallengeNotFound:
            await self._expired_meanwhile(challenge_id)
            raise

    async def _start(
        self,
        challenge_id: int,
        user_id: int,
        thread_id: int | None,
        thread_of: int | None,
        threads_here: bool,
        account_name: str | None,
    ) -> ActiveGame:
        """:meth:`accept`, but a challenge closed meanwhile is ChallengeNotFound whatever
        closed it."""
        row = await self._open(challenge_id)
        await self._check_accept(row, user_id, thread_of)
        settings = await self._settings.get(row.guild_id)
        async with self._database.transaction() as db:
            await players.ensure(db, user_id, self._clock(), account_name)
            # Claim the challenge first: of two Accepts racing (a double click, or two members
            # taking one open to anyone), the second waits on this row and then finds it
            # closed, on either backend.
            if not await challenges.claim(db, challenge_id, user_id, now_us=to_us(self._clock())):
                raise ChallengeNotFound()  # answered meanwhile
            # Counted again as stored: accepts at once must not pass the limit together (the
            # refusal rolls the claim back, so the challenge stays open).
            await check_member_matches(db, row.guild_id, user_id, row.challenger_id, lock=True)
            game = await self._matches.start_match(
                db,
                guild_id=row.guild_id,
                channel_id=row.channel_id if thread_id is None else thread_id,
                player1_id=row.challenger_id,
                player2_id=user_id,
                player1_side=Side(row.challenger_side),
                ruleset=row.ruleset,
                sets_total=row.sets_total,
                time_per_move=duration(row.time_per_move_us),
                threads=settings.threads,
                threads_here=threads_here,
            )
            await challenges.set_match(db, challenge_id, game.match_id)
            if thread_id is not None and row.message_id is not None:
                await places.set_thread(db, game.match_id, row.channel_id, row.message_id)
                reloaded = await sets.by_id(db, game.set_id)
                assert reloaded is not None
                game = replace(active_game(reloaded, game.game), owed=game.owed)
        return game

    async def decline(
        self, challenge_id: int, user_id: int, *, pressed_on: tuple[int, int] | None = None
    ) -> Challenge:
        """The opponent declines; returns the closed challenge. ``pressed_on``: as for
        :meth:`check_accept`.

        Raises ForeignButton, ChallengeNotFound, NotYourChallenge.
        """
        try:
            row = await self._open(challenge_id, pressed_on)
        except ChallengeNotFound:
            await self._answered_by(challenge_id, user_id, ChallengeStatus.DECLINED)
            raise
        if user_id != row.opponent_id:
            raise _not_the_opponent(row, user_id)
        try:
            return await self._close(challenge_id, ChallengeStatus.DECLINED)
        except ChallengeNotFound:
            await self._answered_by(challenge_id, user_id, ChallengeStatus.DECLINED)
            raise

    async def withdraw(
        self, challenge_id: int, user_id: int, *, pressed_on: tuple[int, int] | None = None
    ) -> Challenge:
        """The challenger takes the challenge back; returns the closed challenge.
        ``pressed_on``: as for :meth:`check_accept`.

        Raises ForeignButton, ChallengeNotFound, NotYourChallenge (not the challenger).
        """
        try:
            row = await self._open(challenge_id, pressed_on)
        except ChallengeNotFound:
            await self._answered_by(challenge_id, user_id, ChallengeStatus.WITHDRAWN)
            raise
        if user_id != row.challenger_id:
            raise NotYourChallenge(_("Only the challenger can withdraw this challenge."))
        try:
            return await self._close(challenge_id, ChallengeStatus.WITHDRAWN)
        except ChallengeNotFound:
            await self._answered_by(challenge_id, user_id, ChallengeStatus.WITHDRAWN)
            raise

    async def _expired_meanwhile(self, challenge_id: int) -> None:
        """Raise ChallengeExpired if the challenge an Accept found closed was closed by its
        expiry (the sweep reached it while the press was on its way, or its thread was being
        made): it says so, as a press after the expiry does, not only that it is no longer
        open. A challenge that lapsed before its expiry (its channel busy or no longer
        allowed) or was answered keeps that refusal."""
        try:
            async with self._database.snapshot() as db:
                expired = await challenges.expired_on_time(db, challenge_id)
        except StorageError:  # the refusal found is told as it was
            return
        if expired:
            raise ChallengeExpired()

    async def _answered_by(self, challenge_id: int, user_id: int, status: ChallengeStatus) -> None:
        """Raise ChallengeNotFound saying ``user_id`` declined or withdrew the challenge already
        (``status``) if their earlier press did (a double click); else nothing."""
        try:
            async with self._database.snapshot() as db:
                row = await challenges.get(db, challenge_id)
        except StorageError:  # the refusal found is told as it was
            return
        if row is None or row.status != status.value:
            return
        if status is ChallengeStatus.DECLINED and row.opponent_id == user_id:
            raise ChallengeNotFound(_("You declined this challenge already."))
        if status is ChallengeStatus.WITHDRAWN and row.challenger_id == user_id:
            raise ChallengeNotFound(_("You withdrew this challenge already."))

    async def forget_unshown(self, challenge_id: int) -> None:
        """A challenge Discord never showed (its post failed), so nobody can answer it: closed
        as withdrawn, so that it does not hold the two members (one open challenge between
        them) until it expires, and its claims on the role's and the opponent's ping (it
        pinged nobody) given up. Nothing if it is no longer open."""
        async with self._database.transaction() as db:
            if await challenges.close(
                db, challenge_id, ChallengeStatus.WITHDRAWN.value, now_us=to_us(self._clock())
            ):
                await challenges.release_role_ping(db, challenge_id)
                await challenges.release_opponent_ping(db, challenge_id)

    async def challenger_left(self, challenge_id: int) -> None:
        """The challenger left the server: nobody can play them, so the challenge is closed
        as withdrawn. Nothing if it is no longer open."""
        await self._withdraw_for(challenge_id)

    async def message_gone(self, challenge_id: int, message_id: int) -> None:
        """The challenge's message ``message_id`` is gone (a moderator deleted it): nobody can
        accept, decline or withdraw it any more, so it is closed as withdrawn and holds
        neither its members nor its challenger's open one. Its pings stay claimed: it did
        ping. Nothing if it is no longer open, or is shown by another message now."""
        async with self._database.transaction() as db:
            row = await challenges.get(db, challenge_id)
            if row is None or row.message_id != message_id:
                return
            await challenges.close(
                db, challenge_id, ChallengeStatus.WITHDRAWN.value, now_us=to_us(self._clock())
            )

    async def _withdraw_for(self, challenge_id: int) -> None:
        async with self._database.transaction() as db:
            await challenges.close(
                db, challenge_id, ChallengeStatus.WITHDRAWN.value, now_us=to_us(self._clock())
            )

    async def pending(self) -> list[Challenge]:
        """Every open challenge, soonest expiry first (to re-arm expiry after a restart)."""
        async with self._database.snapshot() as db:
            rows = await challenges.open_challenges(db, self._shards)
        return [challenge_from_row(row) for row in rows]

    async def waiting_for_anyone(
        self,
        guild_id: int,
        *,
        challenger_id: int | None = None,
        hidden_channel_ids: frozenset[int] = frozenset(),
        limit: int = 5,
        after: int | None = None,
        before: int | None = None,
    ) -> WaitingChallenges:
        """The server's challenges open to anyone that can be accepted now (posted, not
        expired), ``limit`` of them (the oldest, or those after challenge ``after`` or before
        ``before``) and how many in all: for ``/games``, where members look for a game (only
        ``challenger_id``'s if given; none in ``hidden_channel_ids``)."""
        async with self._database.snapshot() as db:
            total, offset, rows = await challenges.waiting_for_anyone(
                db,
                guild_id,
                to_us(self._clock()),
                limit,
                challenger_id,
                hidden_channel_ids,
                after=after,
                before=before,
            )
        return WaitingChallenges(tuple(challenge_from_row(row) for row in rows), total, offset)

    async def _open(
        self, challenge_id: int, pressed_on: tuple[int, int] | None = None
    ) -> ChallengeRow:
        """The open challenge ``challenge_id``; with ``pressed_on`` (channel, message), only if
        that message shows it (once its message is noted; before, in that channel): a forged
        button naming another challenge must neither answer it nor edit the message pressed."""
        async with self._database.snapshot() as db:
            row = await challenges.get(db, challenge_id)
        if row is not None and pressed_on is not None:
            channel_id, message_id = pressed_on
            if row.channel_id != channel_id or row.message_id not in (None, message_id):
                raise ForeignButton()
        if row is None or row.status != ChallengeStatus.OPEN.value:
            raise ChallengeNotFound()
        return row

    async def _close(self, challenge_id: int, status: ChallengeStatus) -> Challenge:
        async with self._database.transaction() as db:
            if not await challenges.close(
                db, challenge_id, status.value, now_us=to_us(self._clock())
            ):
                raise ChallengeNotFound()
            row = await challenges.get(db, challenge_id)
        assert row is not None
        return challenge_from_row(row)


def _where(row: ChallengeRow) -> str:
    """Where a challenge is shown: a link to its message, else its channel."""
    if row.message_id is None:
        return f"<#{row.channel_id}>"
    return message_link(row.guild_id, row.channel_id, row.message_id)


def message_link(guild_id: int | str, channel_id: int, message_id: int) -> str:
    """Discord's link to a message (it opens the channel at the message); ``guild_id`` is
    ``"@me"`` for a direct message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def _not_the_opponent(row: ChallengeRow, user_id: int) -> NotYourChallenge:
    """The refusal of an Accept or Decline pressed by someone other than the opponent of the
    challenge ``row``; its challenger is told how to take it back instead."""
    if user_id == row.challenger_id:
        return NotYourChallenge(
            _(
                "Only the challenged player can answer this challenge: withdraw it if you no "
                "longer want to play."
            )
        )
    return NotYourChallenge()
