"""The values the services hand out: frozen dataclasses, UTC datetimes, timedeltas, engine enums.

Ids are Discord snowflakes (``int``). An :class:`ActiveGame` carries its own rebuilt engine
:class:`~engine.Game` (a private copy: the caller may look at it, render it, even play on it,
without touching the database or the services' cache).
"""

from __future__ import annotations

import enum
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.ratings import PROVISIONAL_DEVIATION
from engine import Game, MatchReason, MatchResult, MoveRecord, Outcome, Reason, Side
from renderer.rating_course import RatedSet

Place = tuple[int, int | None]
"""Where a set is played: its channel (or thread) id, and for a thread the bot started from a
challenge, the id of the channel that thread is in (else None)."""


class Unshown(enum.Enum):
    """Why the games of a place are not given out where they are asked for (each has its own
    sentence: :func:`bot.services.records.check_shown`)."""

    PRIVATE = "private"
    """@everyone cannot see it (or it is a private thread): its games are given out inside."""
    DELETED = "deleted"
    """Discord no longer knows it (404 Unknown Channel): nobody can tell who could see it."""
    OUT_OF_SIGHT = "out of sight"
    """Discord refuses the bot a look at it (403 Missing Access)."""
    UNANSWERED = "unanswered"
    """Discord could not say what it is just now."""
    UNKNOWN_KIND = "unknown kind"
    """Discord showed it as a kind of channel discord.py does not know (a type newer than it):
    nobody here can tell who sees it."""


HiddenPlaces = Mapping[int, Unshown]
"""Channels and threads whose games are not given out where asked, each with why."""

DEFAULT_RULESET = "brandubh"
DEFAULT_TIME_PER_MOVE = timedelta(hours=24)
CHALLENGE_LIFETIME = timedelta(minutes=10)
MAX_OPEN_CHALLENGES = 5
"""How many challenges one member may have open at once."""
MAX_COMPUTER_MATCHES = 5
"""How many matches against the computer one member may play at once in a server (each has a
thread of its own, and each of the computer's moves a search)."""
MAX_MEMBER_MATCHES = 20
"""How many matches against members one member may play at once in a server (each accepted
challenge opens a public thread, and Discord caps a server's active threads)."""
THREAD_GRACE = timedelta(minutes=10)
"""How long a finished match's thread stays open for late replies before it is archived."""
TAKEBACK_LIFETIME = timedelta(minutes=10)
"""How long a takeback request waits for the opponent's answer."""
MIN_TIME_PER_MOVE = timedelta(minutes=1)
MAX_TIME_PER_MOVE = timedelta(days=14)
LAST_REMINDER_FROM = timedelta(hours=1)
"""The time per move from which a player is also reminded shortly before it runs out (with
less, the half-time reminder is enough: two would come within minutes of each other)."""
LAST_REMINDER_SHARE = 10
LAST_REMINDER_AT_MOST = timedelta(hours=1)
"""The last reminder comes when a tenth of the time per move is left, or an hour, whichever
is less: from 6 minutes before the deadline (1 hour per move) to 1 hour (10 hours or more)."""
COMPUTER_LEVELS = range(1, 6)


@dataclass(frozen=True)
class GuildSettings:
    """A server's settings; a server never configured gets the defaults."""

    guild_id: int
    default_ruleset: str = DEFAULT_RULESET
    time_per_move: timedelta = DEFAULT_TIME_PER_MOVE
    allowed_channel_ids: frozenset[int] = frozenset()
    """Channels where games may be played; empty means every channel."""
    threads: bool = True
    """Whether an accepted challenge opens a thread for its game (else the channel hosts it)."""
    language: str | None = None
    """The language tag of the server's public messages (``pt_BR``, ``de``) chosen with
    ``/settings language:``; ``None`` follows the server's own language in Discord."""
    open_challenge_role_id: int | None = None
    """The role a challenge open to anyone pings (``/settings open_challenge_role:``)."""

    def allows(self, channel_id: int, thread_of: int | None = None) -> bool:
        """Whether a game may be played in ``channel_id`` (``thread_of``: it is a thread of
        that channel, allowed when its channel is)."""
        if not self.allowed_channel_ids:
            return True
        return channel_id in self.allowed_channel_ids or thread_of in self.allowed_channel_ids


class ChallengeStatus(enum.Enum):
    """Where a challenge stands."""

    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"


@dataclass(frozen=True)
class Challenge:
    """A challenge from one member to another (or to anyone in the channel), waiting for an
    answer until ``expires_at``."""

    challenge_id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None
    """None: open to anyone but the challenger, until someone accepts it (who becomes it)."""
    ruleset: str
    sets_total: int
    challenger_side: Side
    """The challenger's side in set 1 (sides swap in set 2)."""
    time_per_move: timedelta
    created_at: datetime
    expires_at: datetime
    status: ChallengeStatus = ChallengeStatus.OPEN
    message_id: int | None = None
    """The bot's message showing the challenge, once the bot has told the services."""


@dataclass(frozen=True)
class OwedBoard:
    """The board of a position as the move, takeback or match's start that stored it owed it
    to the outbox, read in the same transaction: what tells it from a board owed anew at its
    ply since (the set's end there: an abort, a resignation, time), as storage's
    ``announcements._same`` does, and the nonce the outbox posts it with."""

    created_us: int
    owed_anew: int
    nonce: str

    @property
    def same(self) -> tuple[int, int]:
        """What tells it from a board owed anew at its ply (when, and how many before it)."""
        return self.created_us, self.owed_anew


@dataclass(frozen=True)
class ActiveGame:
    """One set of a match, as it stands; ``game`` is the position rebuilt from the move list."""

    set_id: int
    match_id: int
    guild_id: int
    channel_id: int
    set_number: int
    sets_total: int
    ruleset: str
    attacker_id: int
    defender_id: int
    time_per_move: timedelta
    deadline: datetime
    """When the player to move loses on time (recomputed on every move)."""
    reminder_at: datetime
    """Half-time: when the player to move is reminded."""
    started_at: datetime
    computer_id: int | None = None
    """The bot's own user id when one player is the computer."""
    computer_level: int | None = None
    parent_channel_id: int | None = None
    """For a match played in a thread: the channel its challenge was posted in."""
    line_message_id: int | None = None
    """For a match played in a thread: the challenge message, now a line linking the thread."""
    undone: int = 0
    """How many moves were taken back in this set so far: with :attr:`ply` it names the
    position as stored, which a takeback and a new move back to the same ply change too, so a
    board or a Takeback button made for it is told from one made before the takeback."""
    game: Game = field(default_factory=Game, compare=False, repr=False)
    owed: OwedBoard | None = field(default=None, compare=False, repr=False)
    """Its board as owed, when a move, a takeback or a match's start just stored this
    position: it is posted with its nonce, and marked out only while it is the board owed, so
    a board owed anew at its ply since (the set's end there) keeps its own nonce and stays
    owed. None: the board owed now (read when posted, marked out whatever it is)."""

    @property
    def ply(self) -> int:
        """How many moves of both sides have been played in this set."""
        return self.game.ply

    @property
    def moves_stamp(self) -> str:
        """Eight hex digits standing for the moves played so far: a button made for one
        position is refused on another reached at the same ply (after a takeback)."""
        return moves_stamp(self.game)

    @property
    def to_move(self) -> Side:
        """The side to move."""
        return self.game.to_move

    @property
    def player_to_move(self) -> int:
        """The user id of the player whose turn it is."""
        return self.player_of(self.game.to_move)

    @property
    def is_over(self) -> bool:
        """Whether this set has ended (only in a finished SetEnd's ``game``)."""
        return self.game.outcome is not None

    @property
    def computer_to_move(self) -> bool:
        """Whether the computer is to move."""
        return self.computer_id is not None and self.player_to_move == self.computer_id

    @property
    def player_ids(self) -> tuple[int, int]:
        """(attacker id, defender id)."""
        return (self.attacker_id, self.defender_id)

    @property
    def players_in_match_order(self) -> tuple[int, int]:
        """Both players in the same order in every set of the match: set 1's attacker first
        (the sides swap from set to set)."""
        if self.set_number % 2 == 1:
            return (self.attacker_id, self.defender_id)
        return (self.defender_id, self.attacker_id)

    def player_of(self, side: Side) -> int:
        """The user id playing ``side``."""
        return self.attacker_id if side is Side.ATTACKERS else self.defender_id

    def side_of(self, user_id: int) -> Side | None:
        """The side ``user_id`` plays, or ``None`` for a spectator."""
        if user_id == self.attacker_id:
            return Side.ATTACKERS
        if user_id == self.defender_id:
            return Side.DEFENDERS
        return None


@dataclass(frozen=True)
class RatingChange:
    """One player's Glicko-2 rating before and after a rated game."""

    user_id: int
    rating_before: float
    rating_after: float
    deviation_before: float
    deviation_after: float

    @property
    def delta(self) -> float:
        """How much the rating moved (positive: it went up)."""
        return self.rating_after - self.rating_before


@dataclass(frozen=True)
class SetSummary:
    """A finished set of a match."""

    set_id: int
    set_number: int
    attacker_id: int
    defender_id: int
    outcome: Outcome
    winner_id: int | None
    moves: int
    """Moves of both sides (plies), as docs/rules.md §11 counts them."""
    left_server: bool = False
    """Lost by a player who had left the server (recorded as lost on time)."""


@dataclass(frozen=True)
class MatchEnd:
    """A match settled per docs/rules.md §11 (``winner_id`` None: a drawn or aborted match)."""

    match_id: int
    player_ids: tuple[int, int]
    """(challenger or human, opponent or computer)."""
    winner_id: int | None
    reason: MatchReason | None
    """How §11 decided it; ``None`` for an aborted match."""
    result: MatchResult[int] | None
    """engine.score_match's result; ``None`` for an aborted match."""
    sets: tuple[SetSummary, ...]
    aborted: bool = False
    rated: bool = True

    @property
    def forfeited_by(self) -> int | None:
        """The player who left the server, when that decided the match at one set each: the
        winner's set was lost by them as on time (maybe without a move), so it was "won in
        fewer moves" only because they left (docs/rules.md §11)."""
        if self.reason is not MatchReason.FEWER_MOVES or self.winner_id is None:
            return None
        for each in self.sets:
            if each.winner_id == self.winner_id and each.left_server:
                return next(p for p in self.player_ids if p != self.winner_id)
        return None


@dataclass(frozen=True)
class SetEnd:
    """A set that has just ended, what follows it, and the rating changes it caused."""

    game: ActiveGame
    """The finished set (its ``game.game.outcome`` is set)."""
    outcome: Outcome
    winner_id: int | None
    loser_id: int | None
    moves: int
    """Moves of both sides played in the set."""
    next_game: ActiveGame | None = None
    """The next set (sides swapped) if the match goes on."""
    match_end: MatchEnd | None = None
    """The match result if this was the match's last set."""
    rating_changes: tuple[RatingChange, ...] = ()
    """Empty for unrated games (computer, aborted)."""
    left_server: bool = False
    """The loser had left the server: the set was lost for it as on time (docs/rules.md §11)."""
    walkover: SetEnd | None = None
    """The match's next set, not played: lost at once, without a move, by a player who had
    left the server (docs/rules.md §11). Its end, with the match's result, replaces the start
    of that set (``next_game`` is then None)."""
    aborted_by: int | None = None
    """The admin who aborted the set (None: not aborted, or by the bot: its channel went)."""

    @property
    def loser_never_moved(self) -> bool:
        """Lost on time or by resignation by a player who never moved: a win for the other
        player all the same (docs/rules.md §11), but unrated."""
        return loser_never_moved(self.outcome.reason, self.outcome.winner, self.moves)


def loser_never_moved(reason: Reason, winner: Side | None, plies: int) -> bool:
    """Whether a set lost on time or by resignation was lost by a player who never moved."""
    if reason not in (Reason.TIMEOUT, Reason.RESIGNED) or winner is None:
        return False
    loser_moves = (plies + 1) // 2 if winner is Side.DEFENDERS else plies // 2
    return loser_moves == 0


@dataclass(frozen=True)
class MoveResult:
    """An accepted move: its record, the game after it, and the set's end if it ended it."""

    record: MoveRecord
    game: ActiveGame
    set_end: SetEnd | None = None


@dataclass(frozen=True)
class Standing:
    """One row of a server's leaderboard."""

    rank: int
    user_id: int
    display_name: str | None
    """``None``: the bot was never told the name (shown as "a player")."""
    rating: float
    deviation: float
    games: int
    wins: int
    losses: int
    draws: int
    matches_won: int
    username: str | None = None
    """The account's username: it follows the name when another line reads alike."""


@dataclass(frozen=True)
class StandingKey:
    """Where a row stands in the leaderboard's order: established ratings before provisional
    ones, then the higher rating, then the lower user id (no two rows share one). A page turned
    from a row starts strictly after (or ends strictly before) it, so a rating that changed
    between two presses neither repeats a player nor skips one."""

    provisional: bool
    rating: float
    """The rating exactly as stored (``repr`` round-trips it)."""
    user_id: int

    @classmethod
    def of(cls, row: Standing) -> StandingKey:
        """The key of a row as it was shown."""
        return cls(row.deviation > PROVISIONAL_DEVIATION, row.rating, row.user_id)


@dataclass(frozen=True)
class LeaderboardPage:
    """A page of a server's leaderboard; ``total`` is the number of rated players."""

    guild_id: int
    offset: int
    limit: int
    total: int
    rows: tuple[Standing, ...]
    ruleset: str = DEFAULT_RULESET
    """The pool: every ruleset has its own ratings."""
    viewer_id: int | None = None
    """Who asked for the list (its buttons keep their line), if anyone."""
    viewer: Standing | None = None
    """The viewer's line when it is not on the page (None: on it, or not rated in the pool)."""


class TakebackStatus(enum.Enum):
    """Where a takeback request stands."""

    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    LAPSED = "lapsed"


@dataclass(frozen=True)
class Takeback:
    """A player's request to take their last move back, waiting for the opponent."""

    takeback_id: int
    set_id: int
    channel_id: int | None
    """Where the game is played (unknown for a request read back to lapse it)."""
    guild_id: int | None
    """The game's server, whose language its message is in (unknown where ``channel_id`` is)."""
    ply: int
    """The game's ply when asked: the request lapses once the game is at another."""
    asked_by: int
    expires_at: datetime
    message_id: int | None
    asked_before: bool = False
    """The same move was asked back before and the request lapsed unanswered: the opponent
    was pinged then, so this one does not ping them again."""
    asked_of: int | None = None
    """The opponent asked to answer (known for a request just asked)."""
    move: str | None = None
    """The move asked back, as written ("d1-b1"; known for a request just asked)."""


@dataclass(frozen=True)
class MatchTerms:
    """What a finished match was played with: all a rematch needs."""

    match_id: int
    guild_id: int
    channel_id: int
    parent_channel_id: int | None
    line_message_id: int | None
    """The message in the parent channel that links the match's thread."""
    player1_id: int
    player2_id: int
    player1_side: Side
    """Player 1's side in set 1."""
    ruleset: str
    sets_total: int
    time_per_move: timedelta
    computer_id: int | None
    computer_level: int | None
    finished: bool
    """Over with a result: only such a match shows a Rematch button (not one still being
    played, nor one an admin aborted)."""

    @property
    def player_ids(self) -> tuple[int, int]:
        """Both players."""
        return self.player1_id, self.player2_id


def last_page(offset: int, total: int, limit: int) -> int:
    """``offset``, or that of the last page when the list has shrunk below it (a page turned
    after games ended): a page past the end would look like an empty list."""
    if total and offset >= total:
        return (total - 1) // limit * limit
    return offset


@dataclass(frozen=True)
class GameInProgress:
    """A set being played, as /games lists it."""

    set_id: int
    match_id: int
    channel_id: int
    ruleset: str
    set_number: int
    sets_total: int
    attacker_id: int
    defender_id: int
    ply: int
    """Moves of both sides played so far in the set."""
    to_move_id: int
    computer_id: int | None
    computer_level: int | None
    parent_channel_id: int | None = None
    """For a set played in a thread: the channel the thread is in."""


@dataclass(frozen=True)
class WaitingChallenges:
    """The server's challenges open to anyone, as /games lists them: a few (the oldest, or a
    page of the whole list), and how many there are in all."""

    challenges: tuple[Challenge, ...]
    total: int
    offset: int = 0
    """How many come before the first of :attr:`challenges`."""


@dataclass(frozen=True)
class GamesPage:
    """A page of a server's games in progress (``player_id``: only that player's)."""

    guild_id: int
    player_id: int | None
    offset: int
    limit: int
    total: int
    games: tuple[GameInProgress, ...]


@dataclass(frozen=True)
class GameSummary:
    """A finished (or aborted) set, for stats and history lists."""

    set_id: int
    match_id: int
    set_number: int
    ruleset: str
    attacker_id: int
    defender_id: int
    outcome: Outcome | None
    winner_id: int | None
    moves: int
    started_at: datetime
    finished_at: datetime | None
    rated: bool
    computer_id: int | None = None
    computer_level: int | None = None
    no_show: bool = False
    """Lost on time or by resignation by a player who never moved: a win all the same, but
    unrated."""
    left_server: bool = False
    """Lost by a player who had left the server (recorded as lost on time)."""


@dataclass(frozen=True)
class PlayerStats:
    """A player's rating and record in one server, and their recent games."""

    guild_id: int
    user_id: int
    display_name: str | None
    """Their stored name as shown in the server; ``None`` if the bot never learnt it (the
    caller names them in its reader's language, "a player")."""
    standing: Standing | None
    """``None`` until the player has finished a rated game."""
    recent_games: tuple[GameSummary, ...]
    ruleset: str = DEFAULT_RULESET
    """The pool ``standing`` is from."""
    names: Mapping[int, str] = field(default_factory=dict)
    """The stored names of the players of ``recent_games``, as shown in the server: an
    opponent who left it is named all the same (Discord shows a mention of a member it cannot
    find as ``<@123…>``)."""
    usernames: Mapping[int, str] = field(default_factory=dict)
    """The stored usernames of those players (none for one stored before usernames were):
    they tell apart two named alike."""
    course: tuple[RatedSet, ...] = ()
    """The rating after each of their last (up to 100) rated sets in the pool, oldest first."""
    rated_sets: int = 0
    """How many rated sets they played in the pool (``course`` holds the last of them)."""


@dataclass(frozen=True)
class HeadToHead:
    """Two players' record against each other in one server (rated and computer games aside)."""

    guild_id: int
    player_ids: tuple[int, int]
    games: int
    """The sets played: a set lost by a player who never moved in it (docs/rules.md §11, a
    set not played as they had left included) is counted nowhere, as in a player's record."""
    wins: tuple[int, int]
    draws: int
    matches: int
    matches_won: tuple[int, int]
    """As the leaderboard counts them: a match of sets all lost by a player who never moved in
    them is won by nobody."""


@dataclass(frozen=True)
class MatchExport:
    """A match's sets, each with its own OpenTafl record (OpenTafl opens one game per file)
    and the game to replay."""

    match_id: int
    sets: tuple[GameExport, ...]


@dataclass(frozen=True)
class GameExport:
    """A set's full record in OpenTafl notation and the engine game to replay it."""

    set_id: int
    record: str
    game: Game = field(compare=False, repr=False)
    attacker_name: str = ""
    defender_name: str = ""
    computer_side: Side | None = None
    """The side the computer played, if it played one."""
    set_number: int = 1
    sets_total: int = 1
    left_by: Side | None = None
    """The side whose player had left the server, and so lost the set (recorded as lost on
    time; docs/rules.md §11)."""
    not_played: bool = False
    """Lost before it began, without a move, by the player who had left (``left_by``)."""


def moves_stamp(game: Game) -> str:
    """Eight hex digits standing for ``game``'s moves so far (:attr:`ActiveGame.moves_stamp`)."""
    moves = " ".join(str(record.move) for record in game.records)
    return f"{zlib.crc32(moves.encode()):08x}"
