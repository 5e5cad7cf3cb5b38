"""Takebacks racing moves, through the services on both backends: a move that lands while a
takeback is being answered (or asked against the computer) is never the move undone."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from bot.services import ActiveGame, Services
from bot.services.domain import TAKEBACK_LIFETIME, Takeback
from bot.services.errors import CannotTakeBack, NoGameHere, TimeRanOut
from bot.storage import announcements as storage_announcements
from bot.storage import takebacks as storage_takebacks
from bot.storage.announcements import LateCause
from bot.storage.connection import Dialect
from bot.storage.takebacks import TakebackRow
from tests.conftest import ALICE, BOB, CHANNEL, COMPUTER, GUILD, OTHER_CHANNEL, FakeClock


async def moves_played(services: Services) -> list[str]:
    """The channel's set's moves as stored."""
    exported = await services.records.export(channel_id=CHANNEL, unnamed="a player")
    return [str(record.move) for record in exported.game.records]


async def test_an_accept_racing_the_opponents_move_undoes_nothing(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback just as his own move lands: the request lapses, both moves
    stand, and the refusal says why."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    read = services.games.get

    async def read_then_bob_moves(set_id: int) -> ActiveGame:
        seen = await read(set_id)
        monkeypatch.setattr(services.games, "get", read)
        await services.games.play(CHANNEL, BOB, "c4-c2")  # lands after the answer read the game
        return seen

    monkeypatch.setattr(services.games, "get", read_then_bob_moves)
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    assert str(refused.value) == (
        "That takeback request lapsed: a move was played or ten minutes passed."
    )
    assert await moves_played(services) == ["d1-c1", "c4-c2"]
    assert await services.takebacks.lapse_stale() == []  # lapsed for good, not left open
    with pytest.raises(CannotTakeBack, match="already answered or lapsed"):
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)


async def test_a_takeback_against_the_computer_racing_a_move_undoes_nothing(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /takeback reads the game after the computer's reply; her next move lands before
    the undo: nothing is taken back (not her new move and the reply before it)."""
    active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
    read = services.games.in_channel

    async def read_then_alice_moves(channel_id: int) -> ActiveGame | None:
        seen = await read(channel_id)
        monkeypatch.setattr(services.games, "in_channel", read)
        await services.games.play(CHANNEL, ALICE, "d2-e2")
        return seen

    monkeypatch.setattr(services.games, "in_channel", read_then_alice_moves)
    with pytest.raises(CannotTakeBack, match=r"The game moved on: nothing was taken back\."):
        await services.takebacks.ask(CHANNEL, ALICE)
    assert await moves_played(services) == ["d1-c1", "c4-c2", "d2-e2"]
    game = await services.games.in_channel(CHANNEL)
    assert game is not None
    assert game.computer_to_move


async def test_an_accept_after_the_deadline_takes_nothing_back(
    services: Services, clock: FakeClock
) -> None:
    """bob's time ran out (the timer has not said so yet): his Accept of alice's takeback is
    refused as too late and undoes nothing, so the set is lost on time as it stands."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(minutes=5)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(minutes=6))
    with pytest.raises(TimeRanOut):
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    assert await moves_played(services) == ["d1-c1"]
    [ended] = await services.clocks.time_out_due()
    assert ended.winner_id == ALICE


async def test_a_takeback_against_the_computer_after_the_deadline_is_too_late(
    services: Services, clock: FakeClock
) -> None:
    """alice's time ran out after the computer's reply: her takeback is refused as too late."""
    active = await services.matches.start_computer_match(
        GUILD, CHANNEL, ALICE, COMPUTER, time_per_move=timedelta(minutes=5)
    )
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
    clock.advance(timedelta(minutes=6))
    with pytest.raises(TimeRanOut):
        await services.takebacks.ask(CHANNEL, ALICE)
    assert await moves_played(services) == ["d1-c1", "c4-c2"]


async def test_two_takeback_requests_at_once_open_one(services: Services) -> None:
    """alice asks twice at the same moment (a double press): one request opens, the other is
    told one is already waiting — not that the game could not be saved."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    # A busy bot's connections are open already: two reads at once open a second one.
    await asyncio.gather(services.games.in_channel(CHANNEL), services.games.in_channel(CHANNEL))
    results = await asyncio.gather(
        services.takebacks.ask(CHANNEL, ALICE),
        services.takebacks.ask(CHANNEL, ALICE),
        return_exceptions=True,
    )
    asked = [result for result in results if isinstance(result, Takeback)]
    refused = [result for result in results if isinstance(result, BaseException)]
    assert len(asked) == 1, results
    assert [str(error) for error in refused] == [
        "A takeback is already waiting for an answer in this game."
    ]


async def test_a_request_accepted_as_it_lapses_is_not_called_lapsed(
    services: Services, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's request in its last moment, while the timer's sweep, which read it
    as open and expired, is about to lapse it: the move is taken back and the sweep does not
    return it as lapsed (its message would say so over the accepted one)."""
    if services.database.dialect is Dialect.SQLITE:
        pytest.skip("SQLite runs one write transaction at a time: the sweep cannot be overtaken")
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    clock.advance(TAKEBACK_LIFETIME - timedelta(microseconds=1))  # bob's press, just in time
    read = storage_takebacks.stale
    reads: list[int] = []

    async def read_then_bob_accepts(*args: Any, **kwargs: Any) -> list[TakebackRow]:
        found = await read(*args, **kwargs)
        reads.append(len(found))
        if len(reads) == 2:  # the sweep's read inside its transaction, before it lapses them
            await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
        return found

    monkeypatch.setattr(storage_takebacks, "stale", read_then_bob_accepts)
    assert await services.takebacks.lapse_stale(asked.expires_at) == []
    assert reads == [1, 1]
    assert await moves_played(services) == []


async def test_a_request_racing_the_opponents_move_is_refused(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /takeback reads the game before bob's move lands, and stores after it: she is
    told bob has moved since, and no request opens (it would ping bob for a move he has
    already answered)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    read = services.games.in_channel

    async def read_then_bob_moves(channel_id: int) -> ActiveGame | None:
        seen = await read(channel_id)
        monkeypatch.setattr(services.games, "in_channel", read)
        await services.games.play(CHANNEL, BOB, "c4-c2")
        return seen

    monkeypatch.setattr(services.games, "in_channel", read_then_bob_moves)
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.ask(CHANNEL, ALICE)
    assert str(refused.value) == (
        "Only your own last move can be taken back, and your opponent has moved since."
    )
    game = await services.games.in_channel(CHANNEL)
    assert game is not None
    async with services.database.snapshot() as db:
        assert await storage_takebacks.open_for_game(db, game.set_id) is None


async def test_a_request_racing_a_resignation_in_a_one_set_match_speaks_of_the_game(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /takeback reads her one-set game before bob's resignation lands: she is told
    the game is over (a one-set match has no sets to speak of), and no request opens."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=1)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    read = services.games.in_channel

    async def read_then_bob_resigns(channel_id: int) -> ActiveGame | None:
        seen = await read(channel_id)
        monkeypatch.setattr(services.games, "in_channel", read)
        await services.games.resign(CHANNEL, BOB)
        return seen

    monkeypatch.setattr(services.games, "in_channel", read_then_bob_resigns)
    with pytest.raises(NoGameHere) as refused:
        await services.takebacks.ask(CHANNEL, ALICE)
    assert str(refused.value) == "That game is over."


async def test_a_board_from_before_a_takeback_is_not_live_when_the_ply_comes_back(
    services: Services, clock: FakeClock
) -> None:
    """alice's move 1 is taken back and she plays it again: a board of the first move 1, out
    only now (slow), neither takes the buttons from the new move's board nor counts as it."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    old = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    await services.announcements.delivered(old.set_id, 0, None)  # the takeback's board is out
    new = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    assert (old.ply, old.undone, new.ply, new.undone) == (1, 0, 1, 1)
    assert await services.boards.set_live_board_at(old, 501) == (False, None)
    assert await services.boards.board_posted(old, 111, shows=old) == (False, None)
    clock.advance(timedelta(minutes=1))  # past the normal path's grace: the new board is owed
    assert [(r.set_id, r.ply) for r in await services.announcements.due()] == [(new.set_id, 1)]
    assert await services.boards.board_posted(new, 222, shows=new) == (True, None)
    assert await services.boards.set_live_board_at(old, 502) == (False, None)
    assert await services.boards.live_board(CHANNEL) == 222


async def test_a_board_noted_while_a_move_and_its_takeback_commit_is_not_live(
    services: Services,
) -> None:
    """alice's board of move 1 is noted while her next move and its takeback are being stored
    (one racing transaction, back at the same ply): the board waits for them, and then is an
    old one — it takes no buttons."""
    if services.database.dialect is Dialect.SQLITE:
        pytest.skip("SQLite runs one write transaction at a time: nothing commits meanwhile")
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    seen = (await services.games.play(CHANNEL, BOB, "c4-c2")).game
    assert await services.boards.board_posted(seen, 111, shows=seen) == (True, None)
    async with services.database.transaction() as db:
        # bob's move and its takeback, as their transactions leave the set (ply 2, 1 undone)
        await db.execute("UPDATE sets SET ply = 3 WHERE set_id = ?", (seen.set_id,))
        await db.execute("UPDATE sets SET ply = 2, undone = 1 WHERE set_id = ?", (seen.set_id,))
        noted = asyncio.create_task(services.boards.board_posted(seen, 222, shows=seen))
        await asyncio.sleep(0.3)
        assert not noted.done()  # waits for the set's row
    assert (await noted)[0] is False
    assert await services.boards.live_board(CHANNEL) == 111


async def test_a_takeback_button_from_before_a_takeback_takes_nothing_back(
    services: Services,
) -> None:
    """Against the computer, alice takes back a round and plays it again, move for move: the
    Takeback button of the first round's board (the same ply) takes nothing back."""
    active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    first = (await services.games.play_computer_move(active.set_id, "c4-c2", 1)).game
    await services.takebacks.ask(CHANNEL, ALICE, board=(first.ply, first.undone))
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    again = (await services.games.play_computer_move(active.set_id, "c4-c2", 1)).game
    assert (first.ply, again.ply, again.undone) == (2, 2, 2)
    with pytest.raises(CannotTakeBack, match=r"^You took back moves since this board was posted"):
        await services.takebacks.ask(CHANNEL, ALICE, board=(first.ply, first.undone))
    assert await moves_played(services) == ["d1-c1", "c4-c2"]
    taken = await services.takebacks.ask(CHANNEL, ALICE, board=(again.ply, again.undone))
    assert isinstance(taken, ActiveGame)
    assert taken.ply == 0


async def test_a_takeback_racing_a_takeback_and_the_same_round_undoes_nothing(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's second /takeback against the computer reads the game; before its undo the
    round is taken back and played again, move for move (the same ply): nothing more is taken
    back, the round she now sees stands."""
    active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
    read = services.games.in_channel

    async def read_then_the_round_again(channel_id: int) -> ActiveGame | None:
        seen = await read(channel_id)
        monkeypatch.setattr(services.games, "in_channel", read)
        await services.takebacks.ask(CHANNEL, ALICE)
        await services.games.play(CHANNEL, ALICE, "d1-c1")
        await services.games.play_computer_move(active.set_id, "c4-c2", expected_ply=1)
        return seen

    monkeypatch.setattr(services.games, "in_channel", read_then_the_round_again)
    with pytest.raises(CannotTakeBack, match=r"The game moved on: nothing was taken back\."):
        await services.takebacks.ask(CHANNEL, ALICE)
    assert await moves_played(services) == ["d1-c1", "c4-c2"]


async def test_a_takeback_under_a_board_the_computer_has_moved_past_says_whose_move_came(
    services: Services,
) -> None:
    """alice presses the Takeback of my board after her next move: while I think she is told
    to wait for my reply; once I have replied, that I have moved since; nothing is taken back."""
    active = await services.matches.start_computer_match(GUILD, CHANNEL, ALICE, COMPUTER)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    board = (await services.games.play_computer_move(active.set_id, "c4-c2", 1)).game
    await services.games.play(CHANNEL, ALICE, "d2-e2")
    with pytest.raises(CannotTakeBack) as thinking:
        await services.takebacks.ask(CHANNEL, ALICE, board=(board.ply, board.undone))
    assert str(thinking.value) == "Wait for my reply first, then ask to take your move back."
    await services.games.play_computer_move(active.set_id, "c2-c3", 3)
    with pytest.raises(CannotTakeBack) as replied:
        await services.takebacks.ask(CHANNEL, ALICE, board=(board.ply, board.undone))
    assert str(replied.value) == "I have moved since: nothing was taken back."
    assert await moves_played(services) == ["d1-c1", "c4-c2", "d2-e2", "c2-c3"]


async def test_a_late_board_stays_delivered_when_only_a_later_move_was_taken_back(
    services: Services, clock: FakeClock
) -> None:
    """alice's move 1 is out late, after bob's reply and her next move, and her takeback of
    that next move: move 1 still stands, so its board is out (the outbox must not post it a
    second time, "posted late"); it just does not take the buttons."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    old = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    await services.games.play(CHANNEL, BOB, "c4-c2")
    await services.games.play(CHANNEL, ALICE, "d2-e2")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    now = await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    assert (old.ply, old.undone, now.ply, now.undone) == (1, 0, 2, 1)
    assert await services.boards.board_posted(old, 111, shows=old) == (False, None)
    clock.advance(timedelta(minutes=1))  # past the normal path's grace
    owed = [(r.set_id, r.ply) for r in await services.announcements.due()]
    assert (old.set_id, 1) not in owed


async def test_a_reminder_read_before_a_takeback_leaves_the_new_moves_reminder_due(
    services: Services, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's half-time reminder is read just as alice's move is taken back and she plays
    again (the same ply, another position): that reminder is not claimed, and the new move's
    comes at its own half-time (not lost to the old one's claim)."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(hours=2)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    clock.advance(timedelta(hours=1))
    claim = services.clocks._claim_reminders

    async def takeback_then_claim(*args: Any) -> Any:
        monkeypatch.setattr(services.clocks, "_claim_reminders", claim)
        asked = await services.takebacks.ask(CHANNEL, ALICE)
        assert isinstance(asked, Takeback)
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
        await services.games.play(CHANNEL, ALICE, "d1-b1")
        return await claim(*args)

    monkeypatch.setattr(services.clocks, "_claim_reminders", takeback_then_claim)
    assert await services.clocks.reminders_due() == []
    clock.advance(timedelta(hours=1))
    (due,) = await services.clocks.reminders_due()
    assert (due.ply, due.undone, due.player_to_move) == (1, 1, BOB)


async def _member_set(services: Services, *moves: str) -> list[ActiveGame]:
    """A set between alice (attackers) and bob with ``moves`` played; the game after each."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    played = []
    for ply, move in enumerate(moves):
        played.append((await services.games.play(CHANNEL, (ALICE, BOB)[ply % 2], move)).game)
    return played


async def test_a_takeback_under_a_board_the_opponent_has_moved_past_says_so(
    services: Services,
) -> None:
    """alice presses the Takeback of her move's board after bob's reply: she is told her
    opponent has moved since, and nothing is taken back."""
    [board, _] = await _member_set(services, "d1-c1", "c4-c2")
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.ask(CHANNEL, ALICE, board=(board.ply, board.undone))
    assert str(refused.value) == "Your opponent has moved since: nothing was taken back."
    assert await moves_played(services) == ["d1-c1", "c4-c2"]


async def test_a_takeback_under_a_board_the_player_has_moved_past_says_so(
    services: Services,
) -> None:
    """alice presses the Takeback of bob's move's board after her own next move (bob has not
    replied): she is told she has moved since, and no request opens."""
    [_, board, _] = await _member_set(services, "d1-c1", "c4-c2", "d2-e2")
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.ask(CHANNEL, ALICE, board=(board.ply, board.undone))
    assert str(refused.value) == "You have moved since: nothing was taken back."
    async with services.database.snapshot() as db:
        assert await storage_takebacks.open_for_game(db, board.set_id) is None


async def test_a_takeback_under_a_board_from_before_a_takeback_says_one_was_taken_back(
    services: Services,
) -> None:
    """alice's move is taken back and she plays it again: the Takeback of the first move's
    board says a move was taken back since that board, and asks nothing."""
    [board] = await _member_set(services, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.ask(CHANNEL, ALICE, board=(board.ply, board.undone))
    assert str(refused.value) == (
        "A move was taken back since this board was posted: nothing more was taken back."
    )
    assert await moves_played(services) == ["d1-c1"]


async def test_an_accept_overtaken_by_the_answerers_own_move_says_they_moved(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback as his own move lands, after the answer read the set and
    before the move is undone: he is told he has moved since; both moves stand."""
    if services.database.dialect is Dialect.SQLITE:
        pytest.skip("SQLite runs one write transaction at a time: the move cannot land within")
    await _member_set(services, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    undo = storage_takebacks.undo_last_move

    async def bob_moves_then_undo(*args: Any, **kwargs: Any) -> bool:
        monkeypatch.setattr(storage_takebacks, "undo_last_move", undo)
        await services.games.play(CHANNEL, BOB, "c4-c2")
        return await undo(*args, **kwargs)

    monkeypatch.setattr(storage_takebacks, "undo_last_move", bob_moves_then_undo)
    with pytest.raises(CannotTakeBack) as refused:
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    assert str(refused.value) == "You have moved since: nothing was taken back."
    assert await moves_played(services) == ["d1-c1", "c4-c2"]


async def test_an_accept_overtaken_by_the_sets_end_says_it_is_over(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts alice's takeback as his resignation lands, after the answer read the set and
    before the move is undone: he is told the set is over (the match goes on to its next)."""
    if services.database.dialect is Dialect.SQLITE:
        pytest.skip("SQLite runs one write transaction at a time: the end cannot land within")
    await _member_set(services, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    undo = storage_takebacks.undo_last_move

    async def bob_resigns_then_undo(*args: Any, **kwargs: Any) -> bool:
        monkeypatch.setattr(storage_takebacks, "undo_last_move", undo)
        await services.games.resign(CHANNEL, BOB)
        return await undo(*args, **kwargs)

    monkeypatch.setattr(storage_takebacks, "undo_last_move", bob_resigns_then_undo)
    with pytest.raises(NoGameHere) as refused:
        await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    assert str(refused.value) == "That set is already over."


async def test_the_board_after_a_takeback_is_owed_like_a_moves(
    services: Services, clock: FakeClock
) -> None:
    """An accepted takeback, and one against the computer, owe the board of the ply they step
    back to, told as taken back (a thread locked then has it posted once unlocked); once
    out, it is owed no more, and the next move's board is a move's again."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    clock.advance(timedelta(seconds=1))
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.announcements.delivered(active.set_id, 1, None)  # d1-c1's board is out
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(seconds=1))
    back = await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    clock.advance(timedelta(minutes=1))  # past the normal path's grace
    owed = [(r.set_id, r.ply, r.taken_back) for r in await services.announcements.due()]
    assert owed == [(active.set_id, 0, True)]
    await services.boards.board_posted(back, 2, shows=back)
    assert await services.announcements.due() == []
    await services.games.play(CHANNEL, ALICE, "d1-b1")
    clock.advance(timedelta(minutes=1))
    owed = [(r.set_id, r.ply, r.taken_back) for r in await services.announcements.due()]
    assert owed == [(active.set_id, 1, False)]

    computer = await services.matches.start_computer_match(GUILD, OTHER_CHANNEL, ALICE, COMPUTER)
    await services.games.play(OTHER_CHANNEL, ALICE, "d1-c1")
    await services.games.play_computer_move(computer.set_id, "c4-c2", expected_ply=1)
    clock.advance(timedelta(seconds=1))
    undone = await services.takebacks.ask(OTHER_CHANNEL, ALICE)
    assert isinstance(undone, ActiveGame)
    for ply in (1, 2):
        await services.announcements.delivered(computer.set_id, ply, None)
    clock.advance(timedelta(minutes=1))
    owed = [(r.set_id, r.ply, r.taken_back) for r in await services.announcements.due()]
    assert (computer.set_id, 0, True) in owed


async def test_a_board_owed_anew_while_the_outbox_posts_the_old_one_stays_owed(
    services: Services, clock: FakeClock
) -> None:
    """The outbox reads alice's d1-c1 board owed; bob's move and its takeback owe that ply's
    board again before the old post is marked: the takeback's board stays owed, with its
    first try (the old row's outcome, posted or failed, is not the new board's)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    clock.advance(timedelta(minutes=1))  # past the normal path's grace: the outbox's
    [read] = await services.announcements.due()
    assert (read.set_id, read.ply, read.taken_back) == (active.set_id, 1, False)
    await services.games.play(CHANNEL, BOB, "c4-c2")
    await services.announcements.delivered(active.set_id, 2, None)  # c4-c2's board is out
    asked = await services.takebacks.ask(CHANNEL, BOB)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(seconds=1))
    await services.takebacks.answer(asked.takeback_id, ALICE, accept=True)  # owes ply 1 anew
    await services.announcements.failed(read)
    await services.announcements.posted(read, 7)
    clock.advance(timedelta(minutes=1))
    [owed] = await services.announcements.due()
    assert (owed.set_id, owed.ply, owed.taken_back, owed.attempts) == (active.set_id, 1, True, 0)
    assert owed.created_us > read.created_us
    await services.announcements.posted(owed, 8)
    assert await services.announcements.due() == []


async def test_an_old_board_out_after_a_takeback_back_to_its_ply_leaves_that_board_owed(
    services: Services, clock: FakeClock
) -> None:
    """The flow's post of alice's d1-c1 board ends after bob's reply was taken back to that
    ply: the takeback's board there (its own post may fail) stays owed, not marked out by the
    old one, whose buttons come off."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    await services.games.play(CHANNEL, BOB, "c4-c2")
    asked = await services.takebacks.ask(CHANNEL, BOB)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(seconds=1))
    back = await services.takebacks.answer(asked.takeback_id, ALICE, accept=True)
    assert (back.ply, back.undone) == (first.ply, first.undone + 1)
    assert await services.boards.board_posted(first, 7, shows=first) == (False, None)
    clock.advance(timedelta(minutes=1))
    owed = [(r.set_id, r.ply, r.taken_back) for r in await services.announcements.due()]
    assert (first.set_id, 1, True) in owed


async def test_an_old_board_out_without_its_id_after_a_takeback_leaves_that_board_owed(
    services: Services, clock: FakeClock
) -> None:
    """The same when Discord's answer to the old board's post gave no message id: the
    takeback's board at that ply stays owed (before, the old board without an id marked it
    out unchecked)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    await services.games.play(CHANNEL, BOB, "c4-c2")
    asked = await services.takebacks.ask(CHANNEL, BOB)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(seconds=1))
    await services.takebacks.answer(asked.takeback_id, ALICE, accept=True)
    assert await services.boards.board_posted(first, None, shows=first) == (False, None)
    clock.advance(timedelta(minutes=1))
    owed = [(r.set_id, r.ply, r.taken_back) for r in await services.announcements.due()]
    assert (first.set_id, 1, True) in owed


async def test_a_board_out_without_its_id_after_a_resignation_leaves_the_final_board_owed(
    services: Services, clock: FakeClock
) -> None:
    """alice's d1-c1 board is out, Discord giving no message id, after bob resigned at that
    move: the final board owed at that ply stays owed, not marked out by the board before it."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    await services.games.resign(CHANNEL, BOB)
    assert await services.boards.board_posted(first, None, shows=first) == (False, None)
    clock.advance(timedelta(minutes=1))
    owed = [(r.set_id, r.ply) for r in await services.announcements.due()]
    assert (first.set_id, 1) in owed


async def test_boards_owed_at_a_takebacks_instant_read_what_owed_them_on_a_frozen_clock(
    services: Services,
) -> None:
    """On a clock standing still, bob's c4-c2 is taken back and he resigns at that instant:
    the final board owed at ply 1 is not read as the takeback's, and c4-c2's board left owed
    at ply 2 counts no move taken back (before, both read the takeback by its instant)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.play(CHANNEL, BOB, "c4-c2")
    asked = await services.takebacks.ask(CHANNEL, BOB)
    assert isinstance(asked, Takeback)
    await services.takebacks.answer(asked.takeback_id, ALICE, accept=True)  # owes ply 1 anew
    assert await owed_later(services) == {1: (True, 1), 2: (False, 0)}
    await services.games.resign(CHANNEL, BOB)  # owes ply 1 anew again: the final board
    assert await owed_later(services) == {1: (False, 1), 2: (False, 0)}


async def test_a_moves_board_owed_where_a_takeback_owed_one_is_not_read_as_a_takeback(
    services: Services,
) -> None:
    """Two takebacks step alice and bob's game back to its start and alice plays again: the
    board her move owes at ply 1, where the first takeback owed one, tells of her move, with
    both moves taken back counted (SQLite's moves trigger and PostgreSQL's move statement
    note it: before, it kept the takeback's flag and told of a takeback)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.play(CHANNEL, BOB, "c4-c2")
    for asker, answerer in ((BOB, ALICE), (ALICE, BOB)):  # back to ply 1, then to ply 0
        asked = await services.takebacks.ask(CHANNEL, asker)
        assert isinstance(asked, Takeback)
        await services.takebacks.answer(asked.takeback_id, answerer, accept=True)
    await services.games.play(CHANNEL, ALICE, "d1-b1")
    assert await owed_later(services) == {0: (True, 2), 1: (False, 2), 2: (False, 0)}


async def owed_later(services: Services) -> dict[int, tuple[bool, int]]:
    """By ply, whether each board owed (its grace passed or not) was owed by a takeback, and
    the moves taken back in its set then, as the outbox reads them (the clock left as it is)."""
    async with services.database.snapshot() as db:
        rows = await storage_announcements.due(db, 2**62, 20)
    return {row.ply: (row.taken_back, row.undone) for row in rows}


async def test_a_boards_late_cause_is_its_last_refusals_and_a_board_owed_anew_has_none(
    services: Services, clock: FakeClock
) -> None:
    """Why a board is owed late is the last word on it: the flow's post refused as locked, then
    the outbox's tries (locked, or Discord unreachable: none); a board owed anew at that ply,
    by a takeback or by a move back to it, starts without one."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.announcements.post_refused(active.set_id, 1, LateCause.LOCKED)
    clock.advance(timedelta(minutes=1))
    [read] = await services.announcements.due()
    assert read.late_cause is LateCause.LOCKED
    await services.announcements.failed(read)
    clock.advance(timedelta(minutes=1))
    [read] = await services.announcements.due()
    assert read.late_cause is None
    await services.announcements.failed(read, refused=True, cause=LateCause.LOCKED)
    clock.advance(timedelta(hours=2))
    [read] = await services.announcements.due()
    assert read.late_cause is LateCause.LOCKED
    await services.games.play(CHANNEL, BOB, "c4-c2")
    await services.announcements.post_refused(active.set_id, 2, LateCause.LOCKED)
    asked = await services.takebacks.ask(CHANNEL, BOB)
    assert isinstance(asked, Takeback)
    clock.advance(timedelta(seconds=1))
    await services.takebacks.answer(asked.takeback_id, ALICE, accept=True)  # owes ply 1 anew
    await services.games.play(CHANNEL, BOB, "c4-c3")  # owes ply 2 anew
    clock.advance(timedelta(minutes=1))
    owed = {row.ply: row.late_cause for row in await services.announcements.due()}
    assert owed == {1: None, 2: None}


async def test_a_refusal_is_noted_on_the_board_refused_not_one_owed_anew_since(
    services: Services, clock: FakeClock
) -> None:
    """alice's d1-c1 board is refused as locked after bob resigned at that move (the final
    board, owed anew at ply 1): the final board's late post does not say it was refused."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    played = await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.games.resign(CHANNEL, BOB)  # owes ply 1 anew: the final board
    await services.announcements.post_refused(
        active.set_id, 1, LateCause.LOCKED, owed=played.game.owed
    )
    clock.advance(timedelta(minutes=1))
    [final] = await services.announcements.due()
    assert (final.ply, final.late_cause) == (1, None)


async def test_a_matchs_first_board_marks_out_only_itself(
    services: Services, clock: FakeClock
) -> None:
    """A match's first set carries its first board as owed: posted after the match was
    aborted (its final board owed anew at ply 0), it leaves the final board owed."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    assert active.owed is not None
    await services.games.abort(CHANNEL)
    await services.announcements.delivered(active.set_id, 0, None, owed=active.owed)
    clock.advance(timedelta(minutes=1))
    [final] = await services.announcements.due()
    assert final.ply == 0


async def test_a_board_held_back_by_a_rate_limit_waits_keeping_its_tries_and_cause(
    services: Services, clock: FakeClock
) -> None:
    """A board held back (Discord asked its channel's posts to wait) is not due before then,
    keeps its count of tries and why it is late, and a shorter hold never brings it forward."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.announcements.delivered(active.set_id, 0, None)  # its first board
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.announcements.post_refused(active.set_id, 1, LateCause.REFUSED)
    clock.advance(timedelta(minutes=1))
    [read] = await services.announcements.due()
    await services.announcements.held_back(read, clock() + timedelta(minutes=2))
    await services.announcements.held_back(read, clock() + timedelta(seconds=30))
    clock.advance(timedelta(minutes=1, seconds=59))
    assert await services.announcements.due() == []
    clock.advance(timedelta(seconds=1))
    [again] = await services.announcements.due()
    assert (again.attempts, again.late_cause) == (read.attempts, LateCause.REFUSED)


async def test_a_takeback_answer_owed_is_tried_with_pauses_until_it_is_shown(
    services: Services, clock: FakeClock
) -> None:
    """A request whose answer's edit Discord refused as locked is owed: due at once, paused
    after a refusal (until its server changes), and no longer owed once shown."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    await services.takebacks.set_message(asked.takeback_id, 77)
    await services.takebacks.answer(asked.takeback_id, BOB, accept=False)
    await services.announcements.answer_owed(asked.takeback_id)
    await services.announcements.answer_owed(asked.takeback_id)  # owed once
    [owed] = await services.announcements.answers_due()
    assert (owed.takeback_id, owed.channel_id, owed.message_id) == (asked.takeback_id, CHANNEL, 77)
    assert (owed.status, owed.asked_by, owed.answered_by) == ("declined", ALICE, BOB)
    await services.announcements.answer_failed(replace(owed, attempts=12), refused=True)
    clock.advance(timedelta(minutes=30))
    assert await services.announcements.answers_due() == []
    await services.announcements.retry_refused(GUILD)
    [owed] = await services.announcements.answers_due()
    await services.announcements.answer_shown(owed)
    clock.advance(timedelta(hours=2))
    assert await services.announcements.answers_due() == []


async def test_a_withdrawn_request_leaves_nothing_asked(services: Services) -> None:
    """A request whose message Discord refused is withdrawn: nothing waits for an answer, and
    alice may ask again, pinging bob as the first time."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(asked, Takeback)
    await services.takebacks.withdraw(asked.takeback_id)
    again = await services.takebacks.ask(CHANNEL, ALICE)
    assert isinstance(again, Takeback)
    assert not again.asked_before
