"""All of the bot's SQL: one module per table group over either backend.

:class:`Database` opens SQLite (a file path, the default) or PostgreSQL (a ``postgresql://``
URL) and hands the storage modules a :class:`~bot.storage.connection.Connection`. Migrations
live in ``bot/migrations/NNNN_*.sql`` (SQLite, tracked with ``PRAGMA user_version``) and
``bot/migrations/postgresql/NNNN_*.sql`` (tracked in the ``schema_version`` table), and are
applied at start-up in one transaction.
"""

from __future__ import annotations

from bot.storage import (
    analyses,
    announcements,
    challenges,
    clocks,
    history,
    holds,
    moves,
    places,
    players,
    pruning,
    puzzles,
    ratings,
    sets,
    settings,
    takebacks,
    vanished,
)
from bot.storage.connection import Connection, Dialect
from bot.storage.database import Database, is_postgresql, migrations, schema_version

__all__ = [
    "Connection",
    "Database",
    "Dialect",
    "analyses",
    "announcements",
    "challenges",
    "clocks",
    "history",
    "holds",
    "is_postgresql",
    "migrations",
    "moves",
    "places",
    "players",
    "pruning",
    "puzzles",
    "ratings",
    "schema_version",
    "sets",
    "settings",
    "takebacks",
    "vanished",
]
