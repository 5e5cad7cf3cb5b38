"""Online backups: a consistent copy of the database beside it, made with SQLite's backup API.

``<database>.backup-YYYYMMDDTHHMMSSZ`` files, the newest :data:`KEEP` kept. The copy is taken
through its own read connection in one step, so it is one committed state of the file while
the bot goes on writing (under write-ahead logging a reader does not block the writer).
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

KEEP = 7
"""How many backups are kept; older ones are deleted after each new one."""

_MARK = ".backup-"
_STAMP = "%Y%m%dT%H%M%SZ"
_PARTIAL = ".partial"


def backup_path(db_path: Path, when: datetime) -> Path:
    """Where the backup of ``db_path`` taken at ``when`` goes."""
    return db_path.with_name(f"{db_path.name}{_MARK}{when.astimezone(UTC):{_STAMP}}")


def backups(db_path: Path) -> list[Path]:
    """The backups of ``db_path``, oldest first."""
    prefix = db_path.name + _MARK
    found = []
    for entry in db_path.parent.glob(prefix + "*"):
        stamp = entry.name[len(prefix) :]
        try:
            datetime.strptime(stamp, _STAMP)
        except ValueError:
            continue  # a ``.partial`` copy, or someone else's file
        found.append(entry)
    return sorted(found)


def _cut_off(db_path: Path) -> list[Path]:
    """The half-written backups of ``db_path`` a copy cut off left (a kill, a full disk)."""
    prefix = db_path.name + _MARK
    found = []
    for entry in db_path.parent.glob(prefix + "*" + _PARTIAL):
        try:
            datetime.strptime(entry.name[len(prefix) : -len(_PARTIAL)], _STAMP)
        except ValueError:
            continue  # someone else's file
        found.append(entry)
    return found


def taken_at(backup: Path) -> datetime:
    """When ``backup`` was taken (from its name)."""
    stamp = backup.name.rsplit(_MARK, 1)[1]
    return datetime.strptime(stamp, _STAMP).replace(tzinfo=UTC)


def take_backup(db_path: Path, when: datetime, *, keep: int = KEEP) -> Path:
    """Copy ``db_path`` to a new backup, then delete all but the newest ``keep``. Blocking.

    The copy is written under a temporary name and renamed when complete, so a backup file
    is never half-written; a copy that fails is deleted, and so is any an earlier one left
    when it was cut off (the bot killed meanwhile): each is as large as the database, and a
    full disk would otherwise leave one more at every try. Raises sqlite3.Error or OSError if
    the copy cannot be made.
    """
    for stale in _cut_off(db_path):  # one bot per database file: nobody is writing it
        stale.unlink(missing_ok=True)
    target = backup_path(db_path, when)
    partial = target.with_name(target.name + _PARTIAL)
    try:
        source = sqlite3.connect(db_path)
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)  # all pages in one step: one consistent snapshot
                copy.execute("PRAGMA journal_mode = DELETE")  # a single self-contained file
            finally:
                copy.close()
        finally:
            source.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    for old in backups(db_path)[:-keep]:
        old.unlink(missing_ok=True)
    return target
