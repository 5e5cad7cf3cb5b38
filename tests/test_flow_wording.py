"""Lines of the boards and of the analysis read as sentences in every language."""

from __future__ import annotations

from dataclasses import replace

from bot.alike_names import NamesToldApart
from bot.flow.marked_moves import describe_move_review
from bot.flow.posts import match_end_text, rating_text, turn_line
from bot.i18n import ENGLISH, language
from bot.services.domain import MatchEnd, RatingChange
from engine import MatchReason, MatchResult, Move, Side
from engine.analysis import Judgement, MoveReview
from tests.test_flow_boards_as_text import set_two


def test_a_one_set_boards_turn_line_begins_with_a_capital() -> None:
    """Without "Set 1 of 2" in front, the line begins with the move: "Move 4 · …"."""
    one_set = replace(set_two("brandubh"), set_number=1, sets_total=1)
    assert turn_line(one_set).startswith("Move 4 · <@")
    assert turn_line(one_set, language("fr")).startswith("Coup 4 · <@")
    assert turn_line(set_two("brandubh")).startswith("Set 2 of 2 · move 4 · <@")


def test_the_notes_of_a_move_are_parted_as_each_language_writes_a_semicolon() -> None:
    """French sets a space before a semicolon: "(a permis … ; −40 %)"; English does not."""
    review = MoveReview(
        ply=3,
        move=Move.parse("d1-d3"),
        side=Side.DEFENDERS,
        judgement=Judgement.BLUNDER,
        chance_before=0.6,
        chance_after=0.2,
        better=None,
        allowed_loss_in=2,
    )
    assert "(allowed a loss in 2 moves; −40 %)" in describe_move_review(review, ENGLISH)
    assert " ; −40 %)" in describe_move_review(review, language("fr"))


def test_a_blunder_of_a_few_points_says_why_before_them() -> None:
    """A move giving away 3 points is a blunder for the forced loss it allowed: that is said
    first, the points after, in every language (before: "blunder (−3 %; allowed …)")."""
    review = MoveReview(
        ply=3,
        move=Move.parse("d1-d3"),
        side=Side.DEFENDERS,
        judgement=Judgement.BLUNDER,
        chance_before=0.33,
        chance_after=0.3,
        better=None,
        allowed_loss_in=3,
    )
    assert describe_move_review(review, ENGLISH) == (
        "Move 4, d1-d3: blunder (allowed a loss in 3 moves; −3 %)"
    )
    for tag in ("de", "fr", "es", "pt_BR"):
        assert describe_move_review(review, language(tag)).endswith(" −3 %)"), tag


def test_a_rating_change_adds_up_as_shown() -> None:
    """1662.31 → 1720.60 shows "1662 → 1721 (+59)": the change is the shown ratings' difference,
    not the exact one rounded (+58), which a player could check and find wrong."""
    up = RatingChange(1, 1662.31, 1720.60, 290.3, 260.5)
    down = RatingChange(2, 1337.69, 1279.40, 290.3, 260.5)
    line = rating_text((up, down), {1: "alice", 2: "bob"})
    assert line == "Ratings: alice 1662? → 1721? (+59), bob 1338? → 1279? (−59)."
    unchanged = RatingChange(1, 1500.4, 1500.6, 80.0, 79.0)
    assert rating_text((unchanged,), {1: "alice"}) == "Ratings: alice 1500 → 1501 (+1)."


def test_a_match_won_on_sets_says_no_tie_break() -> None:
    """A 2–0 ends at its score, in every language (before: "2–0, with more sets won"); a
    1–1 still says how it was decided."""
    alice, bob = 1, 2
    names = NamesToldApart({alice: "alice", bob: "bob"}, {})
    two_nil = MatchEnd(
        1, (alice, bob), alice, MatchReason.MORE_WINS,
        MatchResult(alice, MatchReason.MORE_WINS, {alice: 2, bob: 0}), (),
    )  # fmt: skip
    assert match_end_text(two_nil, names) == "**Match over:** <@1> wins the match 2–0."
    for tag in ("de", "fr", "es", "pt_BR"):
        assert match_end_text(two_nil, names, language(tag)).endswith(" 2–0."), tag
    level = MatchEnd(
        1, (alice, bob), bob, MatchReason.FEWER_MOVES,
        MatchResult(bob, MatchReason.FEWER_MOVES, {alice: 1, bob: 1}), (),
    )  # fmt: skip
    assert match_end_text(level, names) == (
        "**Match over:** <@2> wins the match 1–1, with one set each, by winning their set in "
        "fewer moves."
    )
