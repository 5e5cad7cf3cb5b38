"""The services' exceptions: each carries one sentence a player (or admin) can read.

The sentence is a :class:`~bot.i18n.text.Text` (a message id and its parameters), so the bot's
single error handler says it in the reader's language when it turns any :class:`GameError` into
an ephemeral reply; ``str()`` is the English sentence. Nothing here ever carries a Python
message. Trouble with the database file is not a refusal: it is the
storage layer's own :class:`~bot.storage.errors.StorageError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from bot.i18n.slash import command
from bot.i18n.text import Listing, Phrase, Text, _, n_, verbatim

if TYPE_CHECKING:
    from bot.services.domain import Challenge, Takeback


class GameError(Exception):
    """Base of every refusal the services make: ``text`` is one player-readable sentence.

    Raise it with ``_("The sentence, with {placeholders}.", placeholders=...)``; a plain ``str``
    is shown as it is in every language (only for sentences that come translated already).
    """

    def __init__(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else verbatim(text)
        super().__init__(str(self.text))

    def __str__(self) -> str:
        return str(self.text)


# ---------------------------------------------------------------- games and moves


class NoGameHere(GameError):
    """There is no game in progress in this channel (or with this id)."""

    def __init__(self, text: Text | None = None) -> None:
        self.nowhere = text is None
        """Whether it says only that no game is here (not, say, that the set just ended):
        then the flow may say instead where the player's own games are."""
        super().__init__(
            text
            or _(
                "There is no game in progress in this channel: {games_command} lists where the "
                "games are.",
                games_command=command("games"),
            )
        )


class BoardOwed(GameError):
    """The move was stored, but its board could not be made or posted just now: the outbox
    posts it, and the game goes on (the move is not to be played again)."""

    def __init__(self, move: str) -> None:
        super().__init__(
            _(
                "Your move {move} is played, but its board could not be posted just now: it "
                "follows shortly.",
                move=move,
            )
        )


class TakenBackBoardOwed(GameError):
    """A takeback against the computer was stored (the player's move and my reply undone),
    but its board could not be made just now (the database failed a read): the outbox posts
    it, and the takeback is not to be asked for again."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "Your move and my reply are taken back, but the board could not be posted just "
                "now: it follows shortly."
            )
        )


class FirstBoardOwed(GameError):
    """The match was stored, but its first board could not be made just now (the database
    failed a read): the outbox posts it, and the match goes on (it is not to be started
    again)."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "The match is on, but its first board could not be posted just now: it "
                "follows shortly."
            )
        )


def set_over(*, one_set: bool) -> NoGameHere:
    """The refusal when the set meant ended meanwhile; a one-set match is one game, with no
    set to speak of."""
    if one_set:
        return NoGameHere(_("That game is over."))
    return NoGameHere(_("That set is already over."))


class NotAPlayer(GameError):
    """The user is not one of the two players of this channel's game."""

    def __init__(self, text: Text = _("You are not playing the game in this channel.")) -> None:
        super().__init__(text)


class NotYourTurn(GameError):
    """A player tried to move while the other side is to move."""

    def __init__(self, to_move_id: int, *, computer: bool = False) -> None:
        if computer:
            super().__init__(_("I am still thinking about my move: wait for my reply."))
        else:
            super().__init__(
                _("It is not your turn: {player} is to move.", player=f"<@{to_move_id}>")
            )
        self.to_move_id = to_move_id


class IllegalMove(GameError):
    """The engine refused the move; the message is the engine's sentence."""


class RepetitionNeedsConfirmation(GameError):
    """The move would make a position occur a third time, which loses: ask to confirm it."""

    def __init__(self, move_text: str, *, set_id: int = 0, ply: int = 0, stamp: str = "") -> None:
        super().__init__(
            _(
                "{move} would make the same position occur for the third time, which loses the "
                "game: confirm if you really want to play it.",
                move=move_text,
            )
        )
        self.move_text = move_text
        self.set_id = set_id
        self.ply = ply
        self.stamp = stamp
        """The set, ply and moves (:func:`~bot.services.domain.moves_stamp`) the warning was
        given on: its confirming button is for them, whatever happened since."""


class StaleGameError(GameError):
    """The game moved on since the move was chosen (another move landed first)."""

    def __init__(
        self,
        text: Text = _(
            "The game changed while your move was on its way: look at the new board and try again."
        ),
    ) -> None:
        super().__init__(text)


class TimeRanOut(StaleGameError):
    """The move came at or after the mover's deadline: the set is lost on time, which the
    timer announces at its next check (a few seconds). A one-set match is one game, with no
    set to speak of. ``opponent``: told to the player waiting (who asked to take their move
    back), whose opponent ran out of time and lost the set."""

    def __init__(self, deadline_us: int, *, one_set: bool = False, opponent: bool = False) -> None:
        when = f"<t:{deadline_us // 1_000_000}:R>"
        if opponent and one_set:
            text = _(
                "Too late: your opponent's time for their move ran out {when}, so you win this "
                "game on time.",
                when=when,
            )
        elif opponent:
            text = _(
                "Too late: your opponent's time for their move ran out {when}, so you win this "
                "set on time.",
                when=when,
            )
        elif one_set:
            text = _(
                "Too late: your time for this move ran out {when}, so this game is lost on time.",
                when=when,
            )
        else:
            text = _(
                "Too late: your time for this move ran out {when}, so this set is lost on time.",
                when=when,
            )
        super().__init__(text)


# ---------------------------------------------------------------- challenges


class OldBoard(GameError):
    """A button was pressed on a board that is no longer the game's newest."""

    def __init__(self, live_board_url: str) -> None:
        super().__init__(
            _("This board is out of date: play on the newest one, {link}", link=live_board_url)
        )


class CannotTakeBack(GameError):
    """A takeback that cannot be asked for or answered now (the sentence says why)."""


class TakebackLapsed(CannotTakeBack):
    """The request was answered after it lapsed (a move was played, or ten minutes passed):
    stored as lapsed; ``takeback`` says which, so its message can say so too."""

    def __init__(self, takeback: Takeback) -> None:
        super().__init__(
            _("That takeback request lapsed: a move was played or ten minutes passed.")
        )
        self.takeback = takeback


class TakebackWaiting(CannotTakeBack):
    """Another request of the game is still open: ``takeback`` is it, and ``moot`` says that
    the game has moved on since it was asked (it lapses at the timers' next check)."""

    def __init__(self, takeback: Takeback, *, moot: bool) -> None:
        super().__init__(_("A takeback is already waiting for an answer in this game."))
        self.takeback = takeback
        self.moot = moot


class ChannelBusy(GameError):
    """The channel already has a game in progress (one game per channel)."""

    IN_THREAD = _(
        "A game is already being played in this thread: challenge from the channel, where each "
        "game gets a thread of its own."
    )
    """The sentence when the channel is a game's thread."""

    NO_THREADS = _(
        "A game is already being played in this channel: start yours in another channel."
    )
    """The sentence where no thread could host another game (the member may not start one,
    or I may not post in threads)."""

    ELSEWHERE = _(
        "A game is already being played in this channel: start yours in another channel or in "
        "a thread."
    )
    """The sentence where a member's thread could host another game (the default)."""

    def __init__(self, text: Text = ELSEWHERE) -> None:
        super().__init__(text)


class TooManyChallenges(GameError):
    """The member already has the most open challenges allowed (``held_by``: them)."""

    def __init__(self, limit: int, held_by: tuple[Challenge, ...] = ()) -> None:
        super().__init__(
            n_(
                "You already have {count} open challenge: wait for an answer, or withdraw it.",
                "You already have {count} open challenges: wait for an answer, or withdraw one.",
                limit,
            )
        )
        self.held_by = held_by


class TooManyComputerMatches(GameError):
    """The member already plays the most matches against the computer allowed at once."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            n_(
                "You are already playing {count} match against me in this server: finish it, "
                "or resign it, first ({games_command} lists it).",
                "You are already playing {count} matches against me in this server: finish "
                "one, or resign it, first ({games_command} lists them).",
                limit,
                games_command=command("games"),
            )
        )


class TooManyMatches(GameError):
    """A member already plays the most matches against members allowed at once in a server:
    ``player_id`` None when it is the member asking, else the other player of the challenge
    (``challenging``: of one not yet made, which would ping them for nothing; ``rematch``:
    that challenge is a Rematch, asked for again rather than made anew)."""

    def __init__(
        self,
        limit: int,
        player_id: int | None = None,
        *,
        challenging: bool = False,
        rematch: bool = False,
    ) -> None:
        if player_id is None:
            text = n_(
                "You are already playing {count} match against a member in this server: finish "
                "it, or resign it, before you start another ({games_command} lists it).",
                "You are already playing {count} matches against members in this server: finish "
                "one, or resign it, before you start another ({games_command} lists them).",
                limit,
                games_command=command("games"),
            )
        elif rematch:
            text = n_(
                "{player} is already playing {count} match against a member in this server: "
                "ask for the rematch again once they finish it ({games_command} lists it).",
                "{player} is already playing {count} matches against members in this server: "
                "ask for the rematch again once they finish one ({games_command} lists them).",
                limit,
                player=f"<@{player_id}>",
                games_command=command("games"),
            )
        elif challenging:
            text = n_(
                "{player} is already playing {count} match against a member in this server: "
                "challenge them once they finish it ({games_command} lists it).",
                "{player} is already playing {count} matches against members in this server: "
                "challenge them once they finish one ({games_command} lists them).",
                limit,
                player=f"<@{player_id}>",
                games_command=command("games"),
            )
        else:
            text = n_(
                "{player} is already playing {count} match against a member in this server: "
                "this challenge can be accepted once they finish it ({games_command} lists it).",
                "{player} is already playing {count} matches against members in this server: "
                "this challenge can be accepted once they finish one ({games_command} lists "
                "them).",
                limit,
                player=f"<@{player_id}>",
                games_command=command("games"),
            )
        super().__init__(text)


class ChallengeHeld(GameError):
    """A refusal because of an ``earlier`` challenge still open: answered on its message, so
    one whose message is gone (a moderator deleted it) holds nothing (the flow checks)."""

    def __init__(self, text: Text, earlier: Challenge | None) -> None:
        super().__init__(text)
        self.held_by = () if earlier is None else (earlier,)


class ChallengeAlreadyOpen(ChallengeHeld):
    """Two members have one open challenge between them at a time (a second one, or a second
    press of Rematch, would ping the opponent again for the same thing)."""

    def __init__(
        self,
        challenger_id: int,
        opponent_id: int,
        where: str,
        *,
        yours: bool,
        earlier: Challenge | None = None,
    ) -> None:
        if yours:
            text = _(
                "Your challenge to {player} is still open ({where}): wait for the answer, or "
                "withdraw it first.",
                player=f"<@{opponent_id}>",
                where=where,
            )
        else:
            text = _(
                "{player} has already challenged you ({where}): accept or decline that one.",
                player=f"<@{challenger_id}>",
                where=where,
            )
        super().__init__(text, earlier)


class RecentlyDeclined(GameError):
    """A member declined the challenger's last challenge a moment ago: challenging them again
    at once would only ping them again."""

    def __init__(self, opponent_id: int, again_at: datetime) -> None:
        super().__init__(
            _(
                "{player} just declined your challenge: you can challenge them again {when}.",
                player=f"<@{opponent_id}>",
                when=f"<t:{int(again_at.timestamp())}:R>",
            )
        )


class OpenChallengeWaiting(ChallengeHeld):
    """A member has one challenge open to anyone at a time (in a server)."""

    def __init__(self, where: str, *, earlier: Challenge | None = None) -> None:
        super().__init__(
            _(
                "Your open challenge is still waiting for someone to accept it ({where}): "
                "withdraw it first to post another.",
                where=where,
            ),
            earlier,
        )


SHOWN_CHANNELS = 15
"""How many channels a message lists by name before it counts the rest: the channels games
are allowed in may be any number, and a message holds 2,000 characters."""


def channel_listing(channels: Sequence[str | Phrase], shown: int = SHOWN_CHANNELS) -> Phrase:
    """``channels`` (mentions such as ``<#123>``, or phrases) separated by commas, the first
    ``shown`` of them named and the rest counted: ``#a, #b and 3 more``."""
    items = tuple(verbatim(each) if isinstance(each, str) else each for each in channels)
    if len(items) <= shown:
        return Listing(items)
    return n_(
        "{channels} and {count} more",
        "{channels} and {count} more",
        len(items) - shown,
        channels=Listing(items[:shown]),
    )


class ChannelNotAllowed(GameError):
    """The server's settings do not allow games in this channel.

    ``gone``: the allowed channels Discord deleted (the services cannot know them; the error
    handler asks :meth:`without` for a refusal that sends nobody to a deleted channel)."""

    def __init__(
        self, allowed_channel_ids: frozenset[int] = frozenset(), gone: frozenset[int] = frozenset()
    ) -> None:
        where = [f"<#{cid}>" for cid in sorted(allowed_channel_ids - gone)]
        if where:
            text = _(
                "Games are not allowed in this channel. Games are played in {channels}.",
                channels=channel_listing(where),
            )
        elif allowed_channel_ids:  # every one of them deleted
            text = n_(
                "Games are allowed nowhere on this server until an admin allows a channel: the "
                "one they were allowed in was deleted.",
                "Games are allowed nowhere on this server until an admin allows a channel: the "
                "{count} they were allowed in were deleted.",
                len(allowed_channel_ids),
            )
        else:
            text = _("Games are not allowed in this channel.")
        super().__init__(text)
        self.allowed_channel_ids = allowed_channel_ids

    def without(self, gone: frozenset[int]) -> ChannelNotAllowed:
        """The same refusal, naming none of the ``gone`` (deleted) channels."""
        return ChannelNotAllowed(self.allowed_channel_ids, gone & self.allowed_channel_ids)


class ChallengeNotFound(GameError):
    """No open challenge has this id (answered, withdrawn or never made)."""

    def __init__(self, text: Text = _("That challenge is no longer open.")) -> None:
        super().__init__(text)


def accepted_already(place_id: int) -> ChallengeNotFound:
    """The refusal of a second press of Accept by the member whose first press took the
    challenge: where the game it started is played (not as if someone else had taken it)."""
    return ChallengeNotFound(
        _(
            "You accepted this challenge already: the game is on in {place}.",
            place=f"<#{place_id}>",
        )
    )


class ChallengeExpired(GameError):
    """The challenge is older than its expiry time."""

    def __init__(self, text: Text = _("That challenge has expired: challenge again.")) -> None:
        super().__init__(text)


class NotYourChallenge(GameError):
    """Someone other than the opponent (to answer) or challenger (to withdraw) used it."""

    def __init__(
        self, text: Text = _("Only the challenged player can answer this challenge.")
    ) -> None:
        super().__init__(text)


class CannotChallengeSelf(GameError):
    """A member challenged themself."""

    def __init__(self, text: Text = _("You cannot challenge yourself.")) -> None:
        super().__init__(text)


class CannotChallengeBot(GameError):
    """A member challenged a bot other than this one."""

    def __init__(
        self, text: Text = _("Bots cannot play, except me: challenge me to play the computer.")
    ) -> None:
        super().__init__(text)


class OpponentCannotSeeChannel(GameError):
    """The challenged member cannot see the channel: they could never answer the challenge."""

    def __init__(self, opponent_id: int) -> None:
        super().__init__(
            _(
                "{player} cannot see this channel, so they could not answer: challenge them in "
                "a channel they can see.",
                player=f"<@{opponent_id}>",
            )
        )


class InvalidOption(GameError):
    """An option out of range: unknown ruleset, sets not 1 or 2, level not 1-5, bad time."""


class OtherServer(GameError):
    """A button naming another server's game or leaderboard was pressed here."""

    def __init__(
        self, text: Text = _("That button belongs to another server: use the commands here.")
    ) -> None:
        super().__init__(text)


class ForeignButton(GameError):
    """A button naming a challenge, request or match that the message it was pressed on does
    not show (a forged or garbled ``custom_id``): refused before anything is changed."""

    def __init__(self) -> None:
        super().__init__(_("That button or id is not one of mine."))


# ---------------------------------------------------------------- analysis and puzzles


class StillPlaying(GameError):
    """An analysis was asked for a set whose match is still being played."""


class NotAnalysable(GameError):
    """An analysis was asked for a set of a ruleset the analysis cannot judge."""


class NoPuzzle(GameError):
    """There is no puzzle to give (the bank is empty, holds none of the difficulty asked, or
    is used up for this player)."""


class PuzzleOver(GameError):
    """A move was sent for a puzzle attempt that is already solved or failed."""
