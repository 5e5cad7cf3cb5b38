"""The storage layer's own exceptions: what went wrong with the database.

``str()`` of each is the detail for the operator and the log (it names the file or server and
may quote SQLite or PostgreSQL); :attr:`StorageError.sentence` is the one sentence a player may
be told, in the player's language, which never shows a path or the database's words. They are
not game refusals: the services' ``GameError`` says what a player did wrong, these say the
database could not be used.
"""

from __future__ import annotations

from pathlib import Path

from bot.i18n.text import Text, _

SAVE_FAILED = _("The game could not be saved just now; try again.")


class StorageError(Exception):
    """The database could not do what was asked."""

    sentence: Text = SAVE_FAILED
    """What a player is told (no path, no SQLite message)."""

    def __init__(self, detail: str, where: Path | str = "") -> None:
        super().__init__(detail)
        self.detail = detail
        self.where = str(where)
        """The database concerned: a file path, or a PostgreSQL URL without its password."""

    def __str__(self) -> str:
        return self.detail


class DatabaseBusy(StorageError):
    """The write lock could not be had in time (another program or a long write holds it)."""


class DatabaseDamaged(StorageError):
    """SQLite says the file is damaged (malformed or failing its integrity check)."""

    sentence = _("My game records are damaged, so I cannot do that; a server admin has been told.")


class NotADatabase(StorageError):
    """The file is not an SQLite database."""

    sentence = _("My game records cannot be read just now; a server admin has been told.")


class DatabaseTooNew(StorageError):
    """The file was written by a newer version of the bot."""

    sentence = _("My game records cannot be read just now; a server admin has been told.")


class DatabaseUnavailable(StorageError):
    """The file cannot be opened or written (permissions, a full disk, an I/O error)."""


class DatabaseUnreachable(DatabaseUnavailable):
    """The PostgreSQL server does not answer, or not yet (down, starting up): at start-up the
    bot exits with a code worth restarting on, where a refusal needs a person."""


class DatabaseClosed(StorageError):
    """The database was closed (the bot is shutting down)."""

    sentence = _("I am restarting just now; try again in a minute.")


class DatabaseInUse(StorageError):
    """Another bot process already uses this database file."""


class IdOutOfRange(StorageError):
    """An id or offset too large for SQLite (a forged or garbled button id)."""

    sentence = _("That button or id is not one of mine.")


class ConstraintViolated(StorageError):
    """The database refused a write that breaks one of its constraints (a unique index, a
    foreign key, a check). Storage functions that expect one map it to what it means."""


class WriteConflict(StorageError):
    """PostgreSQL ended a transaction that raced another (a serialization failure, a deadlock,
    or a move that no longer lands at its ply): nothing was written."""


class ChannelOccupied(StorageError):
    """The channel already has a game in progress (the database's one-game-per-channel index)."""
