"""Everything about a ruleset's board that can be computed once: rays, neighbours, hostility.

The tables are indexed by square (``rank * 16 + file``) so the hot loops of the board are list
look-ups. One :class:`Geometry` is built per ruleset and cached (the latest 32).
"""

from __future__ import annotations

import functools
import random

from engine.rules import Escape, Ruleset
from engine.squares import Square, square

CELLS = 256
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Geometry:
    """Precomputed tables for one ruleset (board size, special squares, Zobrist keys)."""

    __slots__ = (
        "beside_throne",
        "blocks",
        "board_mask",
        "capture_pairs",
        "corners",
        "edge_mask",
        "escape",
        "hostile_to_attacker",
        "hostile_to_defender",
        "hostile_to_king",
        "neighbours",
        "on_board",
        "rays",
        "restricted",
        "rules",
        "size",
        "squares",
        "throne",
        "unrestricted_mask",
        "z_side",
        "zobrist",
    )

    def __init__(self, rules: Ruleset) -> None:
        n = rules.size
        self.rules = rules
        self.size = n
        self.squares: tuple[Square, ...] = tuple(square(f, r) for r in range(n) for f in range(n))
        self.on_board = [False] * CELLS
        for sq in self.squares:
            self.on_board[sq] = True
        mid = n // 2
        self.throne: Square = square(mid, mid) if rules.throne else -1
        self.corners: frozenset[Square] = (
            frozenset({square(0, 0), square(n - 1, 0), square(0, n - 1), square(n - 1, n - 1)})
            if rules.corners_restricted
            else frozenset()
        )
        self.restricted = [False] * CELLS
        for sq in self.corners:
            self.restricted[sq] = True
        if self.throne >= 0:
            self.restricted[self.throne] = True
        self.blocks = [False] * CELLS
        if self.throne >= 0 and not rules.throne_passable:
            self.blocks[self.throne] = True
        self.escape = [False] * CELLS
        for sq in self.squares:
            f, r = sq & 15, sq >> 4
            on_edge = f in (0, n - 1) or r in (0, n - 1)
            if (rules.escape is Escape.EDGE and on_edge) or sq in self.corners:
                self.escape[sq] = True
        # Hostility of an *empty* special square (docs/rules.md §5).
        self.hostile_to_attacker = list(self.restricted)
        self.hostile_to_defender = list(self.restricted)
        self.hostile_to_king = [sq in self.corners for sq in range(CELLS)]

        self.rays: list[tuple[tuple[Square, ...], ...]] = [() for _ in range(CELLS)]
        self.neighbours: list[tuple[Square, ...]] = [() for _ in range(CELLS)]
        self.capture_pairs: list[tuple[tuple[Square, Square], ...]] = [() for _ in range(CELLS)]
        for sq in self.squares:
            f, r = sq & 15, sq >> 4
            rays = []
            neighbours = []
            pairs = []
            for df, dr in _DIRECTIONS:
                ray = []
                ff, rr = f + df, r + dr
                while 0 <= ff < n and 0 <= rr < n:
                    ray.append(square(ff, rr))
                    ff, rr = ff + df, rr + dr
                if ray:
                    rays.append(tuple(ray))
                    neighbours.append(ray[0])
                    pairs.append((ray[0], ray[1] if len(ray) > 1 else -1))
            self.rays[sq] = tuple(rays)
            self.neighbours[sq] = tuple(neighbours)
            self.capture_pairs[sq] = tuple(pairs)
        self.beside_throne = [False] * CELLS
        if self.throne >= 0:
            for sq in self.neighbours[self.throne]:
                self.beside_throne[sq] = True

        self.board_mask = sum(1 << sq for sq in self.squares)
        self.unrestricted_mask = sum(1 << sq for sq in self.squares if not self.restricted[sq])
        self.edge_mask = sum(
            1 << sq for sq in self.squares if (sq & 15) in (0, n - 1) or (sq >> 4) in (0, n - 1)
        )
        rng = random.Random(0x7AF1 + n)
        self.zobrist = [[rng.getrandbits(64) for _ in range(CELLS)] for _ in range(4)]
        self.z_side = rng.getrandbits(64)


@functools.lru_cache(maxsize=32)  # the built-in rulesets and a few records' own
def geometry(rules: Ruleset) -> Geometry:
    """The (cached) tables of ``rules``: of the 32 latest rulesets, as each record read with
    its own rules brings one."""
    return Geometry(rules)
