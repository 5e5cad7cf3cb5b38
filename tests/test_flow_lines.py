"""The line a match's thread is linked from, once the match is over (bot/flow/threads.py)."""

from __future__ import annotations

from bot.flow.threads import finished_line
from bot.services.domain import MatchEnd, SetSummary
from engine import MatchReason, MatchResult, Outcome, Reason, Side

ALICE, BOB, THREAD = 1, 2, 99
NAMES = {ALICE: "alice", BOB: "bob"}
PAIRING = "**alice** vs **bob** · Brandubh (World Tafl Federation)"


def set_won(number: int, winner: int, moves: int) -> SetSummary:
    """Set ``number``, won by ``winner`` in ``moves`` moves (alice attacks set 1)."""
    attacker, defender = (ALICE, BOB) if number == 1 else (BOB, ALICE)
    side = Side.ATTACKERS if winner == attacker else Side.DEFENDERS
    reason = Reason.KING_CAPTURED if side is Side.ATTACKERS else Reason.KING_ESCAPED
    return SetSummary(number, number, attacker, defender, Outcome(side, reason), winner, moves)


def match(reason: MatchReason, winner: int, wins: dict[int, int], *sets: SetSummary) -> MatchEnd:
    return MatchEnd(
        match_id=7,
        player_ids=(ALICE, BOB),
        winner_id=winner,
        reason=reason,
        result=MatchResult(winner, reason, wins),
        sets=sets,
    )


def test_a_match_of_one_set_is_simply_won() -> None:
    """One set: the line says who won, no "match 1–0"."""
    end = match(MatchReason.MORE_WINS, ALICE, {ALICE: 1, BOB: 0}, set_won(1, ALICE, 5))
    assert finished_line(end, "brandubh", NAMES, THREAD) == f"{PAIRING} — **alice** won. <#99>"


def test_two_sets_won_by_one_player_give_the_score() -> None:
    """2–0: the score says it all."""
    end = match(
        MatchReason.MORE_WINS, ALICE, {ALICE: 2, BOB: 0}, set_won(1, ALICE, 5), set_won(2, ALICE, 9)
    )
    assert finished_line(end, "brandubh", NAMES, THREAD) == (
        f"{PAIRING} — **alice** won the match 2–0. <#99>"
    )


def test_one_set_each_says_the_tiebreak_decided() -> None:
    """1–1: the line says the match went to the player whose set was won in fewer moves."""
    end = match(
        MatchReason.FEWER_MOVES, BOB, {ALICE: 1, BOB: 1}, set_won(1, ALICE, 25), set_won(2, BOB, 18)
    )
    assert finished_line(end, "brandubh", NAMES, THREAD) == (
        f"{PAIRING} — **bob** won the match 1–1 on the tiebreak: their set was won in fewer "
        "moves. <#99>"
    )
