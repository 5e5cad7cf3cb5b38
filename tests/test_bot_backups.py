"""Online backups: consistent copies beside the database, the last 7 kept, and restoring one."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Settings, load_settings
from bot.storage import Database
from bot.storage.backups import KEEP, backups, take_backup
from tests.bot_harness import Harness
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


class BackingUpHarness(Harness):
    """The bot with backups every ``interval``."""

    interval = timedelta(seconds=0.3)

    def settings(self) -> Settings:
        return dataclasses.replace(super().settings(), backup_interval=self.interval)


def test_backup_hours_default_to_a_day_and_0_switches_them_off() -> None:
    """BRANDUBH_BACKUP_HOURS: 24 by default, fractions allowed, 0 for none."""
    assert load_settings({"DISCORD_TOKEN": "t"}).backup_interval == timedelta(hours=24)
    half = load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_BACKUP_HOURS": "0.5"})
    assert half.backup_interval == timedelta(minutes=30)
    assert (
        load_settings({"DISCORD_TOKEN": "t", "BRANDUBH_BACKUP_HOURS": "0"}).backup_interval is None
    )


async def test_only_the_last_seven_backups_are_kept(db_path: Path) -> None:
    """Each backup is a complete, sound database; older ones than the last 7 are deleted."""
    database = await Database.open(db_path)
    await database.close()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for day in range(10):
        take_backup(db_path, start + timedelta(days=day))
    kept = backups(db_path)
    assert len(kept) == KEEP
    assert kept[0].name.endswith("20260104T000000Z")
    with sqlite3.connect(kept[-1]) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_backup_cut_off_or_failed_leaves_no_copy_behind(db_path: Path) -> None:
    """A half-written copy left by a backup the bot was killed in is deleted by the next
    backup, and a backup that fails deletes its own: none piles up beside the database."""
    with sqlite3.connect(db_path) as made:
        made.execute("CREATE TABLE moves (ply INTEGER)")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    cut_off = db_path.with_name(f"{db_path.name}.backup-20251231T000000Z.partial")
    cut_off.write_bytes(b"half a database")
    take_backup(db_path, start)
    assert sorted(path.name for path in db_path.parent.iterdir() if ".backup-" in path.name) == [
        f"{db_path.name}.backup-20260101T000000Z"
    ]
    db_path.write_bytes(b"not a database at all, and long enough to be read as a header " * 4)
    with pytest.raises(sqlite3.DatabaseError):
        take_backup(db_path, start + timedelta(days=1))
    assert not list(db_path.parent.glob("*.partial"))


async def test_a_restored_backup_plays_on(discord_standin: DiscordStandin, tmp_path: Path) -> None:
    """The bot backs up while a game is played; after the database file is lost, the newest
    backup copied in its place (as the README says) brings the game back and play goes on."""
    db_path = tmp_path / "bot.sqlite3"
    table = BackingUpHarness(discord_standin, db_path)
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
        moved = time.time()
        await discord_standin.wait_until(
            lambda: any(p.stat().st_mtime > moved for p in backups(db_path)),
            timeout=10,
            waiting_for="a backup taken after the first move",
        )
    finally:
        await table.stop()
    newest = max(backups(db_path), key=lambda p: p.stat().st_mtime)
    for lost in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        lost.unlink(missing_ok=True)
    shutil.copyfile(newest, db_path)
    table.interval = timedelta(hours=24)
    await table.start()
    try:
        assert table.bot is not None
        active = await table.bot.services.games.in_channel(table.channel.id)
        assert active is not None
        assert [str(r.move) for r in active.game.records] == ["d1-b1"]
        reply = await table.move(table.bob, "c4-c2")
        assert "played c4-c2" in reply.content
        reply = await table.move(table.alice, "b4-b5")
        assert "played b4-b5" in reply.content
    finally:
        await table.stop()
