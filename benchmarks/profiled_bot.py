"""``python -m bot`` profiled between two signals: where a bot process's CPU goes under load.

    python -m benchmarks.profiled_bot OUT     (the environment of ``python -m bot``)

The bot runs as ``python -m bot`` does. SIGUSR1 starts cProfile on the event loop's thread,
timed by that thread's own CPU clock (``time.thread_time``: time the thread waits for a core
or for the database does not count); SIGUSR2 stops it and writes ``OUT.pstats`` and
``OUT.threads``: the CPU seconds (user, system) each thread of the process used between the
two signals, one ``name user system`` line per thread (the loop is ``MainThread``; Pillow runs
in ``asyncio_N``, the threads of ``asyncio.to_thread``). ``shard_load --profile DIR`` starts
its bots this way around the rounds.

cProfile costs the loop's thread about as much CPU again as it profiles, more for code of
many small calls: the profile says where the loop's CPU goes, the ``threads`` file and the
benchmark's unprofiled runs say how much there is.
"""

from __future__ import annotations

import cProfile
import os
import runpy
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[str, tuple[float, float]]:
    """CPU seconds (user, system) of each live thread of this process, by thread name."""
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    used = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        name = names.get(int(task.name), f"thread-{task.name}")
        used[name] = (int(fields[11]) / TICK, int(fields[12]) / TICK)
    return used


class Profiling:
    """The profile under way between SIGUSR1 and SIGUSR2, written to ``out``."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.profile: cProfile.Profile | None = None
        self.threads_before: dict[str, tuple[float, float]] = {}

    def start(self, _signum: int, _frame: FrameType | None) -> None:
        """SIGUSR1 (runs on the main thread, the event loop's): profile from now on."""
        if self.profile is not None:
            return
        self.threads_before = thread_cpu()
        self.profile = cProfile.Profile(time.thread_time)
        self.profile.enable()

    def stop(self, _signum: int, _frame: FrameType | None) -> None:
        """SIGUSR2: stop, write the profile and the threads' CPU."""
        if self.profile is None:
            return
        self.profile.disable()
        after = thread_cpu()
        self.profile.dump_stats(f"{self.out}.pstats")
        self.profile = None
        lines = []
        for name, (user, system) in sorted(after.items()):
            user_before, system_before = self.threads_before.get(name, (0.0, 0.0))
            lines.append(f"{name} {user - user_before:.2f} {system - system_before:.2f}\n")
        Path(f"{self.out}.threads").write_text("".join(lines))


def main() -> None:
    """Install the two signal handlers and run ``bot`` as ``python -m bot`` would."""
    profiling = Profiling(Path(sys.argv[1]).resolve())
    signal.signal(signal.SIGUSR1, profiling.start)
    signal.signal(signal.SIGUSR2, profiling.stop)
    sys.argv = [sys.argv[0]]
    runpy.run_module("bot", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
