"""The shipped puzzle bank and the proof search behind it.

Every puzzle of the bank is proven again by ``python -m benchmarks.generate_puzzles --check``;
here a fixed random sample of the puzzles of up to 3 moves is, within the test suite's budget
(proving a win in 4 unique can take half a minute).
"""

from __future__ import annotations

import random

import pytest

from bot.services.puzzles import bank
from engine import Game, Side
from engine.puzzles import Answer, Puzzle, Verdict, answer_move, find_puzzle, verify

SAMPLE = 8


def test_the_bank_has_puzzles_of_every_length() -> None:
    """The bank holds puzzles, with wins in 1, 2 and 3 moves at least, ids unique."""
    puzzles = bank()
    assert len({p.puzzle_id for p in puzzles}) == len(puzzles)
    assert {1, 2, 3} <= {p.moves for p in puzzles}


QUICK = [i for i, puzzle in enumerate(bank()) if puzzle.moves <= 3]


@pytest.mark.parametrize("index", random.Random(12).sample(QUICK, SAMPLE))
def test_a_sampled_puzzle_is_a_unique_forced_win(index: int) -> None:
    """The puzzle's first move is the only one winning as fast, and its line wins."""
    assert verify(bank()[index]) is None


def test_bank_lines_round_trip() -> None:
    """Each puzzle prints as its bank line and parses back."""
    for puzzle in bank():
        assert Puzzle.parse(str(puzzle)) == puzzle


def test_a_position_with_two_winning_moves_is_no_puzzle() -> None:
    """The king on a4 with both a1 and a7 open: two first moves win, so no puzzle."""
    game = Game.from_position("/7/7/7/K5t/7/7/3t3/", to_move=Side.DEFENDERS)
    assert game.is_legal("a4-a1")
    assert game.is_legal("a4-a7")
    assert find_puzzle(game) is None


def test_the_only_escape_is_a_puzzle_in_one() -> None:
    """King on a3, a1 open and a7 barred: a3-a1 is the unique win in one."""
    game = Game.from_position("/5t1/3t3/K2T3/ttT1Ttt/3T3/3t3/3t3/", to_move=Side.DEFENDERS)
    puzzle = find_puzzle(game)
    assert puzzle is not None
    assert (puzzle.moves, [str(m) for m in puzzle.solution]) == (1, ["a3-a1"])


def test_a_wrong_move_is_refuted_with_the_reply() -> None:
    """A non-solution first move of a longer puzzle is wrong, with the defence's answer."""
    puzzle = next(p for p in bank() if p.moves >= 2)
    wrong = next(m for m in puzzle.game().legal_moves() if m != puzzle.solution[0])
    answer = Answer.parse(answer_move(str(puzzle), [], str(wrong)))
    assert answer.verdict is Verdict.WRONG
    assert answer.explanation.startswith(f"After {wrong}") or "does not" in answer.explanation


def test_the_main_line_is_answered_and_solved() -> None:
    """Following the solution: each move is correct with the line's reply, the last solves."""
    puzzle = next(p for p in bank() if p.moves >= 2)
    line = [str(m) for m in puzzle.solution]
    for i in range(0, len(line) - 1, 2):
        answer = Answer.parse(answer_move(str(puzzle), line[:i], line[i]))
        assert answer.verdict is Verdict.CORRECT
        assert str(answer.reply) == line[i + 1]
    final = Answer.parse(answer_move(str(puzzle), line[:-1], line[-1]))
    assert final.verdict is Verdict.SOLVED
