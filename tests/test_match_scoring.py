"""Two-set match scoring, docs/rules.md §11."""

from __future__ import annotations

import pytest

from engine import Game, MatchReason, SetResult, Side, score_match

PLAYERS = ("alice", "bob")


def test_two_wins_take_the_match() -> None:
    """Alice wins both sets: she wins 2-0 whatever the move counts."""
    result = score_match(PLAYERS, [SetResult("alice", 40), SetResult("alice", 12)])
    assert result.winner == "alice"
    assert result.reason is MatchReason.MORE_WINS
    assert result.wins == {"alice": 2, "bob": 0}


def test_one_win_each_goes_to_the_faster_winner() -> None:
    """1-1: Bob won his set in 18 moves, Alice in 25, so Bob wins the match."""
    result = score_match(PLAYERS, [SetResult("alice", 25), SetResult("bob", 18)])
    assert result.winner == "bob"
    assert result.reason is MatchReason.FEWER_MOVES
    assert result.wins == {"alice": 1, "bob": 1}


def test_one_win_each_in_equal_moves_is_a_draw() -> None:
    """1-1 with both sets won in 30 moves: a drawn match, one set win each."""
    result = score_match(PLAYERS, [SetResult("alice", 30), SetResult("bob", 30)])
    assert result.winner is None
    assert result.reason is MatchReason.EQUAL_MOVES
    assert result.wins == {"alice": 1, "bob": 1}


def test_the_first_listed_player_can_be_the_faster_winner() -> None:
    """1-1: Alice, listed first, won in 18 moves and Bob in 25, so Alice wins the match."""
    result = score_match(PLAYERS, [SetResult("bob", 25), SetResult("alice", 18)])
    assert result.winner == "alice"
    assert result.reason is MatchReason.FEWER_MOVES


def test_a_resigned_set_counts_as_a_win_in_the_moves_played() -> None:
    """Bob resigns after 3 moves; Alice's 3-move win beats Bob's 20-move win."""
    first = Game.from_moves(["d2-c2", "d3-d2", "c2-c3"])
    first.resign(Side.DEFENDERS)  # Bob defends the first set and resigns.
    assert first.outcome is not None
    assert first.outcome.winner is Side.ATTACKERS
    result = score_match(PLAYERS, [SetResult("alice", first.ply), SetResult("bob", 20)])
    assert result.winner == "alice"
    assert result.reason is MatchReason.FEWER_MOVES


def test_a_timeout_set_counts_like_any_win() -> None:
    """A set won on time after 14 moves is a win; 2-0 still takes the match."""
    result = score_match(PLAYERS, [SetResult("bob", 14), SetResult("bob", 33)])
    assert result.winner == "bob"
    assert result.wins == {"alice": 0, "bob": 2}


def test_a_one_set_match_goes_to_its_winner() -> None:
    """With a single set played, its winner wins the match."""
    result = score_match(PLAYERS, [SetResult("bob", 50)])
    assert result.winner == "bob"
    assert result.reason is MatchReason.MORE_WINS


def test_a_win_and_an_aborted_set_go_to_the_winner() -> None:
    """One set won and one aborted without a winner: the winner takes the match."""
    result = score_match(PLAYERS, [SetResult(None, 5), SetResult("alice", 41)])
    assert result.winner == "alice"
    assert result.wins == {"alice": 1, "bob": 0}


def test_no_set_won_is_a_drawn_match() -> None:
    """Two sets without a winner: nobody wins the match."""
    result = score_match(PLAYERS, [SetResult(None, 3), SetResult(None, 0)])
    assert result.winner is None
    assert result.reason is MatchReason.NO_WINS
    assert result.wins == {"alice": 0, "bob": 0}


def test_one_set_won_by_the_second_listed_player_takes_the_match() -> None:
    """Bob, listed second, wins the only set that had a winner: 1-0 to Bob."""
    result = score_match(PLAYERS, [SetResult("bob", 12), SetResult(None, 4)])
    assert result.winner == "bob"
    assert result.reason is MatchReason.MORE_WINS
    assert result.wins == {"alice": 0, "bob": 1}


def test_a_match_has_at_most_two_sets() -> None:
    """Three set results cannot be one match (docs/rules.md §11)."""
    sets = [SetResult("alice", 10), SetResult("bob", 12), SetResult("alice", 14)]
    with pytest.raises(ValueError, match=r"^a match has one or two sets, not 3$"):
        score_match(PLAYERS, sets)


def test_the_players_order_does_not_change_the_result() -> None:
    """Listing Bob first gives the same winner and reason."""
    sets = [SetResult("alice", 25), SetResult("bob", 18)]
    assert score_match(("bob", "alice"), sets) == score_match(PLAYERS, sets)


def test_a_set_won_by_a_stranger_is_refused() -> None:
    """A set result naming someone outside the match is an error."""
    with pytest.raises(ValueError, match=r"^'carol' is not a player of this match$"):
        score_match(PLAYERS, [SetResult("carol", 10)])


def test_a_match_needs_two_different_players() -> None:
    """A player cannot play a match against themselves."""
    with pytest.raises(ValueError, match=r"^a match has two different players$"):
        score_match(("alice", "alice"), [])
    with pytest.raises(ValueError, match=r"^a match has two different players$"):
        score_match(("alice", "bob", "carol"), [])
