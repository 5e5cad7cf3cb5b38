"""Where a version's lost games were lost, and whether a deeper search would have saved them.

Reads the games an A/B match saved (``python -m benchmarks.ai_ab ... --save-games FILE``) and,
for each game A lost on ``--side``, walks back from the end over A's moves to the last position
a deeper search (level 5, ``--nodes`` positions, no book) does not find lost: the move A played
there lost the game. Printed for each: that ply, the move played, the deeper search's move and
score, and the deeper search's score of the move played (searched after it). Run from the
repository root (or a checkout of the version to judge with)::

    .venv/bin/python -m benchmarks.ai_losses GAMES --side attackers --nodes 300000

The summary sorts the losses: **more depth** — the deeper search plays another move and finds
the one played lost (a loss a faster or more selective search would avoid); **beyond it too** —
the deeper search plays the same move, or finds neither lost (the loss lies past its horizon
as well: what is missing is knowledge, or far more depth); **lost from the start** — every
position of A's after the opening is already lost to the deeper search.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine import Game, Side
from engine.search import MATE_BOUND, choose_move


@dataclass(frozen=True)
class LosingMove:
    """The move that lost a game, as a deeper search sees it."""

    ply: int
    """Plies before it (its index in the game's moves)."""
    played: str
    deep_move: str
    deep_score: int
    """The deeper search's score of the position, for the side that played (not lost)."""
    played_score: int | None
    """Its score of the move played, for the same side (``None`` if the move ended the game)."""
    depth: int

    @property
    def kind(self) -> str:
        """``more depth`` or ``beyond it too`` (the module's summary)."""
        played_lost = self.played_score is None or self.played_score <= -MATE_BOUND
        if self.played != self.deep_move and played_lost:
            return "more depth"
        return "beyond it too"


def losing_move(
    moves: list[str], opening: int, side: Side, nodes: int, ruleset: str = "brandubh"
) -> LosingMove | None:
    """The last move of ``side`` after the first ``opening`` plies played from a position the
    deeper search does not find lost (``None`` if it finds all of them lost)."""
    first = 0 if side is Side.ATTACKERS else 1
    for ply in range(len(moves) - 1, opening - 1, -1):
        if (ply - first) % 2:
            continue  # the other side's move
        game = Game.from_moves(moves[:ply], ruleset=ruleset)
        deep = choose_move(game, level=5, nodes=nodes, book=False)
        if deep.score <= -MATE_BOUND:
            continue
        after = Game.from_moves(moves[: ply + 1], ruleset=ruleset)
        played_score = None
        if after.outcome is None:
            played_score = -choose_move(after, level=5, nodes=nodes, book=False).score
        return LosingMove(
            ply=ply,
            played=moves[ply],
            deep_move=str(deep.move),
            deep_score=deep.score,
            played_score=played_score,
            depth=deep.depth,
        )
    return None


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Where A's lost games were lost.")
    parser.add_argument("games", type=Path, help="an ai_ab --save-games file")
    parser.add_argument("--side", choices=[s.value for s in Side], default="attackers")
    parser.add_argument("--nodes", type=int, default=300_000, help="the deeper search's budget")
    parser.add_argument("--ruleset", default="brandubh")
    args = parser.parse_args(list(argv) if argv is not None else None)
    side = Side(args.side)
    kinds: Counter[str] = Counter()
    for line in args.games.read_text().splitlines():
        record = json.loads(line)
        if record[side.value] != "A" or record["winner"] in (None, side.value):
            continue
        found = losing_move(record["moves"], record["opening"], side, args.nodes, args.ruleset)
        if found is None:
            kinds["lost from the start"] += 1
            print(f"game {record['seed']}: lost from the start", flush=True)
            continue
        kinds[found.kind] += 1
        played = "ends the game" if found.played_score is None else f"{found.played_score}"
        print(
            f"game {record['seed']} ({record['reason']}, {len(record['moves'])} plies): "
            f"ply {found.ply} {found.played} (deeper: {played}); deeper search "
            f"{found.deep_move} {found.deep_score} at depth {found.depth}: {found.kind}",
            flush=True,
        )
    total = sum(kinds.values())
    print(
        f"{total} games A lost as the {side.value}: "
        + ", ".join(f"{kind} {kinds[kind]}" for kind in ("more depth", "beyond it too"))
        + f", lost from the start {kinds['lost from the start']}"
    )


if __name__ == "__main__":
    main()
