"""One bot per database file: an operating-system lock held for the life of the process.

``fcntl.flock`` on ``<database>.lock`` beside the file. The kernel releases it however the
process ends (a clean stop, a crash, SIGKILL), so a stale lock file never keeps the bot down:
only a running process holds the lock. The file holds that process's id, for the message.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import Self

from bot.storage.errors import DatabaseInUse


def lock_file_for(db_path: Path) -> Path:
    """The lock file beside ``db_path``."""
    return db_path.with_name(db_path.name + ".lock")


class ProcessLock:
    """The exclusive claim of one process on one database file."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.path = lock_file_for(db_path)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now or raise DatabaseInUse naming the process that holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            who = f"process {holder}" if holder.isdigit() else "another process"
            raise DatabaseInUse(
                f"Another bot ({who}) is already using the database {self.db_path}: stop it "
                "first, or point BRANDUBH_DB at another file.",
                self.db_path,
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let the lock go (the kernel also does on exit). Idempotent."""
        if self._fd is None:
            return
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
