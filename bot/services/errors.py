"""The services' exceptions: ``str()`` of each is one sentence a player (or admin) can read.

The bot's single error handler turns any :class:`GameError` into an ephemeral reply; nothing
here ever carries a Python message. Trouble with the database file is not a refusal: it is the
storage layer's own :class:`~bot.storage.errors.StorageError`.
"""

from __future__ import annotations


class GameError(Exception):
    """Base of every refusal the services make; ``str()`` is one player-readable sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# ---------------------------------------------------------------- games and moves


class NoGameHere(GameError):
    """There is no game in progress in this channel (or with this id)."""

    def __init__(
        self,
        message: str = "There is no game in progress in this channel: `/games` lists where "
        "the games are.",
    ) -> None:
        super().__init__(message)


class NotAPlayer(GameError):
    """The user is not one of the two players of this channel's game."""

    def __init__(self, message: str = "You are not playing the game in this channel.") -> None:
        super().__init__(message)


class NotYourTurn(GameError):
    """A player tried to move while the other side is to move."""

    def __init__(self, to_move_id: int, *, computer: bool = False) -> None:
        if computer:
            super().__init__("I am still thinking about my move: wait for my reply.")
        else:
            super().__init__(f"It is not your turn: <@{to_move_id}> is to move.")
        self.to_move_id = to_move_id


class IllegalMove(GameError):
    """The engine refused the move; the message is the engine's sentence."""


class RepetitionNeedsConfirmation(GameError):
    """The move would make a position occur a third time, which loses: ask to confirm it."""

    def __init__(self, move_text: str) -> None:
        super().__init__(
            f"{move_text} would make the same position occur for the third time, which loses "
            "the game: confirm if you really want to play it."
        )
        self.move_text = move_text


class StaleGameError(GameError):
    """The game moved on since the move was chosen (another move landed first)."""

    def __init__(
        self,
        message: str = "The game changed while your move was on its way: look at the new board "
        "and try again.",
    ) -> None:
        super().__init__(message)


# ---------------------------------------------------------------- challenges


class OldBoard(GameError):
    """A button was pressed on a board that is no longer the game's newest."""

    def __init__(self, live_board_url: str) -> None:
        super().__init__(f"This board is out of date: play on the newest one, {live_board_url}")


class CannotTakeBack(GameError):
    """A takeback that cannot be asked for or answered now (the sentence says why)."""


class ChannelBusy(GameError):
    """The channel already has a game in progress (one game per channel)."""

    def __init__(
        self,
        message: str = "A game is already being played in this channel: start yours in another "
        "channel or in a thread.",
    ) -> None:
        super().__init__(message)


class TooManyChallenges(GameError):
    """The member already has the most open challenges allowed."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"You already have {limit} open challenges: wait for an answer, or withdraw one."
        )


class ChannelNotAllowed(GameError):
    """The server's settings do not allow games in this channel."""

    def __init__(self, allowed_channel_ids: frozenset[int] = frozenset()) -> None:
        where = ", ".join(f"<#{cid}>" for cid in sorted(allowed_channel_ids))
        hint = f" Games are played in {where}." if where else ""
        super().__init__(f"Games are not allowed in this channel.{hint}")
        self.allowed_channel_ids = allowed_channel_ids


class ChallengeNotFound(GameError):
    """No open challenge has this id (answered, withdrawn or never made)."""

    def __init__(self, message: str = "That challenge is no longer open.") -> None:
        super().__init__(message)


class ChallengeExpired(GameError):
    """The challenge is older than its expiry time."""

    def __init__(self, message: str = "That challenge has expired: challenge again.") -> None:
        super().__init__(message)


class NotYourChallenge(GameError):
    """Someone other than the opponent (to answer) or challenger (to withdraw) used it."""

    def __init__(
        self, message: str = "Only the challenged player can answer this challenge."
    ) -> None:
        super().__init__(message)


class CannotChallengeSelf(GameError):
    """A member challenged themself."""

    def __init__(self, message: str = "You cannot challenge yourself.") -> None:
        super().__init__(message)


class CannotChallengeBot(GameError):
    """A member challenged a bot other than this one."""

    def __init__(
        self, message: str = "Bots cannot play, except me: challenge me to play the computer."
    ) -> None:
        super().__init__(message)


class InvalidOption(GameError):
    """An option out of range: unknown ruleset, sets not 1 or 2, level not 1-5, bad time."""


class OtherServer(GameError):
    """A button naming another server's game or leaderboard was pressed here."""

    def __init__(
        self, message: str = "That button belongs to another server: use the commands here."
    ) -> None:
        super().__init__(message)
