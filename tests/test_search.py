"""The computer opponent's search: budgets, reproducibility, levels and the process-pool entry."""

from __future__ import annotations

import concurrent.futures
import random
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.ai_budget import positions
from engine import RULESETS, Game, Move, Side
from engine.alphabeta import Searcher
from engine.board import ATTACKER, KING, Board
from engine.evaluation import king_capturable, tables
from engine.immediate import Immediate
from engine.search import (
    INFINITY,
    LEVELS,
    MATE,
    MATE_BOUND,
    SearchResult,
    _after_cut,
    _choose,
    choose_move,
    think,
)
from engine.squares import square_name


def test_a_move_is_legal_at_every_level() -> None:
    """Every level answers the opening position with a legal move."""
    for level in LEVELS:
        game = Game()
        result = choose_move(game, level=level, nodes=3000, seed=level)
        assert game.is_legal(result.move)


def test_node_limited_search_is_deterministic() -> None:
    """The same node limit and seed give the same move and the same node count twice."""
    game = Game.from_moves(["d2-c2"])
    first = choose_move(game, level=5, nodes=20_000, seed=1, book=False)
    second = choose_move(game, level=5, nodes=20_000, seed=1, book=False)
    assert first.nodes > 0
    assert (first.move, first.nodes, first.score) == (second.move, second.nodes, second.score)


def test_the_game_is_left_untouched() -> None:
    """Searching does not change the position or history of the game it was given."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    before = (game.position(), game.ply, game.board.hash)
    assert choose_move(game, level=5, nodes=5000, book=False).nodes > 0
    assert (game.position(), game.ply, game.board.hash) == before


def test_finished_game_is_refused() -> None:
    """Asking for a move after the game ended raises ValueError."""
    game = Game.from_position("/7/7/7/K6/7/6t/7/", to_move=Side.DEFENDERS)
    game.play("a4-a1")
    with pytest.raises(ValueError, match="The game is over"):
        choose_move(game, level=1)


def test_result_reports_its_search() -> None:
    """The result names a legal move, a completed depth and the positions searched."""
    game = Game()
    result = choose_move(game, level=5, nodes=10_000, book=False)
    assert isinstance(result, SearchResult)
    assert result.depth >= 2
    assert result.nodes > 0
    assert result.elapsed > 0


def test_think_round_trips_through_a_process_pool() -> None:
    """think() runs in a worker process from plain values and returns a legal move's text."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    moves = [str(record.move) for record in game.records]
    with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
        text = pool.submit(
            think, "brandubh", game.starting_position, "attackers", moves, 3, 0.2, 5
        ).result(timeout=30)
    assert game.is_legal(text)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), ruleset=st.sampled_from(sorted(RULESETS)))
def test_king_capture_check_agrees_with_playing_every_move(seed: int, ruleset: str) -> None:
    """The search's quick "can the king be taken now" check matches trying every attacker move."""
    rng = random.Random(seed)
    game = Game(ruleset)
    board = game.board
    for _ in range(rng.randrange(0, 80)):
        if board.outcome is not None:
            break
        board.push(rng.choice(sorted(board.moves())))
        if board.outcome is None and board.turn == ATTACKER:
            expected = False
            for move in board.moves():
                board.push(move)
                expected = expected or any(victim == KING for _, victim in board.stack[-1][2])
                board.pop()
            assert king_capturable(board, tables(board.rules)) is expected


def test_level_one_takes_an_immediate_win() -> None:
    """Even the weakest level moves the king to the open corner, whatever the seed."""
    for seed in range(10):
        game = Game.from_position("/5t1/3t3/K2T3/ttT1Ttt/3T3/3t3/3t3/", to_move=Side.DEFENDERS)
        game.play(choose_move(game, level=1, seed=seed).move)
        assert game.outcome is not None
        assert game.outcome.winner is Side.DEFENDERS


def test_level_one_blocks_an_immediate_escape() -> None:
    """The weakest level still closes the king's only open line to a corner."""
    for seed in range(10):
        game = Game.from_position("/2K1t2/7/3T3/tt3t1/4T2/7/3t3/", to_move=Side.ATTACKERS)
        game.play(choose_move(game, level=1, seed=seed).move)
        assert game.king_escape_routes() == []


def test_node_budget_is_spent_but_not_exceeded() -> None:
    """Full strength given 30,000 positions searches most of them and never many more."""
    game = Game.from_moves(["d2-c2", "d3-d2"])
    result = choose_move(game, level=5, nodes=30_000, book=False)
    assert 30_000 * 0.5 <= result.nodes <= 30_000 + 128


def _mover_wins(board: Board) -> bool:
    """Whether the side that just moved has won."""
    outcome = board.outcome
    return outcome is not None and (outcome.winner is Side.ATTACKERS) == (board.turn != ATTACKER)


def _wins(board: Board, move: int) -> bool:
    """Whether ``move`` wins at once."""
    board.push(move)
    won = _mover_wins(board)
    board.pop()
    return won


def _answer_wins(board: Board, move: int) -> bool:
    """Whether ``move`` loses at once: by its own result, or an answer that wins (played out)."""
    board.push(move)
    try:
        if board.outcome is not None:
            return not _mover_wins(board)
        for answer in board.moves():
            board.push(answer)
            won = _mover_wins(board)
            board.pop()
            if won:
                return True
        return False
    finally:
        board.pop()


def _random_walks(ruleset: str, seeds: int, fewest: int) -> Iterator[Iterator[Game]]:
    """For each seed below ``seeds``, a game of seeded random play, yielded after each of its
    ``fewest`` to 59 moves while it is not over (the same game, moved on each time)."""
    for seed in range(seeds):
        yield _random_walk(ruleset, random.Random(seed), fewest)


def _random_walk(ruleset: str, rng: random.Random, fewest: int) -> Iterator[Game]:
    game = Game(ruleset)
    board = game.board
    for _ in range(rng.randrange(fewest, 60)):
        game.play(Move.from_code(rng.choice(sorted(board.moves()))))
        if game.outcome is not None:
            return
        yield game


def _position_with(ruleset: str, kind: str) -> Game:
    """A position of seeded random play where the side to move can win at once (``win``), or
    must and can stop an escape (``escape``) or a capture of the king (``capture``)."""
    for walk in _random_walks(ruleset, 1000, 10):
        for game in walk:
            board = game.board
            moves = sorted(board.moves())
            if kind == "win":
                if any(_wins(board, m) for m in moves):
                    return game
                continue
            if kind == "escape":
                threat = board.turn == ATTACKER and bool(board.king_escape_routes())
            else:
                threat = board.turn != ATTACKER and board.king_in_danger()
            if threat:
                losing = [_answer_wins(board, m) for m in moves]
                if any(losing) and not all(losing):
                    return game
    raise AssertionError(f"no {kind} position found on {ruleset}")


@pytest.mark.parametrize("ruleset", ["brandubh", "hnefatafl", "hnefatafl-15"])
@pytest.mark.parametrize("kind", ["win", "escape", "capture"])
def test_every_level_keeps_its_guarantees_with_almost_no_time(ruleset: str, kind: str) -> None:
    """With 0.01 s (a thousandth of a second for level 1) every level still takes a win in one,
    stops an escape or a capture of the king, and never plays a move that loses at once."""
    game = _position_with(ruleset, kind)
    board = game.board
    for level in LEVELS:
        move = choose_move(game, level=level, time_limit=0.01, seed=level, book=False).move
        code = move.code
        if kind == "win":
            assert _wins(board, code), (level, str(move))
        else:
            assert not _answer_wins(board, code), (level, str(move))


def test_a_big_board_middlegame_move_keeps_to_its_time() -> None:
    """Level 3 on 15x15 given 0.2 s (0.05 s, its share) stops in time, although its second
    iteration there takes up to 150,000 positions: its CPU time stays far below that."""
    game = positions("hnefatafl-15", 8)[7]
    started = time.process_time()
    result = choose_move(game, level=3, time_limit=0.2, seed=1)
    assert time.process_time() - started < 0.3
    assert game.is_legal(result.move)


def _facing_a_threat(ruleset: str, count: int, kind: str) -> list[Board]:
    """Positions of seeded random play where the side to move must answer a threat at once:
    the attackers an open escape line of the king's (``escape``; they cannot take him), or the
    defenders a capture of the king (``capture``; he has no open line)."""
    found: list[Board] = []
    t = tables(RULESETS[ruleset])
    for walk in _random_walks(ruleset, 3000, 6):
        for game in walk:
            board = game.board
            occupied = board.att_bb | board.def_bb
            line = any(not occupied & mask for mask in t.escape_lines[board.king])
            capturable = king_capturable(board, t)
            if kind == "escape":
                threat = board.turn == ATTACKER and line and not capturable
            else:
                threat = board.turn != ATTACKER and capturable and not line
            if threat:
                found.append(board.copy())
                break
        if len(found) == count:
            return found
    raise AssertionError(f"only {len(found)} {kind} positions found on {ruleset}")


def _depth_one(board: Board, skip: bool) -> tuple[int, int]:
    """The score and positions searched of a one-ply search, with or without skipping."""
    searcher = Searcher(board.copy(), None, None, tables(board.rules))
    searcher.skip_lost_moves = skip
    return searcher.negamax(1, -INFINITY, INFINITY, 1), searcher.nodes


@pytest.mark.parametrize("ruleset", ["brandubh", "tablut", "hnefatafl"])
def test_attackers_facing_an_open_line_play_only_moves_onto_it(ruleset: str) -> None:
    """Facing open escape lines the attackers' search plays only the moves that land on one (the
    others lose at once; they cannot take the king), and the score is the same as with every
    move played."""
    for board in _facing_a_threat(ruleset, 8, "escape"):
        t = tables(board.rules)
        occupied = board.att_bb | board.def_bb
        lines = [mask for mask in t.escape_lines[board.king] if not occupied & mask]
        onto = [m for m in board.moves() if any(mask >> (m & 255) & 1 for mask in lines)]
        (score, nodes), (full_score, full_nodes) = _depth_one(board, True), _depth_one(board, False)
        assert score == full_score
        assert full_nodes == len(board.moves())
        assert nodes == len(onto)
        if score < -MATE_BOUND:
            assert score == -(MATE - 3)  # the king escapes on the next ply


@pytest.mark.parametrize("ruleset", ["brandubh", "tablut", "hnefatafl"])
def test_defenders_facing_a_capture_skip_only_moves_that_lose(ruleset: str) -> None:
    """Facing a capture of the king the defenders' search skips moves, only moves that lose at
    once (every answer played out), and scores the same as with every move played."""
    skipped = 0
    for board in _facing_a_threat(ruleset, 8, "capture"):
        holding = [m for m in board.moves() if not _answer_wins(board, m)]
        (score, nodes), (full_score, full_nodes) = _depth_one(board, True), _depth_one(board, False)
        assert score == full_score
        assert len(holding) <= nodes <= full_nodes == len(board.moves())
        skipped += full_nodes - nodes
    assert skipped > 0


@pytest.mark.parametrize("ruleset", ["brandubh", "hnefatafl"])
@pytest.mark.parametrize("kind", ["escape", "capture"])
def test_skipping_lost_moves_changes_no_root_score(ruleset: str, kind: str) -> None:
    """Three plies deep (too shallow for late-move reductions, whose count of moves the skipped
    moves would change) every root move scores exactly the same with and without the skipping."""
    for board in _facing_a_threat(ruleset, 3, kind):
        t = tables(board.rules)
        order = sorted(board.moves())
        scored = []
        for skip in (True, False):
            searcher = Searcher(board.copy(), None, None, t)
            searcher.skip_lost_moves = skip
            # A margin wider than any score: every root move gets an exact score, not a bound.
            scored.append(searcher.root(order, 3, 4 * MATE)[0])
        assert scored[0] == scored[1]


def test_a_win_in_one_is_scored_before_any_move_is_searched() -> None:
    """Whatever depth is left, a king with an open line (defenders to move) or a king the
    attackers can take (attackers to move) scores a win in one without a move played."""
    t = tables(RULESETS["brandubh"])
    escape = Game.from_position("/2K1t2/7/3T3/tt3t1/4T2/7/3t3/", to_move=Side.DEFENDERS)
    capture = Game.from_position("/7/5T1/7/7/7/1tK4/3t3/", to_move=Side.ATTACKERS)
    assert king_capturable(capture.board, t)
    for game in (escape, capture):
        searcher = Searcher(game.board.copy(), None, None, t)
        assert searcher.negamax(4, -INFINITY, INFINITY, 3) == MATE - 4
        assert searcher.nodes == 0


def test_attackers_facing_two_open_lines_lose_without_a_move_searched() -> None:
    """The king on a4 sees a1 and a7 and no attacker can take him: no move closes both lines,
    so the attackers lose on the next ply, known without a move played (where the threat
    extension would look; beyond it the position is evaluated, as before)."""
    game = Game.from_position("/3t3/7/7/K5t/7/7/3t3/", to_move=Side.ATTACKERS)
    assert [square_name(sq) for sq in game.king_escape_routes()] == ["a1", "a7"]
    searcher = Searcher(game.board.copy(), None, None, tables(game.board.rules))
    searcher.ext_limit = 7
    assert searcher.negamax(3, -INFINITY, INFINITY, 1) == -(MATE - 3)
    assert searcher.nodes == 0
    searcher.skip_lost_moves = False
    assert searcher.negamax(3, -INFINITY, INFINITY, 1) == -(MATE - 3)
    assert searcher.nodes > 0


def test_a_win_at_once_is_preferred_to_a_longer_forced_win() -> None:
    """A search cut short may have found a win two plies away (a king move opening two lines)
    before reaching the move that wins at once: the move that wins at once is played."""
    fork, escape = 0x1020, 0x1030
    immediate = {fork: Immediate.NEITHER, escape: Immediate.WINS}
    rng = random.Random(0)
    assert _choose([(MATE - 3, fork), (0, escape)], immediate, 0.0, rng) == (MATE - 1, escape)
    assert _choose([(MATE - 1, escape), (MATE - 3, fork)], immediate, 0.0, rng) == (
        MATE - 1,
        escape,
    )


@pytest.mark.parametrize("ruleset", ["brandubh", "tablut", "hnefatafl"])
def test_king_threats_are_the_king_moves_that_open_a_line(ruleset: str) -> None:
    """The threats tried beyond the horizon are exactly the king's moves that capture nothing
    (captures are tried before them) after which he has an open line to an escape square."""
    t = tables(RULESETS[ruleset])
    checked = 0
    for walk in _random_walks(ruleset, 40, 4):
        for game in walk:
            board = game.board
            if board.turn == ATTACKER or board.king_escape_routes():
                continue
            searcher = Searcher(board.copy(), None, None, t)
            expected = set()
            capturing = set()
            for m in board.moves():
                if m >> 8 != board.king:
                    continue
                if board.push(m):
                    capturing.add(m)
                elif board.king_escape_routes():
                    expected.add(m)
                board.pop()
            assert set(searcher._king_threats()) - capturing == expected
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("ruleset", ["brandubh", "tablut", "hnefatafl"])
def test_answering_a_threat_beyond_the_horizon_plays_only_the_blocks(ruleset: str) -> None:
    """The attackers facing one open line beyond the horizon score exactly what playing every
    one of their moves would: the moves off the line lose to the escape on the next ply."""
    for board in _facing_a_threat(ruleset, 8, "escape"):
        t = tables(board.rules)
        occupied = board.att_bb | board.def_bb
        if sum(not occupied & mask for mask in t.escape_lines[board.king]) != 1:
            continue
        searcher = Searcher(board.copy(), None, None, t)
        score = searcher._answer_threat(-INFINITY, INFINITY, 1, 0, 0)
        full = -INFINITY
        for m in board.moves():
            board.push(m)
            outcome = board.outcome
            if outcome is not None:
                full = max(full, MATE - 2 if outcome.winner is Side.ATTACKERS else -(MATE - 2))
            else:
                other = Searcher(board, None, None, t)
                full = max(full, -other._quiet_horizon(-INFINITY, INFINITY, 2, 0, 0))
            board.pop()
        assert score == full


def test_a_fork_beyond_the_horizon_is_seen() -> None:
    """The king on c5 with the defenders to move has no open line, but c5-a5 opens a1 and a7 at
    once: the quiescence search finds the win with king threats, and only with them."""
    game = Game.from_position("/3t3/7/2K4/6t/7/7/3t3/", to_move=Side.DEFENDERS)
    assert not game.king_escape_routes()
    t = tables(game.board.rules)
    with_threats = Searcher(game.board.copy(), None, None, t)
    assert with_threats.quiesce(-INFINITY, INFINITY, 0, 4, 1) == MATE - 3
    without = Searcher(game.board.copy(), None, None, t)
    assert without.quiesce(-INFINITY, INFINITY, 0, 4, 0) < MATE_BOUND


def test_a_move_the_cut_short_iteration_proved_lost_is_not_played() -> None:
    """From an A/B match game (the attackers lost it by this very move at 0.5 s a move): depth 4
    ranks g3-g4 first; at 20,000 positions the depth-5 iteration proves it lost and is cut short
    before it finishes another move. The engine once played it all the same."""
    game = Game.from_moves(["d2-a2", "d3-f3", "g4-g3", "d4-d2"])
    after = game.copy()
    after.play("g3-g4")
    assert choose_move(after, level=5, nodes=40_000, book=False).score >= MATE_BOUND
    result = choose_move(game, level=5, nodes=20_000, book=False)
    assert result.depth == 4  # the fifth iteration was cut short
    assert str(result.move) != "g3-g4"
    assert result.score > -MATE_BOUND


def test_a_level_that_chooses_by_chance_never_plays_a_move_proved_lost() -> None:
    """Level 4 at 6,000 positions completes depth 2 here, where d6-c6 ranks first; the cut-short
    depth-3 iteration proves it lost (the king escapes by force). Level 4 chooses by chance
    among depth 2's exact scores and once played it in 12 of 20 seeds."""
    moves = "g4-g6 d5-f5 d1-b1 f5-f6 b1-e1 d4-d5 g6-g5 d5-e5 d7-e7 d3-g3 f4-g4 e4-e2 d2-c2 f6-e6"
    game = Game.from_moves(moves.split())
    after = game.copy()
    after.play("d6-c6")
    assert choose_move(after, level=5, nodes=40_000, book=False).score >= MATE_BOUND
    for seed in range(10):
        result = choose_move(game, level=4, nodes=6_000, book=False, seed=seed)
        assert result.depth == 2
        assert str(result.move) != "d6-c6"
        assert result.score > -MATE_BOUND


def test_after_a_cut_the_moves_proved_lost_come_last() -> None:
    last = [(300, 1), (200, 2), (100, 3)]  # the last complete iteration's ranking
    # The finished move best, the last iteration's others, the lost last.
    assert _after_cut([(150, 2), (-(MATE - 9), 1)], last, 4) == [
        (150, 2),
        (100, 3),
        (-(MATE - 9), 1),
    ]
    assert _after_cut([(-(MATE - 9), 1)], last, 4) == [(200, 2), (100, 3), (-(MATE - 9), 1)]
    assert _after_cut([(250, 1)], last, 4) == [(250, 1), (200, 2), (100, 3)]
    # Levels 1-4 keep the last iteration's exact scores: only the lost move goes last.
    assert _after_cut([(150, 2), (-(MATE - 9), 1)], last, 4, lead=False) == [
        (200, 2),
        (100, 3),
        (-(MATE - 9), 1),
    ]
    assert _after_cut([(250, 1)], last, 4, lead=False) == last
    # Nothing complete yet: the moves searched, then those not searched, then the lost.
    unscored = [(0, 1), (0, 2), (0, 3)]
    assert _after_cut([(40, 2), (-(MATE - 5), 1)], unscored, 0) == [
        (40, 2),
        (39, 3),
        (-(MATE - 5), 1),
    ]
    assert _after_cut([(-(MATE - 5), 1)], unscored, 0) == [(0, 2), (0, 3), (-(MATE - 5), 1)]
