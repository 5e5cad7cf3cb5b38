"""How good a position looks to the computer opponent, without searching.

The evaluation knows what decides a game of Brandubh: material, the king's open lines to the
escape squares now and after one more move, his freedom to move, the attackers pressing on him,
attackers guarding the corners from the squares diagonally in front of them (but not from the
squares beside them, where a defender captures them against the hostile corner), the king's
distance from the nearest escape square, and whether the side to move can capture a piece.

The weights were set by games between versions of the engine (``benchmarks/ai_strength.py``
and an A/B match at a fixed node count); the README's section on the computer opponent gives
the figures. On brandubh, piece-square tables and a tempo fitted to the results of self-play
games (``benchmarks/fit_evaluation.py``, :data:`TUNED`) are added to these terms, and a weight
for each edge left without an attacker (a road for the king to two corners), set by A/B matches.

Everything that can be computed once per ruleset lives in :class:`Tables`; the per-position work
is a handful of list look-ups and big-int masks, because it runs at every leaf of the search.
"""

from __future__ import annotations

import functools

from engine.board import ATTACKER, DEFENDER, KING, Board
from engine.geometry import CELLS, geometry
from engine.rules import Ruleset
from engine.squares import Square

# Weights in centipawn-like units. Scores are the defenders' view.
ATTACKER_VALUE = 130
DEFENDER_VALUE = 130
"""Equal: fitting results of engine games to positions gave a defender and an attacker the same
worth, and valuing defenders higher measured weaker."""
OPEN_LINE = 110
"""Each line on which the king could reach an escape square with his next move."""
TWO_MOVE_ROUTE = 40
"""Each square the king can reach from which an escape square is open."""
KING_MOBILITY = 5
KING_PRESSURE = 30
"""Each attacker beside the king."""
CORNER_DISTANCE = 6
GUARD_NEXT_TO_CORNER = -60
"""An attacker beside a corner is a target: a defender landing beyond it captures it."""
GUARD_DIAGONAL = 22
THREAT = 60
"""The side to move can capture a piece with its next move."""
EMPTY_EDGE = 40
"""Each edge with no attacker between its corners (fitted evaluation only): the king who
reaches it runs along it to either corner, so one attacker on every edge matters more than
where the tables would put him."""


_UNBOUNDED = 1 << 30
"""Beyond every score: :func:`evaluate`'s window when none is given."""


class Tuned:
    """Weights fitted to the results of self-play games for one ruleset ("Texel tuning",
    ``benchmarks/fit_evaluation.py``): they replace the hand-set terms above, except the capture
    threat. The material values, the corner distance and the guards of the corners live in the
    piece-square tables, given for the ten classes of squares the eight symmetries of a 7x7
    board leave, in the order of :data:`SQUARE_CLASSES`; all from the defenders' view."""

    __slots__ = (
        "attacker",
        "defender",
        "empty_edge",
        "king",
        "king_mobility",
        "king_pressure",
        "open_line",
        "tempo",
        "two_move_route",
    )

    def __init__(
        self,
        *,
        open_line: int,
        two_move_route: int,
        king_mobility: int,
        king_pressure: int,
        tempo: int,
        attacker: tuple[int, ...],
        defender: tuple[int, ...],
        king: tuple[int, ...],
        empty_edge: int = 0,
    ) -> None:
        self.open_line = open_line
        self.two_move_route = two_move_route
        self.king_mobility = king_mobility
        self.king_pressure = king_pressure
        self.tempo = tempo
        self.attacker = attacker
        self.defender = defender
        self.king = king
        self.empty_edge = empty_edge
        """Each edge of the board with no attacker on it (set by A/B matches, not fitted: no
        piece-square table can say that an edge is empty)."""


SQUARE_CLASSES = ((0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3))
"""The classes of the squares of a 7x7 board under its symmetries: the square's distances from
the nearer file edge and rank edge, smaller first; (0, 0) is a corner, (3, 3) the throne."""


def square_class(sq: Square, size: int) -> int:
    """The index in :data:`SQUARE_CLASSES` of ``sq`` on a ``size`` x ``size`` board."""
    f, r = sq & 15, sq >> 4
    a, b = min(f, size - 1 - f), min(r, size - 1 - r)
    return SQUARE_CLASSES.index((min(a, b), max(a, b)))


TUNED: dict[str, Tuned] = {
    # python -m benchmarks.fit_evaluation --on-today: piece-square tables and a tempo fitted on
    # top of the hand-set evaluation, whose terms keep their weights (3,000 self-play games at
    # 3,000 nodes a move, 40,305 quiet positions, ridge 2 on the tables); the empty edges
    # added afterwards, by A/B matches (README, "A fifth round").
    "brandubh": Tuned(
        open_line=OPEN_LINE,
        two_move_route=TWO_MOVE_ROUTE,
        king_mobility=KING_MOBILITY,
        king_pressure=-KING_PRESSURE,
        tempo=7,
        attacker=(0, -163, -163, -172, -175, -176, -165, -225, -207, 0),
        defender=(0, 36, 175, 144, 103, 120, 79, 123, 94, 0),
        king=(0, 218, 133, -52, -69, -100, -145, -108, -38, -20),
        empty_edge=EMPTY_EDGE,
    ),
}
"""The fitted evaluations, by ruleset name; every other ruleset uses the hand-set terms."""


class Tables:
    """Per-ruleset tables for the evaluation and the threat checks of the search."""

    __slots__ = (
        "anvil_for_attacker",
        "anvil_for_defender",
        "around",
        "attacker_square",
        "corner_distance",
        "edges",
        "escape_lines",
        "guard_masks",
        "landing",
        "line_pairs",
        "rays",
        "square_values",
        "tuned",
    )

    def __init__(self, rules: Ruleset) -> None:
        geo = geometry(rules)
        self.rays = geo.rays
        # escape_lines[sq]: masks of the squares a king on sq crosses (destination included) to
        # stop on an escape square in one move; the line is open when no piece is on the mask.
        lines: list[tuple[int, ...]] = [() for _ in range(CELLS)]
        for sq in geo.squares:
            masks = []
            for ray in geo.rays[sq]:
                mask = 0
                for to in ray:
                    mask |= 1 << to
                    if geo.escape[to]:
                        masks.append(mask)
            lines[sq] = tuple(masks)
        self.escape_lines = lines
        # around[sq]: the mask of the squares beside sq (where a move capturing a king on sq
        # lands).
        self.around = [0] * CELLS
        for sq in geo.squares:
            for n in geo.neighbours[sq]:
                self.around[sq] |= 1 << n
        escapes = [sq for sq in geo.squares if geo.escape[sq]]
        self.corner_distance = [0] * CELLS
        for sq in geo.squares:
            self.corner_distance[sq] = min(
                abs((sq & 15) - (e & 15)) + abs((sq >> 4) - (e >> 4)) for e in escapes
            )
        # line_pairs[sq]: (side, opposite) neighbour pairs along one line through sq: the two
        # squares a capture of a piece on sq needs.
        pairs: list[tuple[tuple[Square, Square], ...]] = [() for _ in range(CELLS)]
        for sq in geo.squares:
            found = []
            for a, b in ((1, -1), (16, -16)):
                n, f = sq + a, sq + b
                if (
                    0 <= n < CELLS
                    and 0 <= f < CELLS
                    and geo.on_board[n]
                    and geo.on_board[f]
                    and abs((n & 15) - (sq & 15)) <= 1
                    and abs((f & 15) - (sq & 15)) <= 1
                ):
                    found.append((n, f))
                    found.append((f, n))
            pairs[sq] = tuple(found)
        self.line_pairs = pairs
        # Attackers guarding the corners: beside a corner, or diagonally in front of it.
        self.attacker_square = [0] * CELLS
        for corner in geo.corners:
            for n in geo.neighbours[corner]:
                self.attacker_square[n] += GUARD_NEXT_TO_CORNER
            f, r = corner & 15, corner >> 4
            df = 1 if f == 0 else -1
            dr = 1 if r == 0 else -1
            self.attacker_square[(r + dr) * 16 + f + df] += GUARD_DIAGONAL
        # The same as (weight, mask of the squares with that weight) pairs, for bit counts.
        weights = sorted({w for w in self.attacker_square if w})
        self.guard_masks = tuple(
            (w, sum(1 << sq for sq in range(CELLS) if self.attacker_square[sq] == w))
            for w in weights
        )
        # Bit masks for the capture-threat check: the squares a capturing piece may stop on
        # (on the board, not restricted) and the empty squares hostile to each side's pieces.
        self.landing = geo.unrestricted_mask
        self.anvil_for_attacker = sum(1 << sq for sq in geo.squares if geo.hostile_to_defender[sq])
        self.anvil_for_defender = sum(1 << sq for sq in geo.squares if geo.hostile_to_attacker[sq])
        # The edges between the escape squares, as masks (none on the boards whose every edge
        # square is an escape square).
        last = geo.size - 1
        sides: list[list[Square]] = [[], [], [], []]
        for sq in geo.squares:
            if geo.escape[sq]:
                continue
            f, r = sq & 15, sq >> 4
            for i, on_edge in enumerate((f == 0, f == last, r == 0, r == last)):
                if on_edge:
                    sides[i].append(sq)
        self.edges = tuple(sum(1 << sq for sq in side) for side in sides if side)
        # A fitted evaluation: per-square values of an attacker, a defender and the king
        # (the king's less a defender's, since the king is among the defenders).
        self.tuned = TUNED.get(rules.name)
        self.square_values: tuple[list[int], list[int], list[int]] = ([], [], [])
        if self.tuned is not None:
            att = [0] * CELLS
            dfn = [0] * CELLS
            kng = [0] * CELLS
            for sq in geo.squares:
                c = square_class(sq, geo.size)
                att[sq] = self.tuned.attacker[c]
                dfn[sq] = self.tuned.defender[c]
                kng[sq] = self.tuned.king[c] - dfn[sq]
            self.square_values = (att, dfn, kng)


RULESETS_CACHED = 16
"""How many rulesets' tables are kept: twice the bot's own, room for rulesets records carry;
past that the least recently searched goes and is built again if needed (once a search)."""


@functools.lru_cache(maxsize=RULESETS_CACHED)
def tables(rules: Ruleset) -> Tables:
    """The (cached) evaluation tables of ``rules``: the :data:`RULESETS_CACHED` last used."""
    return Tables(rules)


def evaluate(board: Board, t: Tables, alpha: int = -_UNBOUNDED, beta: int = _UNBOUNDED) -> int:
    """The static score of ``board`` for the side to move (positive is good for it).

    Given a window, the capture threat is looked for only when it could carry the score across
    it: when even with :data:`THREAT` the score is at most ``alpha``, the score plus THREAT is
    returned (an upper bound, never below the true score); when without it the score is at
    least ``beta``, the score without it (a lower bound, never above) — all a search needs
    there. The quiescence search skips nine threat checks in ten so."""
    cells = board.cells
    king = board.king
    if king < 0:  # only reached through a finished game; the search scores those itself
        return -10_000 if board.turn == DEFENDER else 10_000
    if t.tuned is not None:
        return _evaluate_tuned(board, t, t.tuned, alpha, beta)
    occupied = board.att_bb | board.def_bb
    escape_lines = t.escape_lines
    score = DEFENDER_VALUE * (len(board.defenders) - 1) - ATTACKER_VALUE * len(board.attackers)
    for mask in escape_lines[king]:
        if not occupied & mask:
            score += OPEN_LINE
    mobility = 0
    routes = 0
    for ray in t.rays[king]:
        for to in ray:
            if cells[to]:
                if cells[to] == ATTACKER and to == ray[0]:
                    score -= KING_PRESSURE
                break
            mobility += 1
            for mask in escape_lines[to]:
                if not occupied & mask:
                    routes += 1
                    break
    score += KING_MOBILITY * mobility + TWO_MOVE_ROUTE * routes
    score -= CORNER_DISTANCE * t.corner_distance[king]
    att_bb = board.att_bb
    for weight, mask in t.guard_masks:
        score -= weight * (att_bb & mask).bit_count()
    return _with_threat(board, t, score, alpha, beta)


def _with_threat(board: Board, t: Tables, score: int, alpha: int, beta: int) -> int:
    """``score`` (the defenders' view) for the side to move, with :data:`THREAT` if it can
    capture — looked for only when that could move the score across ``alpha`` or ``beta``."""
    mover = board.turn
    if mover != DEFENDER:
        score = -score
    if score >= beta:
        return score
    if score + THREAT <= alpha:
        return score + THREAT
    return score + THREAT if can_capture(board, t, mover) else score


def _evaluate_tuned(board: Board, t: Tables, w: Tuned, alpha: int, beta: int) -> int:
    """:func:`evaluate` with the fitted weights ``w`` of the ruleset."""
    cells = board.cells
    king = board.king
    occupied = board.att_bb | board.def_bb
    escape_lines = t.escape_lines
    att, dfn, kng = t.square_values
    score = kng[king]
    for sq in board.attackers:
        score += att[sq]
    for sq in board.defenders:
        score += dfn[sq]
    for mask in escape_lines[king]:
        if not occupied & mask:
            score += w.open_line
    mobility = 0
    routes = 0
    pressure = 0
    for ray in t.rays[king]:
        for to in ray:
            if cells[to]:
                if cells[to] == ATTACKER and to == ray[0]:
                    pressure += 1
                break
            mobility += 1
            for mask in escape_lines[to]:
                if not occupied & mask:
                    routes += 1
                    break
    score += w.king_mobility * mobility + w.two_move_route * routes + w.king_pressure * pressure
    if w.empty_edge:
        att_bb = board.att_bb
        for mask in t.edges:
            if not att_bb & mask:
                score += w.empty_edge
    # The tempo is the side to move's: added to the defenders' view, or taken from it.
    return _with_threat(
        board, t, score + w.tempo if board.turn == DEFENDER else score - w.tempo, alpha, beta
    )


_FEW_TARGETS = 8
"""Up to this many enemy pieces (brandubh's attackers), the threat check walks over them."""

_DEFENDER_HAMMERS = {True: (DEFENDER, KING), False: (DEFENDER,)}
"""The pieces that capture for the defenders, by whether the king is armed."""


def can_capture(board: Board, t: Tables, mover: int) -> bool:
    """Whether ``mover`` (``ATTACKER`` or ``DEFENDER``) could take an enemy piece (never the
    king) in one move.

    A target falls when the mover brings a piece to an empty square beside it with a piece of
    the mover's, or a hostile empty square, on the other side. The squares where that would
    happen are found with shifts of the bit masks (squares are ``rank * 16 + file`` on boards at
    most 15 wide, so a shift by one file never joins the two ends of a rank); only for those
    does a ray walk look for a piece of the mover's that can get there. Against a few pieces
    (up to ``_FEW_TARGETS``) a walk over them is faster.
    """
    few = board.defenders if mover == ATTACKER else board.attackers
    if len(few) <= _FEW_TARGETS:
        return _can_capture_walk(board, t, few, mover)
    att_bb = board.att_bb
    def_bb = board.def_bb
    occupied = att_bb | def_bb
    king_bit = 1 << board.king if board.king >= 0 else 0
    if mover == ATTACKER:
        targets = def_bb & ~king_bit
        anvils = att_bb | (t.anvil_for_attacker & ~occupied)
        hammers: tuple[int, ...] = (ATTACKER,)
    else:
        targets = att_bb
        armed = board.rules.king_armed
        anvils = (def_bb if armed else def_bb & ~king_bit) | (t.anvil_for_defender & ~occupied)
        hammers = _DEFENDER_HAMMERS[armed]
    free = t.landing & ~occupied
    squares = free & (
        (targets << 1 & anvils << 2)
        | (targets >> 1 & anvils >> 2)
        | (targets << 16 & anvils << 32)
        | (targets >> 16 & anvils >> 32)
    )
    if not squares:
        return False
    cells = board.cells
    geo = board.geo
    rays = geo.rays
    blocks = geo.blocks
    while squares:
        low = squares & -squares
        if _reaches(cells, rays[low.bit_length() - 1], blocks, hammers):
            return True
        squares ^= low
    return False


def _can_capture_walk(board: Board, t: Tables, targets: set[Square], mover: int) -> bool:
    """:func:`can_capture` by a walk over ``targets``, the other side's pieces: faster than the
    masks when they are few (brandubh).

    A target (never the king) falls when the mover brings a piece to an empty square beside it
    with a piece of the mover's, or a hostile empty square, on the other side.
    """
    cells = board.cells
    geo = board.geo
    restricted = geo.restricted
    hostile = geo.hostile_to_defender if mover == ATTACKER else geo.hostile_to_attacker
    hammers = (ATTACKER,) if mover == ATTACKER else _DEFENDER_HAMMERS[board.rules.king_armed]
    armed = board.rules.king_armed
    king = board.king
    for s in targets:
        if s == king:
            continue
        for n, f in t.line_pairs[s]:
            if cells[n] or restricted[n]:
                continue
            anvil = cells[f]
            if anvil:
                if anvil == ATTACKER:
                    if mover != ATTACKER:
                        continue
                elif mover == ATTACKER or (anvil == KING and not armed):
                    continue
            elif not hostile[f]:
                continue
            if _reaches(cells, geo.rays[n], geo.blocks, hammers):
                return True
    return False


def king_capturable(board: Board, t: Tables) -> bool:
    """Whether the attackers, if it is their turn, can capture the king with one move.

    Exact for every ruleset of :mod:`engine.rules`: on the throne the king needs attackers on all
    four sides, beside it (when the ruleset says so) on his three free sides, elsewhere two on
    opposite sides or one against a corner.
    """
    king = board.king
    if king < 0:
        return False
    cells = board.cells
    geo = board.geo
    if king == geo.throne or (
        geo.beside_throne[king] and board.rules.king_sides_beside_throne == 3
    ):
        missing = -1
        for n in geo.neighbours[king]:
            if n == geo.throne or cells[n] == ATTACKER:
                continue
            if cells[n] or missing >= 0:
                return False
            missing = n
        return missing >= 0 and _reaches(cells, geo.rays[missing], geo.blocks, (ATTACKER,))
    hostile = geo.hostile_to_king
    for n, f in t.line_pairs[king]:
        if cells[n] or geo.restricted[n]:
            continue
        jaw = cells[f]
        if (jaw == ATTACKER or (not jaw and hostile[f])) and _reaches(
            cells, geo.rays[n], geo.blocks, (ATTACKER,)
        ):
            return True
    return False


def _reaches(
    cells: list[int],
    rays: tuple[tuple[Square, ...], ...],
    blocks: list[bool],
    pieces: tuple[int, ...],
) -> bool:
    """Whether one of ``pieces`` stands at the first occupied square of one of ``rays``."""
    for ray in rays:
        for sq in ray:
            c = cells[sq]
            if c:
                if c in pieces:
                    return True
                break
            if blocks[sq]:
                break
    return False


def capture_moves(board: Board, t: Tables) -> list[int]:
    """Moves of the side to move that land beside an enemy piece (not the king) with a jaw
    beyond it: every capturing move is among them (a few may capture nothing, when the moving
    piece was itself the jaw)."""
    cells = board.cells
    geo = board.geo
    restricted = geo.restricted
    blocks = geo.blocks
    mover = board.turn
    if mover == ATTACKER:
        targets = board.defenders
        hostile = geo.hostile_to_defender
    else:
        targets = board.attackers
        hostile = geo.hostile_to_attacker
    armed = board.rules.king_armed
    king = board.king
    found: set[int] = set()
    for s in targets:
        if s == king:
            continue
        for n, f in t.line_pairs[s]:
            if cells[n]:
                continue
            king_only = restricted[n]  # only the king may stop on a restricted square
            if king_only and mover == ATTACKER:
                continue
            anvil = cells[f]
            if anvil:
                if anvil == ATTACKER:
                    if mover != ATTACKER:
                        continue
                elif mover == ATTACKER or (anvil == KING and not armed and f != geo.throne):
                    continue
            elif not hostile[f]:
                continue
            for ray in geo.rays[n]:
                passed_block = False  # only the king crosses a blocking square
                for sq in ray:
                    c = cells[sq]
                    if c:
                        if c == KING:
                            if armed and mover == DEFENDER:
                                found.add(sq << 8 | n)
                        elif not (passed_block or king_only) and (c == ATTACKER) == (
                            mover == ATTACKER
                        ):
                            found.add(sq << 8 | n)
                        break
                    if blocks[sq]:
                        passed_block = True
    return list(found)
