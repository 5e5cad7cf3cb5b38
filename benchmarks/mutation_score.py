"""How many deliberate bugs the tests catch: mutmut's kill score per file.

Run ``python -m benchmarks.mutation_score`` from the repository root (the ``dev`` extra installs
mutmut). mutmut copies the code to ``mutants/``, makes one small change at a time (a ``<`` for a
``<=``, a ``+ 1``, a dropped ``not``...) in ``engine/board.py``, ``engine/game.py``,
``engine/match.py``, ``engine/record.py`` and ``bot/ratings.py``, and runs the engine and ratings
tests that reach the changed function (``[tool.mutmut]`` in ``pyproject.toml``). A mutant the
tests fail on is *killed*; one they pass with *survived*: either a gap in the tests or an
*equivalent* mutant, a change no test can see (docs/mutation.md lists those).

Mutation runs are long and use every worker they are given: ``--workers`` (default 1) limits
them, ``--files board game`` scopes a run to some files, and mutmut keeps its results in
``mutants/``, re-testing only functions changed since. ``--fresh`` starts over. Targets: at least
95 % on the engine files and 90 % on the ratings.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = {
    "board": ("engine/board.py", 95.0),
    "game": ("engine/game.py", 95.0),
    "match": ("engine/match.py", 95.0),
    "record": ("engine/record.py", 95.0),
    "ratings": ("bot/ratings.py", 90.0),
}
"""Short name: (file, target kill score in %)."""

KILLED = {1, 3}
"""mutmut's exit codes of a test run that failed (3: pytest's internal error, also a failure)."""
TIMEOUT = {36, 24, -24, 152, 255}
"""Exit codes of a test run stopped for taking too long: the mutant made a loop endless."""
SURVIVED = 0


@dataclass
class Score:
    """The mutants of one file, counted by what the tests made of them."""

    path: str
    target: float
    killed: int = 0
    timeout: int = 0
    survived: list[str] = field(default_factory=list)
    other: int = 0
    """No test reached the mutant, or it was not checked yet."""

    @property
    def total(self) -> int:
        return self.killed + self.timeout + len(self.survived) + self.other

    @property
    def percent(self) -> float:
        """Killed (a timeout counts: the tests noticed) out of every mutant."""
        return 100.0 * (self.killed + self.timeout) / self.total if self.total else 0.0


def module_pattern(path: str) -> str:
    """mutmut's name pattern for every mutant of ``path``: ``engine.board*``."""
    return path.removesuffix(".py").replace("/", ".") + "*"


def score(path: str, target: float) -> Score:
    """The counts in mutmut's results for ``path`` (``mutants/PATH.meta``)."""
    result = Score(path, target)
    meta = ROOT / "mutants" / f"{path}.meta"
    if not meta.exists():
        return result
    exit_codes: dict[str, int | None] = json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
    for name, code in sorted(exit_codes.items()):
        if code in KILLED:
            result.killed += 1
        elif code in TIMEOUT:
            result.timeout += 1
        elif code == SURVIVED:
            result.survived.append(name)
        else:
            result.other += 1
    return result


def run_mutmut(paths: list[str], workers: int, log: Path) -> float:
    """Run mutmut over the mutants of ``paths``; its output goes to ``log``. Seconds taken."""
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(workers)]
    command += [module_pattern(path) for path in paths]
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        finished = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    if finished.returncode != 0:
        raise SystemExit(f"mutmut stopped with exit code {finished.returncode}: see {log}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--files", nargs="+", choices=sorted(FILES), default=list(FILES), help="files to mutate"
    )
    parser.add_argument("--workers", type=int, default=1, help="test processes at once")
    parser.add_argument("--fresh", action="store_true", help="forget earlier results first")
    parser.add_argument("--report", action="store_true", help="print the last results only")
    parser.add_argument("--survivors", action="store_true", help="name every surviving mutant")
    args = parser.parse_args()

    paths = [FILES[name][0] for name in args.files]
    if args.fresh:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    if not args.report:
        log = ROOT / "mutants" / "run.log"
        log.parent.mkdir(exist_ok=True)
        seconds = run_mutmut(paths, args.workers, log)
        print(f"mutmut ran for {seconds / 60:.1f} min with {args.workers} worker(s); log: {log}\n")

    scores = [score(*FILES[name]) for name in args.files]
    print(f"{'file':<18}{'mutants':>8}{'killed':>8}{'timeout':>8}{'survived':>9}{'score':>8}")
    for s in scores:
        verdict = "" if s.percent >= s.target else f"  (target {s.target:.0f} %)"
        print(
            f"{s.path:<18}{s.total:>8}{s.killed:>8}{s.timeout:>8}{len(s.survived):>9}"
            f"{s.percent:>7.1f}%{verdict}"
        )
        if s.other:
            print(f"{'':<18}{s.other} mutants not tested (no test reaches them, or not run yet)")
    total = Score("all", 0.0)
    for s in scores:
        total.killed += s.killed
        total.timeout += s.timeout
        total.survived += s.survived
        total.other += s.other
    print(
        f"{'together':<18}{total.total:>8}{total.killed:>8}{total.timeout:>8}"
        f"{len(total.survived):>9}{total.percent:>7.1f}%"
    )
    if args.survivors:
        print("\nsurvivors (inspect one with: mutmut show NAME):")
        for name in total.survived:
            print(f"  {name}")


if __name__ == "__main__":
    main()
