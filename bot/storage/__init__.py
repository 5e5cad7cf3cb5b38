"""All of the bot's SQL: one long-lived aiosqlite connection and one module per table group.

Migrations live in ``bot/migrations/NNNN_*.sql`` and are applied at start-up in one transaction,
tracked with ``PRAGMA user_version``.
"""

from __future__ import annotations

from bot.storage import (
    analyses,
    announcements,
    challenges,
    games,
    players,
    puzzles,
    ratings,
    settings,
    takebacks,
)
from bot.storage.database import Database, migrations, schema_version

__all__ = [
    "Database",
    "analyses",
    "announcements",
    "challenges",
    "games",
    "migrations",
    "players",
    "puzzles",
    "ratings",
    "schema_version",
    "settings",
    "takebacks",
]
