"""How fast the bot answers /move, through the local Discord stand-in. Prints its figures.

    python -m benchmarks.bot_latency [--moves 300] [--games 200] [--rounds 8]

The bot runs as deployed (``python -m bot`` in its own process, on a fresh SQLite file); this
process plays Discord (the stand-in on 127.0.0.1) and the players. Every game is played as a
server plays it by default: in a thread of its own, started from the challenge message.
Measured per interaction: the time from sending INTERACTION_CREATE to receiving the bot's
callback (for /move in the thread: the public answer with the board PNG; taking the buttons off
the previous board follows it). That includes the local network both ways, so it is an upper bound
of the bot-side time.

1. Latency: single /move commands one after another over random games (2 sets each).
   Target: median ≤ 30 ms, 95th percentile ≤ 50 ms.
2. Load: ``--games`` games in progress at once, each in its own thread; each game's players send
   their next move as soon as the previous one is answered, for ``--rounds`` moves per game.
   Target: no interaction answered later than 3 s (the stand-in refuses late answers). Printed
   for the acknowledgement (the callback: a busy bot defers at once) and for the board (after
   a deferral, the followup that replaces "thinking...").
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine import Game
from tests import bot_processes
from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeGuild,
    FakeMember,
    InteractionNotAnswered,
    InteractionRecord,
)


@dataclass
class Table:
    """One channel with a game between two members, mirrored locally to choose legal moves."""

    channel: FakeChannel
    attacker: FakeMember
    defender: FakeMember
    game: Game = field(default_factory=Game)
    rng: random.Random = field(default_factory=random.Random)

    def next_move(self) -> tuple[FakeMember, str] | None:
        """A random legal move that neither ends the game nor repeats a position, and its player."""
        moves = self.game.legal_moves()
        self.rng.shuffle(moves)
        for move in moves:
            if self.game.would_repeat(move):
                continue
            probe = self.game.copy()
            probe.play(move)
            if probe.outcome is None:
                who = self.attacker if self.game.ply % 2 == 0 else self.defender
                return who, str(move)
        return None


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))
    return ordered[index]


async def start_bot(standin: DiscordStandin, db_path: Path) -> subprocess.Popen[bytes]:
    """``python -m bot`` against the stand-in, in its own process."""
    process = bot_processes.start_bot(standin, str(db_path), db_path.parent)
    await standin.wait_synced("challenge", "move", timeout=60)
    await standin.wait_ready(timeout=60)
    return process


async def open_table(
    standin: DiscordStandin, guild: FakeGuild, table: Table, *, within: float = 5
) -> None:
    """Challenge and accept in the table's channel; the game is then played in its thread."""
    challenge = await standin.slash(
        guild,
        table.channel,
        table.attacker,
        "challenge",
        {"opponent": table.defender, "sets": 1},
        timeout=within,
    )
    message = await challenge.wait_original(timeout=within)
    accept = next(c for c in message.custom_ids() if c.startswith("challenge:accept:"))
    await standin.click(message, accept, table.defender, timeout=within)
    # After a deferred accept, the thread and the game's first board in it come later.
    await standin.wait_until(
        lambda: message.thread is not None, timeout=within, waiting_for="the game's thread"
    )
    assert message.thread is not None
    table.channel = message.thread
    await standin.wait_for_message(
        table.channel,
        lambda m: any(a.filename.endswith(".png") for a in m.attachments),
        timeout=within,
    )


async def open_tables(
    standin: DiscordStandin, places: Sequence[tuple[FakeGuild, Table]], *, at_once: int = 20
) -> None:
    """Open every (server, table) of ``places``, ``at_once`` at a time (not measured: a
    benchmark's games are all under way before its clock starts)."""
    gate = asyncio.Semaphore(at_once)

    async def open_one(guild: FakeGuild, table: Table) -> None:
        async with gate:
            await open_table(standin, guild, table, within=30)

    await asyncio.gather(*(open_one(guild, table) for guild, table in places))


class MoveRefused(AssertionError):
    """The bot answered a move with something else than the board: a refusal, or an apology
    (a deferred answer's apology fills the public "thinking..." message)."""


async def play(
    standin: DiscordStandin, guild: FakeGuild, table: Table, *, within: float = 10
) -> InteractionRecord | None:
    """Send the table's next move and wait for the board; mirror the move locally; return the
    interaction (None when the table has no move left that keeps the game going).

    Raises InteractionNotAnswered without an acknowledgement, AssertionError when the answer
    does not come within ``within`` seconds, and MoveRefused when the answer is not the board.
    """
    chosen = table.next_move()
    if chosen is None:
        return None
    who, text = chosen
    record = await standin.slash(guild, table.channel, who, "move", {"move": text}, timeout=within)
    message = await record.wait_original(timeout=within)
    if message.ephemeral or not any(a.filename.endswith(".png") for a in message.attachments):
        raise MoveRefused(f"/move {text} was answered without the board: {message.content}")
    table.game.play(text)
    return record


def seconds(record: InteractionRecord) -> float:
    """The interaction's answer time in seconds."""
    assert record.response_time is not None
    return record.response_time.total_seconds()


async def finish(standin: DiscordStandin, guild: FakeGuild, table: Table) -> None:
    """The attacker resigns (confirming), which ends the one-set match."""
    asked = await standin.slash(guild, table.channel, table.attacker, "resign")
    warning = await asked.wait_original()
    [confirm] = warning.custom_ids()
    await standin.click(warning, confirm, table.attacker)


async def latency(
    standin: DiscordStandin, guild: FakeGuild, players: list[FakeMember], moves: int
) -> list[float]:
    """Sequential /move answer times over fresh games until ``moves`` were measured."""
    times: list[float] = []
    table: Table | None = None
    while len(times) < moves:
        if table is None:
            channel = guild.channel("latency")
            table = Table(channel, players[0], players[1], rng=random.Random(len(times)))
            await open_table(standin, guild, table)
        record = await play(standin, guild, table)
        if record is None or table.game.ply >= 60:
            await finish(standin, guild, table)
            table = None
            continue
        times.append(seconds(record))
    return times


async def load(
    standin: DiscordStandin, guild: FakeGuild, players: list[FakeMember], games: int, rounds: int
) -> tuple[list[float], list[float], int]:
    """``games`` games at once, ``rounds`` moves each: the acknowledgement times, the board
    times (after a deferral, its followup) and how many were late or unanswered."""
    tables = [
        Table(
            guild.channel(f"load-{n}"),
            players[2 * n % len(players)],
            players[(2 * n + 1) % len(players)],
            rng=random.Random(n),
        )
        for n in range(games)
    ]
    await open_tables(standin, [(guild, table) for table in tables])
    times: list[float] = []
    boards: list[float] = []
    late = 0

    async def run(table: Table) -> None:
        nonlocal late
        for _ in range(rounds):
            try:
                record = await play(standin, guild, table)
            except InteractionNotAnswered:
                late += 1
                return
            if record is None:
                return
            times.append(seconds(record))
            assert record.shown_time is not None
            boards.append(record.shown_time.total_seconds())

    await asyncio.gather(*(run(t) for t in tables))
    return times, boards, late


async def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="moves timed one by one")
    parser.add_argument("--games", type=int, default=200, help="games in progress at once")
    parser.add_argument("--rounds", type=int, default=8, help="moves per game under load")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        async with DiscordStandin() as standin:
            channels = ["latency"] + [f"load-{n}" for n in range(args.games)]
            guild = standin.add_guild("Benchmark", channels=channels)
            players = [
                standin.add_member(guild, f"player{n}") for n in range(2 * max(2, args.games))
            ]
            bot = await start_bot(standin, Path(folder) / "bench.sqlite3")
            try:
                started = time.perf_counter()
                times = await latency(standin, guild, players, args.moves)
                print(f"/move in a thread, answered with the board PNG ({len(times)} moves):")
                print(
                    f"  median {1000 * statistics.median(times):.1f} ms   "
                    f"p95 {1000 * percentile(times, 0.95):.1f} ms   "
                    f"max {1000 * max(times):.1f} ms   (targets: median ≤ 30 ms, p95 ≤ 50 ms)"
                )
                loaded, boards, late = await load(standin, guild, players, args.games, args.rounds)
                print(f"{args.games} thread games at once, {len(loaded)} moves answered:")
                for what, values in (("acknowledged", loaded), ("board", boards)):
                    print(
                        f"  {what:<12} median {1000 * statistics.median(values):.1f} ms   "
                        f"p95 {1000 * percentile(values, 0.95):.1f} ms   "
                        f"max {1000 * max(values):.1f} ms"
                    )
                print(f"  late or unanswered: {late} (target: none later than 3 s)")
                print(f"  ({time.perf_counter() - started:.1f} s in all)")
            finally:
                bot.terminate()
                bot.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
