"""Moving up: `python -m bot.copy_database` copies an SQLite file into PostgreSQL, and play goes on.

The source holds players' names in the server, finished matches with ratings, a game in
progress with its move timer, an open challenge and a takeback in the audit table. After the
copy the same services on PostgreSQL show the same standings (under the same names), the
game in progress continues at the same ply, its timer still ends it on time, and new matches
get new ids.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot.services import Services
from tests.conftest import ALICE, BOB, CAROL, GUILD, FakeClock, postgres_database
from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parent.parent
PLAYING = 3000
WAITING = 3001


async def _history(services: Services) -> None:
    """Names in the server, two finished rated matches, a game in progress, an open
    challenge, a takeback."""
    await services.settings.change(GUILD, threads=False, time_per_move=timedelta(hours=1))
    for name, user in (("Alice", ALICE), ("Bob", BOB), ("Carol", CAROL)):
        await services.players.remember(user, name, guild_id=GUILD, member_name=f"{name} here")
    for channel, (winner, loser) in ((2000, (ALICE, BOB)), (2001, (ALICE, CAROL))):
        challenge = await services.challenges.create(GUILD, channel, winner, loser, sets_total=1)
        await services.challenges.accept(challenge.challenge_id, loser)
        await services.games.play(channel, winner, "d1-c1")
        await services.games.play(channel, loser, "d3-a3")  # moved: the set is rated
        await services.games.resign(channel, loser)
    challenge = await services.challenges.create(GUILD, PLAYING, BOB, CAROL)
    await services.challenges.accept(challenge.challenge_id, CAROL)
    for user, move in ((BOB, "d1-c1"), (CAROL, "d3-a3"), (BOB, "c1-c3")):
        await services.games.play(PLAYING, user, move)
    await services.takebacks.ask(PLAYING, BOB)
    await services.challenges.create(GUILD, WAITING, CAROL, ALICE)


async def _run_copy(source: Path, target: str) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.copy_database",
        str(source),
        target,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_copied_database_plays_on(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str
) -> None:
    """Matches, ratings, timers and open challenges arrive whole, and the games go on."""
    target = await postgres_database(postgres)
    before = await Services.open(db_path, clock=clock)
    try:
        await _history(before)
        board = await before.standings.leaderboard(GUILD)
        stats = await before.standings.player_stats(GUILD, ALICE)
        playing = await before.games.in_channel(PLAYING)
    finally:
        await before.close()
    assert playing is not None

    code, out, err = await _run_copy(db_path, target)
    assert (code, err) == (0, "")
    assert "moves" in out
    assert "Copied and verified" in out

    after = await Services.open(target, clock=clock)
    try:
        async with after.database.snapshot() as db:
            unvacuumed = await db.fetch_all(
                "SELECT relname FROM pg_stat_user_tables "
                "WHERE last_vacuum IS NULL OR last_analyze IS NULL"
            )
        assert [row[0] for row in unvacuumed] == [], "the copy is vacuumed and analysed"
        assert board.total == 3
        assert board.rows[0].display_name == "Alice here"
        assert await after.standings.leaderboard(GUILD) == board
        assert await after.standings.player_stats(GUILD, ALICE) == stats
        game = await after.games.in_channel(PLAYING)
        assert game is not None
        assert (game.set_id, game.ply, game.player_to_move) == (playing.set_id, 3, CAROL)
        assert game.deadline == playing.deadline
        assert [c.channel_id for c in await after.challenges.pending()] == [WAITING]
        await after.games.play(PLAYING, CAROL, "c4-c5")  # the takeback request lapses
        assert [t.takeback_id for t in await after.takebacks.lapse_stale()] != []
        # New rows get new ids after the copied ones.
        fresh = await after.challenges.create(GUILD, 3002, ALICE, BOB)
        accepted = await after.challenges.accept(fresh.challenge_id, BOB)
        assert accepted.set_id > game.set_id
        # The copied move timer still ends the game on time.
        ended = await after.clocks.time_out_due(clock.advance(timedelta(hours=2)))
        assert PLAYING in {end.game.channel_id for end in ended}
    finally:
        await after.close()


async def test_a_target_that_is_not_empty_is_refused(
    db_path: Path, clock: FakeClock, postgres: PostgresServer | str
) -> None:
    """Copying twice into the same database is refused with one line; nothing is doubled."""
    target = await postgres_database(postgres)
    source = await Services.open(db_path, clock=clock)
    try:
        await _history(source)
    finally:
        await source.close()
    assert (await _run_copy(db_path, target))[0] == 0
    code, _, err = await _run_copy(db_path, target)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "empty database" in err
    after = await Services.open(target, clock=clock)
    try:
        page = await after.standings.leaderboard(GUILD)
        assert page.total == 3
    finally:
        await after.close()


@pytest.mark.parametrize("arguments", [("a.sqlite3", "b.sqlite3")])
async def test_copying_needs_a_postgresql_target(
    tmp_path: Path, arguments: tuple[str, str]
) -> None:
    """A target that is not a postgresql:// URL is refused in one line."""
    code, _, err = await _run_copy(tmp_path / arguments[0], str(tmp_path / arguments[1]))
    assert code == 2
    assert "postgresql://" in err
