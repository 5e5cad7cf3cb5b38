"""Two shard processes, each with its games all moving at once, on one PostgreSQL. Prints figures.

    python -m benchmarks.shard_load [--games 200] [--rounds 5] [--quick] [--profile DIR]

What runs: a throwaway PostgreSQL 15 server with its default durability (fsync, synchronous
commit), as ``scale_speed`` starts it; two ``python -m bot`` processes running shards 0 and 1
of 2 on one database of it; and, in this process, the Discord stand-in (which delivers each
server's events only to its shard's connection) and the players. Each shard has ``--games``
games in progress, ten per server in the servers of that shard, each game in a thread of its
own (the default, as a busy server plays), opened by /challenge and the Accept button. Then
every game's player to move sends /move at the same moment, for ``--rounds`` rounds: a round
starts when every move of the previous one was answered.

Measured per /move, as ``bot_latency`` measures it, from sending INTERACTION_CREATE to:
- the acknowledgement: the bot's callback (the board itself, or a deferral after 1.5 s of
  work), which Discord refuses after 3 s;
- the board: the answer with the board PNG (the callback, or after a deferral the followup
  that replaces "thinking...").
Target (issue 15): every interaction answered in < 3 s. The exit code is 1 when an interaction
got no acknowledgement or no board (or a move was refused), 0 otherwise.

The stand-in and the players run in this benchmark's process, on the same cores as the two bot
processes and PostgreSQL; what it spends is part of every figure (an upper bound of the bot's).
Its check of every request against Discord's published contract is off here (the tests make
it): it would take three quarters of this process's CPU. Printed with the figures: the load
average, and the CPU seconds each part and the rest of the machine used during the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bot_latency import MoveRefused, Table, open_tables, percentile, play
from bot.services import Services
from tests import postgres_server
from tests.bot_processes import start_bot, stop_bots
from tests.discord_standin import DiscordStandin, FakeGuild, InteractionNotAnswered

SHARDS = 2
GAMES_PER_SERVER = 10
LIMIT = 3.0
"""Discord's limit for acknowledging an interaction, in seconds (and the target for the board)."""


@dataclass
class Seat:
    """One game of the benchmark: its table, its server and the shard that drives it."""

    table: Table
    guild: FakeGuild
    shard: int
    lost: bool = False
    """Its last move went wrong: whether the bot stored it is read back before the next."""
    done: bool = False
    """No move left that keeps the game going: it sits out."""


@dataclass
class Figures:
    """What the rounds measured, for one shard or all."""

    acknowledged: list[float] = field(default_factory=list)
    shown: list[float] = field(default_factory=list)
    unanswered: int = 0
    refused: int = 0
    refusals: list[str] = field(default_factory=list)

    @property
    def sent(self) -> int:
        """Moves sent."""
        return len(self.acknowledged) + self.unanswered + self.refused

    def add(self, other: Figures) -> None:
        """Take in ``other``'s measurements."""
        self.acknowledged += other.acknowledged
        self.shown += other.shown
        self.unanswered += other.unanswered
        self.refused += other.refused
        self.refusals += other.refusals


def shard_of(guild: FakeGuild) -> int:
    """The shard Discord sends the server's events to."""
    return (guild.id >> 22) % SHARDS


async def seat_players(standin: DiscordStandin, games_per_shard: int) -> list[Seat]:
    """Servers on every shard with ``games_per_shard`` tables (channels with two members) each.

    A server's shard follows from its id's timestamp, so servers are created until every shard
    has enough; a server made for a shard that already has them stays empty (still delivered).
    """
    servers = -(-games_per_shard // GAMES_PER_SERVER)
    by_shard: dict[int, list[FakeGuild]] = {shard: [] for shard in range(SHARDS)}
    while any(len(guilds) < servers for guilds in by_shard.values()):
        guild = standin.add_guild(f"Club {len(standin.world.guilds)}", channels=[])
        if len(by_shard[shard_of(guild)]) < servers:
            by_shard[shard_of(guild)].append(guild)
        await asyncio.sleep(0.002)  # the next snowflake's timestamp moves on
    seats = []
    for shard, guilds in by_shard.items():
        for n in range(games_per_shard):
            guild = guilds[n // GAMES_PER_SERVER]
            table = Table(
                standin.add_channel(guild, f"games-{n % GAMES_PER_SERVER}"),
                standin.add_member(guild, f"attacker-{n}"),
                standin.add_member(guild, f"defender-{n}"),
                rng=random.Random(shard * 100_000 + n),
            )
            seats.append(Seat(table, guild, shard))
    return seats


async def move(standin: DiscordStandin, seat: Seat, figures: Figures) -> None:
    """The seat's next move, timed; one that went wrong is counted and marks the seat lost."""
    try:
        record = await play(standin, seat.guild, seat.table, within=30)
    except InteractionNotAnswered:
        figures.unanswered += 1
        seat.lost = True
        return
    except MoveRefused as refusal:
        figures.refused += 1
        figures.refusals.append(str(refusal))
        seat.lost = True
        return
    except AssertionError:  # acknowledged, but the board never came
        figures.unanswered += 1
        seat.lost = True
        return
    if record is None:
        seat.done = True
        return
    assert record.response_time is not None
    assert record.shown_time is not None
    figures.acknowledged.append(record.response_time.total_seconds())
    figures.shown.append(record.shown_time.total_seconds())


async def find_lost(database: str, seats: Sequence[Seat]) -> None:
    """Read the lost seats' games back from the database (the bot may have stored the move
    it could not answer in time), so that every game plays every round."""
    lost = [seat for seat in seats if seat.lost]
    if not lost:
        return
    await asyncio.sleep(2.0)  # work behind a late answer goes on to its end
    services = await Services.open(database)
    try:
        for seat in lost:
            active = await services.games.in_channel(seat.table.channel.id)
            if active is None:
                seat.done = True
            else:
                seat.table.game = active.game
            seat.lost = False
    finally:
        await services.close()


async def rounds(
    standin: DiscordStandin,
    database: str,
    seats: Sequence[Seat],
    count: int,
    cpu: Callable[[], dict[str, float]],
) -> tuple[dict[int, Figures], list[float], dict[str, float]]:
    """``count`` rounds of every game moving at once: the figures per shard, each round's time
    and the CPU seconds the rounds took (``cpu`` reads them; reading lost games back between
    rounds counts in neither)."""
    figures = {shard: Figures() for shard in range(SHARDS)}
    durations = []
    spent: dict[str, float] = {}
    for _ in range(count):
        await find_lost(database, seats)
        before, started = cpu(), time.perf_counter()
        await asyncio.gather(
            *(move(standin, seat, figures[seat.shard]) for seat in seats if not seat.done)
        )
        durations.append(time.perf_counter() - started)
        for part, seconds in cpu().items():
            spent[part] = spent.get(part, 0.0) + seconds - before[part]
    return figures, durations, spent


def summary(label: str, values: list[float]) -> str:
    """One line of figures: count, median, p95, slowest, how many took LIMIT or more."""
    if not values:
        return f"  {label:<24} no answers"
    late = sum(1 for value in values if value >= LIMIT)
    return (
        f"  {label:<24} {len(values):>6} {statistics.median(values):>8.3f} "
        f"{percentile(values, 0.95):>8.3f} {max(values):>8.3f} {late:>7}"
    )


def report(figures: dict[int, Figures], durations: list[float]) -> Figures:
    """Print the table of figures; return the figures of all shards together."""
    total = Figures()
    print(f"{'':<26} {'count':>6} {'median':>8} {'p95':>8} {'slowest':>8} {'>= 3 s':>7}")
    for shard, shard_figures in figures.items():
        print(summary(f"shard {shard} acknowledged", shard_figures.acknowledged))
        print(summary(f"shard {shard} board", shard_figures.shown))
        total.add(shard_figures)
    print(summary("all acknowledged", total.acknowledged))
    print(summary("all board", total.shown))
    moves = len(total.shown)
    print(
        f"  (seconds; {moves} moves in {sum(durations):.1f} s, "
        f"{moves / sum(durations):.0f} moves/s; rounds took "
        + ", ".join(f"{d:.1f}" for d in durations)
        + " s)"
    )
    for shard, shard_figures in figures.items():
        if shard_figures.unanswered or shard_figures.refused:
            print(
                f"  shard {shard}: {shard_figures.unanswered} moves not answered in time (no "
                f"callback within 3 s, or no board within 30 s), {shard_figures.refused} "
                "answered without the board"
            )
    return total


TICK = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (from the state on); [] if gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def process_cpu(pid: int, *, children: bool = False) -> float:
    """CPU seconds (user + system) a process used so far; with ``children``, also those of its
    children that ended and were waited for; 0 when it is gone."""
    fields = _stat_fields(pid)
    if not fields:
        return 0.0
    used = int(fields[11]) + int(fields[12])
    if children:
        used += int(fields[13]) + int(fields[14])
    return used / TICK


def postgres_cpu(server: postgres_server.PostgresServer) -> float:
    """CPU seconds of the PostgreSQL server: the postmaster, its live and ended children.

    A child that ends while the live ones are being read would be counted nowhere (gone from
    /proc, not yet in the postmaster's ended children), so the reading is taken again until
    the postmaster's count of ended children is the same before and after."""
    try:
        postmaster = int((server.root / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    while True:
        ended = _stat_fields(postmaster)[13:15]
        used = process_cpu(postmaster, children=True)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                fields = _stat_fields(entry.name)
                if fields and int(fields[1]) == postmaster:
                    used += process_cpu(int(entry.name))
        if _stat_fields(postmaster)[13:15] == ended:
            return used


def machine_cpu() -> float:
    """CPU seconds all cores of the machine spent busy so far (from /proc/stat)."""
    try:
        line = Path("/proc/stat").read_text().splitlines()[0]
    except (OSError, IndexError):
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, line.split()[1:9])
    return (user + nice + system + irq + softirq + steal) / TICK


def thread_cpu(pid: int) -> float:
    """CPU seconds (user + system) the main thread of process ``pid`` used so far (a bot's
    event loop); 0 when it is gone."""
    fields = _stat_fields(f"{pid}/task/{pid}")
    return (int(fields[11]) + int(fields[12])) / TICK if fields else 0.0


def cpu_use(
    bots: Sequence[subprocess.Popen[bytes]], server: postgres_server.PostgresServer
) -> dict[str, float]:
    """CPU seconds used so far by each part of the benchmark and by the whole machine (for a
    shard also, under ``shard N loop``, its event loop's thread alone)."""
    used = {"benchmark (stand-in, players)": time.process_time()}
    for shard, bot in enumerate(bots):
        used[f"shard {shard}"] = process_cpu(bot.pid)
        used[f"shard {shard} loop"] = thread_cpu(bot.pid)
    used["PostgreSQL"] = postgres_cpu(server)
    used["machine"] = machine_cpu()
    return used


def cpu_lines(spent: dict[str, float], wall: float, sent: dict[int, int]) -> list[str]:
    """Where the CPU time went during ``wall`` seconds (``spent``: from :func:`cpu_use`) in
    which ``sent[shard]`` moves were sent to each shard."""
    spent = dict(spent)
    machine = spent.pop("machine")
    loops = {shard: spent.pop(f"shard {shard} loop", 0.0) for shard in sent}
    moves = sum(sent.values())
    ours = sum(spent.values())
    parts = ", ".join(f"{part} {seconds:.1f}" for part, seconds in spent.items())
    cores = os.cpu_count() or 1
    lines = [
        f"CPU seconds during the rounds ({wall:.1f} s × {cores} cores = {wall * cores:.1f} "
        f"available): {parts} (in all {ours:.1f}, {1000 * ours / max(1, moves):.0f} ms a move); "
        f"other programs on the machine {max(0.0, machine - ours):.1f}"
    ]
    for shard, count in sent.items():
        used, loop = spent[f"shard {shard}"], loops[shard]
        lines.append(
            f"  shard {shard} process: {1000 * used / max(1, count):.1f} ms of CPU a move "
            f"(event loop thread {1000 * loop / max(1, count):.1f}, other threads, "
            f"Pillow's: {1000 * (used - loop) / max(1, count):.1f}; {count} moves)"
        )
    return lines


IDS = re.compile(r"\d{3,}")


def logged_trouble(folder: Path) -> Counter[str]:
    """What the bot processes logged at WARNING or above (``shard*/bot.log`` in ``folder``),
    ids left out, each with its count; an error's exception line is added to it. Voice support
    missing, which discord.py warns about at every start, is left out."""
    found: Counter[str] = Counter()
    for log in sorted(folder.glob("shard*/bot.log")):
        last = ""
        for line in log.read_text(errors="replace").splitlines():
            header = re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL) +(.*)", line)
            if header is not None and "voice will NOT be supported" not in line:
                if last:
                    found[last] += 1
                last = IDS.sub("N", f"{header[1]} {header[2]}")
            elif (
                last.startswith("ERROR")
                and "[" not in last
                and re.match(r"[\w.]+(Error|Exception|Found)\b", line)
            ):
                last += " [" + IDS.sub("N", line) + "]"  # the first: the root cause
        if last:
            found[last] += 1
    return found


def load_line(when: str) -> str:
    """The machine's load averages and core count, for the figures' context."""
    one, five, fifteen = os.getloadavg()
    return (
        f"load average {when}: {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min), "
        f"{os.cpu_count()} cores"
    )


def signal_all(processes: Sequence[subprocess.Popen[bytes]], signum: int) -> None:
    """Send ``signum`` to every process still running."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signum)


async def profiles_written(folder: Path, shards: int) -> None:
    """Wait (up to a minute) until every profiled bot wrote its ``shardN.threads``, the last
    file it writes."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all((folder / f"shard{shard}.threads").exists() for shard in range(shards)):
            return
        await asyncio.sleep(0.2)
    print(f"shard_load: the profiles in {folder} were not all written.", file=sys.stderr)


async def run(
    server: postgres_server.PostgresServer, games: int, count: int, profile: Path | None = None
) -> int:
    """The whole benchmark against ``server``; the exit code. With ``profile`` (a folder), the
    bots run under ``benchmarks.profiled_bot``, profiled during the rounds only (``profile``
    is absolute: the bots run in folders of their own)."""
    main_task = asyncio.current_task()
    assert main_task is not None
    # SIGTERM stops the benchmark as Ctrl-C does: the task is cancelled, every finally runs.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    database = await postgres_server.create_database(server)
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        async with DiscordStandin(check_contract=False) as standin:
            standin.gateway.recommended_shards = SHARDS
            seats = await seat_players(standin, games)
            try:
                for shard in range(SHARDS):
                    place = Path(folder) / f"shard{shard}"
                    place.mkdir()
                    log = stack.enter_context((place / "bot.log").open("wb"))
                    command = ["-m", "bot"]
                    if profile is not None:
                        out = profile / f"shard{shard}"
                        command = ["-m", "benchmarks.profiled_bot", str(out)]
                    processes.append(
                        start_bot(
                            standin,
                            database,
                            place,
                            shard=(shard, SHARDS),
                            log=log,
                            command=command,
                        )
                    )
                await standin.wait_synced("challenge", "move", timeout=120)
                await standin.wait_shards_ready(*range(SHARDS), timeout=120)
                started = time.perf_counter()
                await open_tables(standin, [(seat.guild, seat.table) for seat in seats])
                print(
                    f"{SHARDS} shard processes (python -m bot, shards 0 and 1 of {SHARDS}) on one "
                    f"durable PostgreSQL; {games} thread games per shard "
                    f"({-(-games // GAMES_PER_SERVER)} servers each), opened in "
                    f"{time.perf_counter() - started:.1f} s; {count} rounds of every game "
                    "moving at once:"
                )
                print(load_line("before the rounds"))
                if profile is not None:
                    signal_all(processes, signal.SIGUSR1)
                figures, durations, spent = await rounds(
                    standin, database, seats, count, lambda: cpu_use(processes, server)
                )
                print(load_line("after the rounds"))
                if profile is not None:
                    signal_all(processes, signal.SIGUSR2)
                    await profiles_written(profile, SHARDS)
                sent = {shard: f.sent for shard, f in figures.items()}
                for line in cpu_lines(spent, sum(durations), sent):
                    print(line)
            finally:
                # In a thread: the stand-in must keep serving the bots while they close.
                await asyncio.to_thread(stop_bots, processes)
        trouble = logged_trouble(Path(folder))
    total = report(figures, durations)
    for line, times in trouble.most_common(6):
        print(f"  logged {times}×: {line[:300]}")
    failed = total.unanswered + total.refused
    if failed:
        print(
            f"FAILED: {total.unanswered} moves not answered in time, "
            f"{total.refused} answered without the board"
        )
        for refusal in sorted(set(total.refusals))[:5]:
            print(f"  {refusal}")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Start PostgreSQL, run the benchmark, stop everything; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games in progress per shard (default 200)")
    parser.add_argument("--rounds", type=int, help="moves per game, all at once (default 5)")
    parser.add_argument("--quick", action="store_true", help="a smoke test: 4 games, 2 rounds")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="profile the bots during the rounds (benchmarks.profiled_bot): writes "
        "DIR/shardN.pstats and DIR/shardN.threads",
    )
    options = parser.parse_args(argv)
    if options.profile is not None:
        options.profile = options.profile.resolve()
        options.profile.mkdir(parents=True, exist_ok=True)
    games = options.games or (4 if options.quick else 200)
    count = options.rounds or (2 if options.quick else 5)
    server = postgres_server.start(durable=True)
    if isinstance(server, str):
        print(f"shard_load: {server}.", file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(server, games, count, options.profile))
    except (KeyboardInterrupt, asyncio.CancelledError) as stop:
        print("shard_load: interrupted; the bots and PostgreSQL are stopped.", file=sys.stderr)
        return 130 if isinstance(stop, KeyboardInterrupt) else 128 + signal.SIGTERM
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
