"""The analysis's budget (a long set costs no more than a 60-move Brandubh set), and one
analysis at a time per member across processes."""

from __future__ import annotations

import random
from datetime import timedelta

from bot.services import Services
from bot.services.analysis import CLAIM_LIFETIME, MAX_NODES_A_SET, SetToAnalyse
from bot.shards import Shards
from bot.storage.database import is_postgresql
from engine import Game
from engine.analysis import ANALYSIS_NODES
from tests.conftest import ALICE, BOB, FakeClock


def long_game(ruleset: str, moves: int, seed: int) -> Game:
    """A random game of ``ruleset`` at least ``moves`` moves long (random moves seldom end it)."""
    chance = random.Random(seed)
    game = Game(ruleset)
    while game.ply < moves:
        game.play(chance.choice(list(game.legal_moves())))
        if game.outcome is not None:  # ended early: start another
            game = Game(ruleset)
    return game


def test_a_long_big_board_set_costs_no_more_than_a_60_move_brandubh_set() -> None:
    """A 300-move 15x15 set is searched with a budget per position that keeps its whole cost
    within a 60-move Brandubh set's (a floor of 20,000 positions made it 2.5 times that)."""
    game = long_game("hnefatafl-15", 300, seed=7)
    chosen = SetToAnalyse(1, game, "a", "b", 1, 1, None)
    assert (game.ply + 1) * chosen.nodes(ANALYSIS_NODES) <= MAX_NODES_A_SET


def test_a_60_move_brandubh_set_gets_the_full_budget() -> None:
    """A 60-move Brandubh set (61 positions) is searched at the full budget everywhere."""
    game = long_game("brandubh", 60, seed=3)
    while game.ply > 60:
        game.undo()
    assert SetToAnalyse(1, game, "a", "b", 1, 1, None).nodes(ANALYSIS_NODES) == ANALYSIS_NODES


async def test_one_analysis_at_a_time_holds_across_processes(
    database: str, clock: FakeClock
) -> None:
    """Two services on one database stand in for two shard processes: alice's analysis of
    set 1 claimed in one refuses her set 2 in the other, and is joined by set 1 asked there;
    it ends with the last of her requests, and a claim never released (its process died)
    lapses after the 15 minutes an analysis has at most."""
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        assert await first.analyses.claim(ALICE, 1) is None
        assert await second.analyses.claim(ALICE, 2) == 1
        assert await second.analyses.claim(BOB, 2) is None
        assert await second.analyses.claim(ALICE, 1) is None  # the same set: shared
        await first.analyses.release(ALICE, 1)
        assert await second.analyses.claim(ALICE, 2) == 1, "one of her requests still waits"
        await second.analyses.release(ALICE, 1)
        assert await second.analyses.claim(ALICE, 2) is None
        clock.advance(CLAIM_LIFETIME - timedelta(seconds=1))
        assert await first.analyses.claim(ALICE, 3) == 2
        clock.advance(timedelta(seconds=1))
        assert await first.analyses.claim(ALICE, 3) is None
        await second.analyses.release(ALICE, 2)  # the lapsed claim's late end: nothing
        assert await second.analyses.claim(ALICE, 4) == 3
    finally:
        await first.close()
        await second.close()


async def test_a_claim_joined_later_holds_for_the_later_request(
    database: str, clock: FakeClock
) -> None:
    """alice's set 1 asked again 10 minutes on (in another process, whose own analysis of it
    starts then) holds her claim for 15 minutes from that request: 20 minutes after the first,
    her set 2 is still refused (it lapsed with the first request's 15 minutes)."""
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        assert await first.analyses.claim(ALICE, 1) is None
        clock.advance(timedelta(minutes=10))
        assert await second.analyses.claim(ALICE, 1) is None  # joined
        await first.analyses.release(ALICE, 1)  # the first request answered
        clock.advance(timedelta(minutes=10))
        assert await first.analyses.claim(ALICE, 2) == 1
    finally:
        await first.close()
        await second.close()


async def test_a_process_starting_again_drops_the_claims_it_died_with(
    database: str, clock: FakeClock
) -> None:
    """The process of shards 0-1 of 4 dies during alice's analysis of set 1: started again, it
    drops her claim, and her set 2 is analysed at once, not 15 minutes later."""
    shards = Shards(4, (0, 1))
    died = await Services.open(database, clock=clock, shards=shards)
    try:
        assert await died.analyses.claim(ALICE, 1) is None
    finally:
        await died.close()  # never released: as if killed
    again = await Services.open(database, clock=clock, shards=shards)
    try:
        assert await again.analyses.drop_dead_claims() == 1
        assert await again.analyses.claim(ALICE, 2) is None
    finally:
        await again.close()


async def test_a_process_starting_again_keeps_the_claims_of_live_ones(
    database: str, clock: FakeClock
) -> None:
    """bob's analysis runs in the process of shards 2-3 of 4 when that of shards 0-1 starts
    again: on PostgreSQL, which they share, his claim holds; on SQLite it is dropped, since one
    process owns the file (bot/storage/process_lock.py), so the claim was of a dead one."""
    live = await Services.open(database, clock=clock, shards=Shards(4, (2, 3)))
    again = await Services.open(database, clock=clock, shards=Shards(4, (0, 1)))
    try:
        assert await live.analyses.claim(BOB, 1) is None
        shared = is_postgresql(database)
        assert await again.analyses.drop_dead_claims() == (0 if shared else 1)
        assert await again.analyses.claim(BOB, 2) == (1 if shared else None)
    finally:
        await live.close()
        await again.close()


async def test_a_new_layout_drops_the_claims_of_the_old_one(
    database: str, clock: FakeClock
) -> None:
    """The process of shard 1 of 2 dies during alice's analysis; the shards are laid out anew
    as 4: the process of shards 0-1 of 4 drops her claim (no process of 2 shards runs beside
    it), not bob's, made in the process of shards 2-3 of 4 running beside it."""
    died = await Services.open(database, clock=clock, shards=Shards(2, (1,)))
    try:
        assert await died.analyses.claim(ALICE, 1) is None
    finally:
        await died.close()  # never released: as if killed
    live = await Services.open(database, clock=clock, shards=Shards(4, (2, 3)))
    relaid = await Services.open(database, clock=clock, shards=Shards(4, (0, 1)))
    try:
        assert await live.analyses.claim(BOB, 2) is None
        shared = is_postgresql(database)
        assert await relaid.analyses.drop_dead_claims() == (1 if shared else 2)
        assert await relaid.analyses.claim(ALICE, 3) is None
        assert await relaid.analyses.claim(BOB, 3) == (2 if shared else None)
    finally:
        await live.close()
        await relaid.close()
