"""Database trouble reaches players as one sentence; the file and SQLite's words go to the log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.errors import sentence_for
from bot.services.errors import GameError
from bot.storage.errors import DatabaseBusy, DatabaseDamaged, NotADatabase, StorageError
from bot.storage.sqlite import storage_error

SQLITE_SAYS = [
    "database is locked",
    "database disk image is malformed",
    "file is not a database",
    "disk I/O error",
    "unable to open database file",
]


@pytest.mark.parametrize("message", SQLITE_SAYS)
def test_players_see_one_sentence_without_internals(message: str, tmp_path: Path) -> None:
    """Whatever SQLite says, the player's sentence names no path and quotes no SQLite."""
    path = tmp_path / "secret-folder" / "brandubh.sqlite3"
    error = storage_error(path, sqlite3.OperationalError(message))
    sentence = sentence_for(error)
    assert sentence is not None
    assert str(path) not in sentence
    assert "secret-folder" not in sentence
    assert message.lower() not in sentence.lower()
    assert sentence.count(".") == 1
    assert sentence.endswith(".")
    assert str(path) in str(error), "the operator's detail names the file"


def test_storage_errors_are_not_game_refusals() -> None:
    """A broken file is the storage layer's own error, never a player's refusal."""
    assert not issubclass(StorageError, GameError)
    busy = storage_error(Path("x.sqlite3"), sqlite3.OperationalError("database is locked"))
    assert isinstance(busy, DatabaseBusy)
    assert sentence_for(busy) == "The game could not be saved just now; try again."
    damaged = storage_error(Path("x"), sqlite3.DatabaseError("database disk image is malformed"))
    assert isinstance(damaged, DatabaseDamaged)
    assert isinstance(
        storage_error(Path("x"), sqlite3.DatabaseError("file is not a database")), NotADatabase
    )
