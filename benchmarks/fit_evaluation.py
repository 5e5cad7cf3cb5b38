"""Fit the whole brandubh evaluation, piece-square tables included, to self-play results
("Texel tuning").

Run from the repository root::

    nice -n 19 .venv/bin/python -m benchmarks.fit_evaluation --games 2000 --nodes 3000 \\
        --workers 2 --save /tmp/texel_games.json
    nice -n 19 .venv/bin/python -m benchmarks.fit_evaluation --load /tmp/texel_games.json

The first command plays ``--games`` games of level 5 against itself (``--nodes`` positions a
move, no opening book) from random openings of 2-6 plies, so that every game is a different
one, in ``--workers`` processes; keeps every quiet position after the opening (one where the
side to move can neither capture a piece nor win at once) with the game's result; saves the
feature rows to ``--save`` and fits. The second refits saved rows without playing (several
files given to ``--load`` are joined in the order given; ``--holdout`` then tests on the last
file's last games). The games
are played by the engine of the checkout, so once the fitted weights are in
``engine/evaluation.py`` new games are the tuned engine's.

The features (``benchmarks/texel_positions.py``) are the raw counts behind each term of today's
evaluation (``engine/evaluation.py``), from the defenders' view: attackers, defenders (the king
not counted), the king's open lines, two-move routes, mobility, attackers beside him, his
distance from the nearest corner, attackers beside a corner and diagonally in front of one; a
side to move indicator (+1 when the defenders move); the side not to move's capture threat
(shown, not in today's evaluation); and piece-square tables for the attackers, the defenders and
the king, each over the ten classes of squares that the eight symmetries of the square board
leave on 7x7. The threat term of today's evaluation cannot be fitted: in a quiet position the
side to move has no capture. The corner distance is a function of the king's square and the
guard squares are attacker squares, so they are exact linear combinations of the piece-square
classes: the full model leaves them out (the tables carry them).

Three logistic models of P(defenders win) are fitted by Newton's method:

* ``scale``: ``sigmoid(c + s * eval)`` on today's whole evaluation (defenders' view), which
  gives the logistic scale ``s`` of one evaluation unit;
* ``terms``: one weight for each of today's terms, without tables;
* ``full``: the terms and the three piece-square tables (an L2 penalty ``--ridge`` on the
  table entries only keeps them identifiable: the class counts of a table add up to its
  material count, and the king's to the constant).

Each weight is printed divided by ``s``, in the evaluation's units, next to today's, with a
rough error: the Fisher information's, times the square root of the mean number of positions a
game (positions of one game are not independent). The last lines print the full model as the
``Tuned(...)`` of ``engine/evaluation.py`` (material folded into the tables, rounded).
``--without-open-lines`` fits only the positions where the king has no open line (where the
attackers need not block at once); the open line then keeps today's weight. ``--holdout
0.2`` fits the first 80 % of the positions (in game order) and prints each model's log loss on
the last 20 % too, a check that the tables do not just fit noise. ``--on-today`` fits instead
a side to move term and the tables on top of today's whole evaluation times ``s`` (a fixed
offset): the tables and the tempo to add to today's evaluation, whose weights are kept.
``--label-depth D`` also scores every kept position by a full search ``D`` plies deep (saved
with the rows); ``--mix w`` then fits on labels from those scores instead of the results alone:
``(1 - w) * sigmoid(c + k * score) + w * result``, where ``c`` and ``k`` are fitted on the game
results (the chance of a defenders' win the deeper search's score gives), so that a position
is judged by what a deeper search sees in it rather than by how one game from it ended (in
games between equals the defenders win nine in ten, and the results say little about the
attackers' play). Deterministic for a given command.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.fit_piece_values import solve
from benchmarks.texel_positions import (
    CLASSES,
    TABLES,
    TERMS,
    TODAY,
    Record,
    play_game,
)
from engine.evaluation import (
    ATTACKER_VALUE,
    CORNER_DISTANCE,
    DEFENDER_VALUE,
    GUARD_DIAGONAL,
    GUARD_NEXT_TO_CORNER,
    KING_MOBILITY,
    KING_PRESSURE,
    OPEN_LINE,
    TWO_MOVE_ROUTE,
)


def search_labels(
    scores: Sequence[int], results: Sequence[float], mix: float
) -> tuple[list[float], float, float]:
    """Each position's label when the deeper search speaks too: the chance of a defenders' win
    its score gives (``sigmoid(c + s * score)``, ``c`` and ``s`` fitted on the game results),
    weighted ``1 - mix`` against the game's result weighted ``mix``; and ``c``, ``s``."""
    (c, s), _, _, _ = fit([[1.0, float(v)] for v in scores], results, [0.0, 0.0])
    labels = [
        mix * y + (1 - mix) / (1 + math.exp(-(c + s * v)))
        for v, y in zip(scores, results, strict=True)
    ]
    return labels, c, s


def fit(
    rows: Sequence[Sequence[float]],
    results: Sequence[float],
    ridge: Sequence[float],
    offsets: Sequence[float] | None = None,
) -> tuple[list[float], list[float], float, list[list[float]]]:
    """Logistic regression by Newton's method with an L2 penalty ``ridge[i]`` on coefficient
    ``i``: the coefficients, their standard errors, the mean log loss and the Hessian (for the
    errors of sums of coefficients). ``offsets``, if given, are added to each row's logit with
    no coefficient of their own."""
    k = len(rows[0])
    beta = [0.0] * k
    hessian: list[list[float]] = []
    loss = 0.0
    # Distinct rows with their weight and summed result: the fit is the same, and faster.
    grouped: dict[tuple[float, ...], list[float]] = {}
    fixed = offsets if offsets is not None else [0.0] * len(rows)
    for x, y, o in zip(rows, results, fixed, strict=True):
        entry = grouped.setdefault((o, *x), [0.0, 0.0])
        entry[0] += 1
        entry[1] += y

    def penalty(beta: Sequence[float]) -> float:
        return sum(r * b * b for r, b in zip(ridge, beta, strict=True)) / 2

    def objective(beta: Sequence[float]) -> float:
        total = penalty(beta)
        for (o, *x), (n, ys) in grouped.items():
            z = max(-30.0, min(30.0, o + sum(b * xi for b, xi in zip(beta, x, strict=True))))
            total += ys * math.log(1 + math.exp(-z)) + (n - ys) * math.log(1 + math.exp(z))
        return total

    for _ in range(40):
        gradient = [-ridge[i] * beta[i] for i in range(k)]
        hessian = [[ridge[i] + 1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        loss = 0.0
        for (o, *x), (n, ys) in grouped.items():
            z = o + sum(b * xi for b, xi in zip(beta, x, strict=True))
            z = max(-30.0, min(30.0, z))
            p = 1 / (1 + math.exp(-z))
            loss += ys * math.log(1 + math.exp(-z)) + (n - ys) * math.log(1 + math.exp(z))
            w = n * p * (1 - p)
            r = ys - n * p
            nonzero = [i for i in range(k) if x[i]]
            for i in nonzero:
                gradient[i] += r * x[i]
                wi = w * x[i]
                row = hessian[i]
                for j in nonzero:
                    row[j] += wi * x[j]
        step = solve(hessian, gradient)
        # Halve the step while it makes the penalised loss worse (Newton's method alone can
        # overshoot far from the optimum).
        before = loss + penalty(beta)
        for _ in range(30):
            trial = [b + s for b, s in zip(beta, step, strict=True)]
            if objective(trial) <= before + 1e-9:
                break
            step = [s / 2 for s in step]
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    errors = []
    for i in range(k):
        unit = [1.0 if j == i else 0.0 for j in range(k)]
        errors.append(math.sqrt(max(0.0, solve(hessian, unit)[i])))
    return beta, errors, loss / len(rows), hessian


def _class_name(index: int) -> str:
    near, far = CLASSES[index]
    # A representative square of the class, in the board's notation (file a-g, rank 1-7).
    return f"{'abcdefg'[near]}{far + 1}"


def log_loss(
    beta: Sequence[float],
    rows: Sequence[Sequence[float]],
    results: Sequence[float],
    offsets: Sequence[float] | None = None,
) -> float:
    """The mean log loss of coefficients ``beta`` (and ``offsets``) on ``rows`` (NaN when there
    are none)."""
    total = 0.0
    fixed = offsets if offsets is not None else [0.0] * len(rows)
    for x, y, o in zip(rows, results, fixed, strict=True):
        z = o + sum(b * xi for b, xi in zip(beta, x, strict=True))
        z = max(-30.0, min(30.0, z))
        total += y * math.log(1 + math.exp(-z)) + (1 - y) * math.log(1 + math.exp(z))
    return total / len(rows) if rows else math.nan


def report(
    records: Sequence[Record],
    results: Sequence[float],
    games: int,
    ridge: float,
    held: tuple[Sequence[Record], Sequence[float]] = ((), ()),
) -> None:
    """Fit the three models and print their weights in the evaluation's units; with ``held``
    (positions kept out of the fit), each model's log loss on them too."""
    inflate = math.sqrt(len(records) / max(1, games))
    held_records, held_results = held

    def scale_row(record: Record) -> list[float]:
        return [1.0, float(record[1])]

    def terms_row(record: Record) -> list[float]:
        return [1.0, *(float(v) for v in record[0][:n_terms])]

    def full_row(record: Record) -> list[float]:
        row = record[0]
        return [1.0, *(float(row[i]) for i in kept), *(float(v) for v in row[n_terms:])]

    def held_out(beta: Sequence[float], make: Callable[[Record], list[float]]) -> str:
        if not held_records:
            return ""
        loss = log_loss(beta, [make(r) for r in held_records], held_results)
        return f", on the {len(held_records)} held-out positions {loss:.4f}"

    n_terms = len(TERMS)
    kept = [i for i, name in enumerate(TERMS) if name not in FOLDED]
    (c0, s), (_, se), loss0, _ = fit([scale_row(r) for r in records], results, [0.0, 0.0])
    print(
        f"scale: P = sigmoid({c0:.3f} + {s:.5f} * eval), s = {s:.5f} ± {se * inflate:.5f} "
        f"(100 units = x{math.exp(100 * s):.2f} odds); log loss {loss0:.4f}"
        f"{held_out((c0, s), scale_row)}"
    )
    base = math.log(2)
    print(f"(log loss of a coin: {base:.4f})")

    beta, errors, loss1, _ = fit([terms_row(r) for r in records], results, [0.0] * (n_terms + 1))
    print(f"\nterms model: log loss {loss1:.4f}{held_out(beta, terms_row)}; constant {beta[0]:.3f}")
    print(f"  {'term':22} {'fitted':>8} {'± err':>7} {'today':>7}")
    for i, name in enumerate(TERMS):
        b, e = beta[i + 1] / s, errors[i + 1] * inflate / s
        print(f"  {name:22} {b:8.1f} {e:7.1f} {TODAY[name]:7.0f}")

    # The full model: the terms that are not functions of the piece squares, and the tables.
    penalties = [0.0] * (1 + len(kept)) + [ridge] * (3 * len(CLASSES))
    beta, errors, loss2, hessian = fit([full_row(r) for r in records], results, penalties)
    print(
        f"\nfull model (ridge {ridge:g} on the tables): log loss {loss2:.4f}"
        f"{held_out(beta, full_row)}"
    )
    print(f"  {'term':22} {'fitted':>8} {'± err':>7} {'today':>7}")
    for j, i in enumerate(kept):
        name = TERMS[i]
        b, e = beta[j + 1] / s, errors[j + 1] * inflate / s
        print(f"  {name:22} {b:8.1f} {e:7.1f} {TODAY[name]:7.0f}")
    offset = 1 + len(kept)
    counts = [0] * (3 * len(CLASSES))
    for row, _ in records:
        for i, v in enumerate(row[n_terms:]):
            counts[i] += v

    def spread(weights: dict[int, float]) -> float:
        """The rough error of a sum of coefficients, in the evaluation's units."""
        vector = [weights.get(i, 0.0) for i in range(len(beta))]
        solved = solve(hessian, vector)
        variance = sum(v * x for v, x in zip(vector, solved, strict=True))
        return math.sqrt(max(0.0, variance)) * inflate / s

    material = {"attacker": 1 + kept.index(0), "defender": 1 + kept.index(1)}
    throne = offset + 2 * len(CLASSES) + CLASSES.index((3, 3))
    guard = {(0, 1): -GUARD_NEXT_TO_CORNER, (1, 1): -GUARD_DIAGONAL}
    print("  the tables with the material folded in (the king's against his value on the throne):")
    print(f"  {'square class':22} {'fitted':>8} {'± err':>7} {'today':>7}  positions")
    for t_index, table in enumerate(TABLES):
        for c, (near, far) in enumerate(CLASSES):
            i = offset + t_index * len(CLASSES) + c
            n = counts[t_index * len(CLASSES) + c]
            if not n or (table == "king" and i == throne):
                continue
            if table == "king":
                value = (beta[i] - beta[throne]) / s
                error = spread({i: 1.0, throne: -1.0})
                today = -CORNER_DISTANCE * (near + far - 6)
            else:
                value = (beta[material[table]] + beta[i]) / s
                error = spread({material[table]: 1.0, i: 1.0})
                today = (
                    -ATTACKER_VALUE + guard.get((near, far), 0)
                    if table == "attacker"
                    else DEFENDER_VALUE
                )
            label = f"{table} on {_class_name(c)}"
            print(f"  {label:22} {value:8.1f} {error:7.1f} {today:7.0f}  {n}")
    # A term that is zero in every row is not fitted: it keeps today's weight.
    fitted = {
        TERMS[i]: beta[j + 1] / s if any(row[i] for row, _ in records) else TODAY[TERMS[i]]
        for j, i in enumerate(kept)
    }

    def folded(t_index: int, material: float) -> tuple[int, ...]:
        first = offset + t_index * len(CLASSES)
        values = [material + beta[first + c] / s for c in range(len(CLASSES))]
        return tuple(
            round(v) if counts[t_index * len(CLASSES) + c] else 0 for c, v in enumerate(values)
        )

    print("\nas engine/evaluation.py's Tuned (defenders' view):")
    print(f"    open_line={round(fitted['open lines'])},")
    print(f"    two_move_route={round(fitted['routes'])},")
    print(f"    king_mobility={round(fitted['king mobility'])},")
    print(f"    king_pressure={round(fitted['king pressure'])},")
    print(f"    tempo={round(fitted['defenders to move'])},")
    print(f"    attacker={folded(0, fitted['attackers'])},")
    print(f"    defender={folded(1, fitted['defenders'])},")
    print(f"    king={folded(2, 0.0)},")


def report_on_today(
    records: Sequence[Record],
    results: Sequence[float],
    games: int,
    ridge: float,
    held: tuple[Sequence[Record], Sequence[float]] = ((), ()),
) -> None:
    """Fit a side to move term and the three tables (ridge on the tables) added to today's
    whole evaluation times the scale ``s`` of the one-feature model, a fixed offset; print the
    tables and the tempo divided by ``s``: what to add to today's evaluation, whose terms keep
    their weights."""
    inflate = math.sqrt(len(records) / max(1, games))
    n_terms = len(TERMS)
    stm = TERMS.index("defenders to move")
    (c0, s), _, loss0, _ = fit([[1.0, float(e)] for _, e in records], results, [0.0, 0.0])

    def make(record: Record) -> list[float]:
        row = record[0]
        return [1.0, float(row[stm]), *(float(v) for v in row[n_terms:])]

    penalties = [0.0, 0.0] + [ridge] * (3 * len(CLASSES))
    offsets = [s * e for _, e in records]
    beta, errors, loss, _ = fit([make(r) for r in records], results, penalties, offsets)
    held_records, held_results = held
    tested = ""
    if held_records:
        scale_loss = log_loss((c0, s), [[1.0, e] for _, e in held_records], held_results)
        held_loss = log_loss(
            beta, [make(r) for r in held_records], held_results, [s * e for _, e in held_records]
        )
        tested = (
            f"; on the {len(held_records)} held-out positions {held_loss:.4f} "
            f"(today's evaluation alone {scale_loss:.4f})"
        )
    print(
        f"today's evaluation times s = {s:.5f} (log loss {loss0:.4f}) plus tables "
        f"(ridge {ridge:g}): log loss {loss:.4f}{tested}"
    )
    k = s
    print(f"  defenders to move: {beta[1] / k:.1f} ± {errors[1] * inflate / k:.1f}")
    counts = [0] * (3 * len(CLASSES))
    for row, _ in records:
        for i, v in enumerate(row[n_terms:]):
            counts[i] += v
    guard = {(0, 1): -GUARD_NEXT_TO_CORNER, (1, 1): -GUARD_DIAGONAL}
    added: list[tuple[int, ...]] = []
    for t_index, table in enumerate(TABLES):
        first = 2 + t_index * len(CLASSES)
        values = [
            round(beta[first + c] / k) if counts[t_index * len(CLASSES) + c] else 0
            for c in range(len(CLASSES))
        ]
        print(f"  {table} table added, by class: {values}")
        added.append(tuple(values))
    attacker = tuple(
        -ATTACKER_VALUE + guard.get(cls, 0) + v if counts[c] else 0
        for c, (cls, v) in enumerate(zip(CLASSES, added[0], strict=True))
    )
    defender = tuple(
        DEFENDER_VALUE + v if counts[len(CLASSES) + c] else 0 for c, v in enumerate(added[1])
    )
    king = tuple(
        -CORNER_DISTANCE * (near + far) + v
        for (near, far), v in zip(CLASSES, added[2], strict=True)
    )
    print("\nas engine/evaluation.py's Tuned (defenders' view):")
    print(f"    open_line={OPEN_LINE},")
    print(f"    two_move_route={TWO_MOVE_ROUTE},")
    print(f"    king_mobility={KING_MOBILITY},")
    print(f"    king_pressure={-KING_PRESSURE},")
    print(f"    tempo={round(beta[1] / k)},")
    print(f"    attacker={attacker},")
    print(f"    defender={defender},")
    print(f"    king={king},")


FOLDED = ("corner distance", "guard beside corner", "guard diagonal")
"""Terms that are exact linear functions of the piece-square classes."""


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Texel-tune the brandubh evaluation.")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=3000, help="node budget a move")
    parser.add_argument("--ruleset", default="brandubh")
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes playing games")
    parser.add_argument("--ridge", type=float, default=2.0, help="L2 penalty on table entries")
    parser.add_argument("--save", type=Path, default=None, help="write the rows here (JSON)")
    parser.add_argument(
        "--load", type=Path, nargs="+", default=None, help="fit saved rows (joined), play none"
    )
    parser.add_argument(
        "--holdout",
        type=float,
        default=0.0,
        help="share of the positions, the last games', kept out of the fit to test it on",
    )
    parser.add_argument(
        "--on-today",
        action="store_true",
        help="fit only tables and a tempo added to today's evaluation, its weights kept",
    )
    parser.add_argument(
        "--label-depth",
        type=int,
        default=0,
        help="also score every kept position by a full search this deep (saved with the rows)",
    )
    parser.add_argument(
        "--mix",
        type=float,
        default=None,
        help="fit on labels from the search scores, with this weight (0-1) on the game result",
    )
    parser.add_argument(
        "--without-open-lines",
        action="store_true",
        help="fit only positions where the king has no open line (nothing to block at once)",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    began = time.perf_counter()
    records: list[Record] = []
    results: list[float] = []
    scores: list[int] = []
    unscored: list[str] = []
    """The files whose positions no deeper search scored (their scores are all 0)."""
    if args.load is not None:
        games = 0
        wins = 0.0
        for path in args.load:
            data = json.loads(path.read_text())
            if not data.get("label_depth"):
                unscored.append(str(path))
            games += int(data["games"])
            for row, e, y, *deep in data["rows"]:
                records.append((list(row), int(e)))
                results.append(float(y))
                scores.append(int(deep[0]) if deep else 0)
            wins += float(data["defenders_won"])
            print(f"loaded {data['games']} games ({data['nodes']} nodes a move) from {path}")
    else:
        games = args.games
        if args.mix is not None and not args.label_depth:
            parser.error("--mix needs positions scored by a deeper search (--label-depth).")
        jobs = [
            (args.ruleset, args.seed * 100_003 + i, args.nodes, args.max_plies, args.label_depth)
            for i in range(games)
        ]
        wins = 0.0
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for index, (game_records, game_scores, result) in enumerate(pool.map(play_game, jobs)):
                records += game_records
                scores += game_scores
                results += [result] * len(game_records)
                wins += result
                if (index + 1) % 50 == 0:
                    print(
                        f"  {index + 1} games, {len(records)} positions, "
                        f"{time.perf_counter() - began:.0f} s",
                        flush=True,
                    )
        if args.save is not None:
            args.save.write_text(
                json.dumps(
                    {
                        "games": games,
                        "nodes": args.nodes,
                        "defenders_won": wins,
                        "label_depth": args.label_depth,
                        "rows": [
                            [row, e, y, v]
                            for (row, e), y, v in zip(records, results, scores, strict=True)
                        ],
                    }
                )
            )
    print(
        f"{args.ruleset}: {games} games (defenders won {wins:g}, {wins / games:.1%}), "
        f"{len(records)} quiet positions, {time.perf_counter() - began:.0f} s"
    )
    if args.mix is not None:
        if unscored:
            parser.error(
                f"--mix needs positions scored by a deeper search (--label-depth), "
                f"and {', '.join(unscored)} has none."
            )
        results, c, s = search_labels(scores, results, args.mix)
        print(
            f"labels: {1 - args.mix:g} x sigmoid({c:.3f} + {s:.5f} * search score) "
            f"+ {args.mix:g} x result"
        )
    if args.without_open_lines:
        column = TERMS.index("open lines")
        kept_rows = [k for k, (row, _) in enumerate(records) if not row[column]]
        records = [records[k] for k in kept_rows]
        results = [results[k] for k in kept_rows]
        print(f"without open lines: {len(records)} positions")
    split = len(records) - round(len(records) * args.holdout)
    if split < len(records):
        print(f"fitting the first {split} positions, testing on the other {len(records) - split}")
    held = (records[split:], results[split:])
    fitted_games = games * split / len(records) if records else games
    if args.on_today:
        report_on_today(records[:split], results[:split], round(fitted_games), args.ridge, held)
    else:
        report(records[:split], results[:split], round(fitted_games), args.ridge, held)


if __name__ == "__main__":
    main()
