"""Whole matches through the services: challenge, moves, sets, §11 result, ratings, restarts."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.services import ActiveGame, MatchEnd, Services, SetEnd
from bot.services.absence import Resumed
from bot.services.domain import GamesPage, MoveResult
from bot.services.errors import (
    IllegalMove,
    NoGameHere,
    NotAPlayer,
    NotYourTurn,
    RepetitionNeedsConfirmation,
    StaleGameError,
    TimeRanOut,
    TooManyComputerMatches,
)
from bot.services.sets import NO_NOTES, EndNotes
from bot.storage.sets import SetRow
from engine import Game, MatchReason, Reason, Side
from tests.conftest import (
    ALICE,
    ATTACKERS_CAPTURE_KING,
    BOB,
    CAROL,
    CHANNEL,
    COMPUTER,
    GUILD,
    OTHER_CHANNEL,
    FakeClock,
    postgres_database,
)
from tests.postgres_server import PostgresServer

DAVE, ERIN = 14, 15


async def start(services: Services, channel: int = CHANNEL, sets: int = 2) -> ActiveGame:
    """Alice challenges Bob in ``channel`` and Bob accepts; Alice attacks in set 1. Its first
    board is out (as the flow marks it): the outbox owes nothing yet."""
    await services.players.remember(ALICE, "Alice")
    await services.players.remember(BOB, "Bob")
    challenge = await services.challenges.create(GUILD, channel, ALICE, BOB, sets_total=sets)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    await services.boards.board_posted(active, None, shows=active)
    return active


async def play_out(services: Services, channel: int, moves: tuple[str, ...]) -> SetEnd | None:
    """Play ``moves`` in the channel's game, each by the player to move; the last set end."""
    set_end = None
    for move in moves:
        game = await services.games.in_channel(channel)
        assert game is not None
        result = await services.games.play(channel, game.player_to_move, move)
        set_end = result.set_end
    return set_end


async def resign_after(services: Services, channel: int, plies: int, loser: int) -> SetEnd:
    """Play ``plies`` quiet moves (the first legal move each time), then ``loser`` resigns."""
    for _ in range(plies):
        game = await services.games.in_channel(channel)
        assert game is not None
        move = str(game.game.legal_moves()[0])
        await services.games.play(channel, game.player_to_move, move, confirm_repetition=True)
    return await services.games.resign(channel, loser)


async def test_full_two_set_match_from_challenge_to_rating_change(services: Services) -> None:
    """Alice captures the king in set 1, sides swap, Bob resigns set 2: Alice wins, rated."""
    first = await start(services)
    assert (first.attacker_id, first.defender_id, first.set_number) == (ALICE, BOB, 1)

    set_one = await play_out(services, CHANNEL, ATTACKERS_CAPTURE_KING)
    assert set_one is not None
    assert set_one.outcome.reason is Reason.KING_CAPTURED
    assert (set_one.winner_id, set_one.loser_id, set_one.moves) == (ALICE, BOB, 7)
    assert {c.user_id: c.delta > 0 for c in set_one.rating_changes} == {ALICE: True, BOB: False}
    second = set_one.next_game
    assert second is not None
    assert set_one.match_end is None
    assert (second.attacker_id, second.defender_id, second.set_number) == (BOB, ALICE, 2)
    assert second.player_to_move == BOB

    set_two = await resign_after(services, CHANNEL, 4, BOB)
    assert set_two.winner_id == ALICE
    assert set_two.next_game is None
    match_end = set_two.match_end
    assert match_end is not None
    assert (match_end.winner_id, match_end.reason) == (ALICE, MatchReason.MORE_WINS)

    page = await services.standings.leaderboard(GUILD)
    assert page.total == 2
    top, bottom = page.rows
    assert (top.rank, top.user_id, top.display_name) == (1, ALICE, "Alice")
    assert (top.games, top.wins, top.losses, top.matches_won) == (2, 2, 0, 1)
    assert (bottom.user_id, bottom.wins, bottom.losses, bottom.matches_won) == (BOB, 0, 2, 0)
    assert top.rating > 1500 > bottom.rating
    assert await services.games.in_channel(CHANNEL) is None


@pytest.mark.parametrize(
    ("alice_loses_set_1_after", "bob_loses_set_2_after", "winner", "reason"),
    [
        (6, 4, ALICE, MatchReason.FEWER_MOVES),  # Bob won in 6, Alice in 4: Alice
        (4, 6, BOB, MatchReason.FEWER_MOVES),  # Bob won in 4, Alice in 6: Bob
        (5, 5, None, MatchReason.EQUAL_MOVES),  # one win each in 5 moves: drawn match
    ],
)
async def test_one_win_each_is_decided_by_fewer_moves(
    services: Services,
    alice_loses_set_1_after: int,
    bob_loses_set_2_after: int,
    winner: int | None,
    reason: MatchReason,
) -> None:
    """§11: at one win each the faster win takes the match; equal counts draw it."""
    await start(services)
    await resign_after(services, CHANNEL, alice_loses_set_1_after, ALICE)
    set_two = await resign_after(services, CHANNEL, bob_loses_set_2_after, BOB)
    assert set_two.match_end is not None
    assert (set_two.match_end.winner_id, set_two.match_end.reason) == (winner, reason)


async def test_timeout_counts_as_a_win_in_the_moves_played(
    services: Services, clock: FakeClock
) -> None:
    """§11: a set lost on time is won by the other player in the moves played so far."""
    first = await start(services)
    await play_out(services, CHANNEL, ("d1-c1", "d3-a3", "c1-c3"))  # Bob (defenders) to move
    clock.advance(first.time_per_move)
    (timed_out,) = await services.clocks.time_out_due()
    assert (timed_out.outcome.reason, timed_out.winner_id, timed_out.moves) == (
        Reason.TIMEOUT,
        ALICE,
        3,
    )
    set_two = await resign_after(services, CHANNEL, 5, ALICE)  # Bob wins set 2 in 5
    assert set_two.match_end is not None
    assert (set_two.match_end.winner_id, set_two.match_end.reason) == (
        ALICE,
        MatchReason.FEWER_MOVES,
    )


async def test_a_one_set_match_ends_after_its_set(services: Services) -> None:
    """With sets=1 the first set's winner wins the match at once."""
    await start(services, sets=1)
    set_end = await play_out(services, CHANNEL, ATTACKERS_CAPTURE_KING)
    assert set_end is not None
    assert set_end.next_game is None
    assert set_end.match_end is not None
    assert set_end.match_end.winner_id == ALICE


async def test_resigning_ends_only_the_current_set(services: Services) -> None:
    """/resign in set 1 gives the set away; set 2 still follows with sides swapped."""
    await start(services)
    set_end = await services.games.resign(CHANNEL, BOB)
    assert (set_end.outcome.winner, set_end.outcome.reason) == (Side.ATTACKERS, Reason.RESIGNED)
    assert set_end.next_game is not None
    assert set_end.next_game.attacker_id == BOB
    assert set_end.match_end is None


def move_lands_first(
    services: Services, monkeypatch: pytest.MonkeyPatch, move: str
) -> list[MoveResult]:
    """Alice's ``move`` lands between the moment the set's end is judged (on the board before
    it) and the moment it is stored: the race the end must survive, made to happen."""
    finish = services.games.finish
    played: list[MoveResult] = []

    async def after_the_move(row: SetRow, ended: Game, notes: EndNotes = NO_NOTES) -> SetEnd:
        if not played:
            played.append(await services.games.play(CHANNEL, ALICE, move))
        return await finish(row, ended, notes)

    monkeypatch.setattr(services.games, "finish", after_the_move)
    return played


async def test_a_resign_racing_a_move_still_resigns(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob resigns while Alice's move is landing: both count, Bob loses set 1 after her move."""
    await start(services)
    played = move_lands_first(services, monkeypatch, "d1-c1")
    resigned = await services.games.resign(CHANNEL, BOB)
    assert [str(result.record) for result in played] == ["d1-c1"]
    assert resigned.outcome.reason is Reason.RESIGNED
    assert resigned.winner_id == ALICE
    assert resigned.moves == 1
    assert resigned.game.set_number == 1


async def test_an_abort_racing_a_move_still_aborts(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin's /abort sent while a move is landing stops the game after that move."""
    await start(services)
    played = move_lands_first(services, monkeypatch, "d1-c1")
    aborted = await services.games.abort(CHANNEL)
    assert [str(result.record) for result in played] == ["d1-c1"]
    assert aborted.outcome.reason is Reason.ABORTED
    assert aborted.moves == 1


async def test_resigning_a_set_that_is_over_does_not_resign_the_next(services: Services) -> None:
    """A resignation meant for set 1 (by its game id) is refused once set 2 is being played."""
    first = await start(services)
    await services.games.resign(CHANNEL, BOB)
    with pytest.raises(NoGameHere, match="already over"):
        await services.games.resign(CHANNEL, ALICE, set_id=first.set_id)
    second = await services.games.in_channel(CHANNEL)
    assert second is not None
    assert second.set_number == 2
    assert second.ply == 0


async def test_resigning_a_one_set_game_that_is_over_speaks_of_the_game(
    services: Services,
) -> None:
    """A resignation confirmed after a one-set match ended (an admin aborted it meanwhile) is
    refused as a game that is over: a one-set match has no set to speak of."""
    first = await start(services, sets=1)
    await services.games.abort(CHANNEL)
    with pytest.raises(NoGameHere) as refused:
        await services.games.resign(CHANNEL, ALICE, set_id=first.set_id)
    assert str(refused.value) == "That game is over."


async def test_racing_moves_never_both_land(services: Services) -> None:
    """Two different moves sent at once against the same board: one lands, one is stale."""
    await start(services)
    results = await asyncio.gather(
        services.games.play(CHANNEL, ALICE, "d1-c1"),
        services.games.play(CHANNEL, ALICE, "d2-c2"),
        return_exceptions=True,
    )
    landed = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(landed) == 1
    assert len(refused) == 1
    # Stale if it read the board before the other landed, else the turn has passed.
    assert isinstance(refused[0], StaleGameError | NotYourTurn)
    game = await services.games.in_channel(CHANNEL)
    assert game is not None
    assert game.ply == 1
    exported = await services.records.export(channel_id=CHANNEL, unnamed="a player")
    assert len(exported.game.records) == 1


async def test_many_racing_moves_leave_a_consistent_move_list(services: Services) -> None:
    """Ten racers per turn for six turns: each turn exactly one move lands."""
    await start(services)
    for _ in range(6):
        game = await services.games.in_channel(CHANNEL)
        assert game is not None
        candidates = [str(m) for m in game.game.legal_moves()[:10]]
        results = await asyncio.gather(
            *(services.games.play(CHANNEL, game.player_to_move, m) for m in candidates),
            return_exceptions=True,
        )
        assert sum(not isinstance(r, BaseException) for r in results) == 1
        refused = [r for r in results if isinstance(r, BaseException)]
        assert all(isinstance(r, StaleGameError | NotYourTurn) for r in refused)
    after = await services.games.in_channel(CHANNEL)
    assert after is not None
    assert after.ply == 6


async def test_a_move_chosen_on_an_old_board_is_stale(services: Services) -> None:
    """A move button from before the last move (expected_ply) is refused as stale."""
    await start(services)
    await services.games.play(CHANNEL, ALICE, "d1-c1", expected_ply=0)
    await services.games.play(CHANNEL, BOB, "d3-a3", expected_ply=1)
    with pytest.raises(StaleGameError):
        await services.games.play(CHANNEL, ALICE, "c1-c3", expected_ply=1)


async def test_refusals_change_nothing(services: Services) -> None:
    """Spectators, the wrong player and illegal moves are refused; the game stays at ply 0."""
    await start(services)
    with pytest.raises(NotAPlayer):
        await services.games.play(CHANNEL, CAROL, "d1-c1")
    with pytest.raises(NotYourTurn) as wrong_turn:
        await services.games.play(CHANNEL, BOB, "d3-c3")
    assert f"<@{ALICE}>" in str(wrong_turn.value)
    with pytest.raises(IllegalMove, match="corner"):
        await services.games.play(CHANNEL, ALICE, "a4-a1")
    with pytest.raises(NoGameHere):
        await services.games.play(OTHER_CHANNEL, ALICE, "d1-c1")
    game = await services.games.in_channel(CHANNEL)
    assert game is not None
    assert game.ply == 0


async def test_a_move_is_judged_on_the_set_as_stored_not_as_last_seen(
    postgres: PostgresServer | str, clock: FakeClock
) -> None:
    """A process tries a move against the set as it last stored it (one round trip); when the
    set moved on elsewhere meanwhile, the move lands at the stored ply or is refused for the
    stored state, never for the one last seen. (Two processes never drive one game; two
    services on one database stand in for a set changed behind this one's back.)"""
    database = await postgres_database(postgres)
    first = await Services.open(database, clock=clock)
    second = await Services.open(database, clock=clock)
    try:
        await start(first, CHANNEL)
        await first.games.play(CHANNEL, ALICE, "d1-c1")  # first keeps ply 1, Bob to move
        await second.games.play(CHANNEL, BOB, "d3-a3")  # the set moves on elsewhere
        # Bob's move is legal at ply 1, as first saw it, but Alice is to move at ply 2.
        with pytest.raises(NotYourTurn):
            await first.games.play(CHANNEL, BOB, "c4-c5")
        with pytest.raises(StaleGameError):  # a board of ply 1 is out of date
            await first.games.play(CHANNEL, ALICE, "c1-c3", expected_ply=1)
        await second.games.play(CHANNEL, ALICE, "c1-c3")
        assert (await first.games.play(CHANNEL, BOB, "c4-c5")).game.ply == 4
        assert (await first.games.play(CHANNEL, ALICE, "d2-d1")).game.ply == 5
        await second.games.resign(CHANNEL, BOB)  # set 1 ends elsewhere; set 2 begins
        # In first's set 1 (ply 5) d1-c1 would move an attacker for the defenders: refused
        # there, but set 2 is stored, where Bob attacks and it is his move.
        result = await first.games.play(CHANNEL, BOB, "d1-c1")
        assert (result.game.set_number, result.game.ply) == (2, 1)
        stored = await second.games.in_channel(CHANNEL)
        assert stored is not None
        assert [str(m.move) for m in stored.game.records] == ["d1-c1"]
    finally:
        await first.close()
        await second.close()


async def test_a_posted_board_is_delivered_and_live_in_one_step(
    services: Services, clock: FakeClock
) -> None:
    """After a move its board is owed to the outbox; once posted it is no longer owed and it
    is the channel's board with buttons, the one before it handed back (to lose its buttons)."""
    await start(services)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    clock.advance(timedelta(minutes=1))  # past the normal path's grace
    assert [(r.set_id, r.ply) for r in await services.announcements.due()] == [(first.set_id, 1)]
    assert await services.boards.board_posted(first, 111) == (True, None)
    assert await services.announcements.due() == []
    second = (await services.games.play(CHANNEL, BOB, "d3-a3")).game
    assert await services.boards.board_posted(second, 222) == (True, 111)
    assert await services.boards.board_posted(second, 222) == (True, None)  # posted twice
    third = (await services.games.play(CHANNEL, ALICE, "c1-c3")).game
    assert await services.boards.board_posted(third, None) == (True, None)  # id unknown
    clock.advance(timedelta(minutes=1))
    assert await services.announcements.due() == []


async def test_a_new_matchs_first_board_is_owed_until_it_is_out(
    services: Services, clock: FakeClock
) -> None:
    """A match's first board is owed from the moment the match is stored, as a move's is: a
    restart before the flow posts it leaves it to the outbox (once the flow's grace is over)."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
    active = await services.challenges.accept(challenge.challenge_id, BOB)
    assert await services.announcements.due() == []  # the flow's to post, for now
    clock.advance(timedelta(minutes=1))
    assert [(r.set_id, r.ply) for r in await services.announcements.due()] == [(active.set_id, 0)]
    assert await services.boards.board_posted(active, 111, shows=active) == (True, None)
    assert await services.announcements.due() == []


async def test_a_moves_board_takes_the_buttons_from_the_board_before(services: Services) -> None:
    """Each move's board, once out while its set stands there, is the channel's board with
    buttons and hands back the one before (to lose its buttons), once."""
    await start(services)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    assert await services.boards.board_posted(first, 111, shows=first) == (True, None)
    second = (await services.games.play(CHANNEL, BOB, "d3-a3")).game
    assert await services.boards.board_posted(second, 222, shows=second) == (True, 111)
    assert await services.boards.board_posted(second, 222, shows=second) == (True, None)
    assert await services.boards.live_board(CHANNEL) == 222


async def test_a_board_posted_after_the_next_move_is_not_the_live_one(
    services: Services, clock: FakeClock
) -> None:
    """A board of move 1 whose post is out only after move 2 landed is delivered, but the
    board of move 2 keeps the buttons: the late one is told it is not live."""
    await start(services)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    second = (await services.games.play(CHANNEL, BOB, "d3-a3")).game
    assert await services.boards.board_posted(second, 222, shows=second) == (True, None)
    assert await services.boards.board_posted(first, 111, shows=first) == (False, None)
    assert await services.boards.live_board(CHANNEL) == 222
    clock.advance(timedelta(minutes=1))  # past the normal path's grace: neither is owed
    assert await services.announcements.due() == []


async def test_a_move_board_out_after_a_resignation_leaves_the_set_end_owed(
    services: Services, clock: FakeClock
) -> None:
    """alice's board of move 1 is out only after bob resigned at that move: the resignation's
    final board is still owed (its own post may fail), not taken for delivered by hers."""
    await start(services, sets=1)
    first = (await services.games.play(CHANNEL, ALICE, "d1-c1")).game
    await services.games.resign(CHANNEL, BOB)
    assert await services.boards.board_posted(first, 111, shows=first) == (False, None)
    clock.advance(timedelta(minutes=1))  # past the normal path's grace
    assert [(r.set_id, r.ply) for r in await services.announcements.due()] == [(first.set_id, 1)]


async def test_third_repetition_needs_confirmation(services: Services) -> None:
    """A move repeating a position a third time is refused until confirmed, then it loses."""
    await start(services)
    shuffle = ("d1-c1", "d3-c3", "c1-d1", "c3-d3") * 2
    await play_out(services, CHANNEL, shuffle[:-1])
    with pytest.raises(RepetitionNeedsConfirmation):
        await services.games.play(CHANNEL, BOB, "c3-d3")
    result = await services.games.play(CHANNEL, BOB, "c3-d3", confirm_repetition=True)
    assert result.set_end is not None
    assert result.set_end.outcome.reason is Reason.REPETITION
    assert result.set_end.winner_id == ALICE


async def test_restart_recovers_games_in_different_sets(database: str, clock: FakeClock) -> None:
    """After a restart every game comes back in the right set, position and player to move."""
    services = await Services.open(database, clock=clock)
    await start(services, CHANNEL)
    await play_out(services, CHANNEL, ("d1-c1", "d3-a3", "c1-c3"))
    await start(services, OTHER_CHANNEL)
    await services.games.resign(OTHER_CHANNEL, BOB)  # into set 2
    await play_out(services, OTHER_CHANNEL, ("d1-c1",))
    third = 2002
    await services.matches.start_computer_match(GUILD, third, CAROL, COMPUTER, level=2)
    await services.close()

    restarted = await Services.open(database, clock=clock)
    try:
        recovered = {g.channel_id: g for g in await restarted.games.active()}
        assert set(recovered) == {CHANNEL, OTHER_CHANNEL, third}
        one, two, computer = recovered[CHANNEL], recovered[OTHER_CHANNEL], recovered[third]
        assert (one.set_number, one.ply, one.player_to_move) == (1, 3, BOB)
        assert one.game.position() == Game.from_moves(["d1-c1", "d3-a3", "c1-c3"]).position()
        assert (two.set_number, two.attacker_id, two.ply, two.player_to_move) == (2, BOB, 1, ALICE)
        assert (computer.computer_id, computer.computer_level) == (COMPUTER, 2)
        result = await restarted.games.play(CHANNEL, BOB, "c4-c5")
        assert result.game.ply == 4
    finally:
        await restarted.close()


async def test_computer_games_are_recorded_but_not_rated(services: Services) -> None:
    """A match against the computer plays out with no rating change and no leaderboard row."""
    game = await services.matches.start_computer_match(
        GUILD, CHANNEL, ALICE, COMPUTER, sets_total=1
    )
    assert game.player_to_move == ALICE
    assert not game.computer_to_move
    moves = ATTACKERS_CAPTURE_KING
    result = None
    for ply, move in enumerate(moves):
        if ply % 2 == 0:
            result = await services.games.play(CHANNEL, ALICE, move)
        else:
            result = await services.games.play_computer_move(game.set_id, move, ply)
    assert result is not None
    assert result.set_end is not None
    assert result.set_end.rating_changes == ()
    assert result.set_end.match_end is not None
    assert not result.set_end.match_end.rated
    assert (await services.standings.leaderboard(GUILD)).total == 0
    exported = await services.records.export(set_id=game.set_id, unnamed="a player")
    assert "d1-c1" in exported.record


async def test_computer_move_against_an_old_ply_is_stale(services: Services) -> None:
    """The AI's move computed for a position that has since changed is refused."""
    game = await services.matches.start_computer_match(
        GUILD, CHANNEL, ALICE, COMPUTER, human_side=Side.DEFENDERS
    )
    assert game.computer_to_move
    await services.games.play_computer_move(game.set_id, "d1-c1", 0)
    with pytest.raises(StaleGameError):
        await services.games.play_computer_move(game.set_id, "d2-c2", 0)


async def test_abort_ends_the_match_unrated(services: Services) -> None:
    """An admin abort is recorded with no winner, no next set and no ratings."""
    await start(services)
    await play_out(services, CHANNEL, ("d1-c1",))
    set_end = await services.games.abort(CHANNEL)
    assert set_end.outcome.winner is None
    assert set_end.outcome.reason is Reason.ABORTED
    assert set_end.next_game is None
    assert set_end.rating_changes == ()
    assert isinstance(set_end.match_end, MatchEnd)
    assert set_end.match_end.aborted
    assert await services.games.in_channel(CHANNEL) is None
    assert (await services.standings.leaderboard(GUILD)).total == 0


async def test_stats_and_head_to_head_after_a_match(services: Services) -> None:
    """A player's stats list the sets just played; head-to-head counts sets and the match."""
    await start(services)
    await resign_after(services, CHANNEL, 2, BOB)
    await resign_after(services, CHANNEL, 2, ALICE)
    stats = await services.standings.player_stats(GUILD, ALICE)
    assert stats.standing is not None
    assert stats.standing.games == 2
    assert [g.set_number for g in stats.recent_games] == [2, 1]
    versus = await services.standings.head_to_head(GUILD, ALICE, BOB)
    assert (versus.games, versus.wins, versus.matches) == (2, (1, 1), 1)


async def test_export_names_the_players_and_replays(services: Services) -> None:
    """The OpenTafl record carries the players' names and replays to the same position."""
    await start(services)
    await play_out(services, CHANNEL, ("d1-c1", "d3-a3"))
    exported = await services.records.export(channel_id=CHANNEL, unnamed="a player")
    assert "[attackers:Alice]" in exported.record
    assert "[defenders:Bob]" in exported.record
    assert exported.game.position() == Game.from_moves(["d1-c1", "d3-a3"]).position()


async def test_a_player_never_named_is_a_player_not_an_id(services: Services) -> None:
    """Players stored by a challenge without their names (the bot was never told them) are
    named nowhere by their ids: names leave them out, the leaderboard and /stats have no name
    (shown as "a player"), the export calls them what its reader calls a stranger."""
    challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB, sets_total=1)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await play_out(services, CHANNEL, ("d1-c1", "d3-a3"))
    exported = await services.records.export(channel_id=CHANNEL, unnamed="ein Spieler")
    assert "[attackers:ein Spieler]" in exported.record
    assert "[defenders:ein Spieler]" in exported.record
    await resign_after(services, CHANNEL, 0, BOB)
    assert await services.players.names(GUILD, [ALICE, BOB]) == {}
    assert await services.players.names(None, [ALICE, BOB]) == {}
    board = await services.standings.leaderboard(GUILD)
    assert [row.display_name for row in board.rows] == [None, None]
    assert (await services.standings.player_stats(GUILD, BOB)).display_name is None


async def test_a_challenge_stores_the_names_it_is_given(services: Services) -> None:
    """The names the bot has of the challenger, the opponent and the one who accepts are
    stored with them as the challenge and the match start (no name by id left to show)."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, names={ALICE: "Alice", BOB: "Bob"}
    )
    open_one = await services.challenges.create(GUILD, OTHER_CHANNEL, CAROL, None)
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.challenges.accept(open_one.challenge_id, DAVE, account_name="Dave")
    await services.matches.start_computer_match(GUILD, 3000, ERIN, COMPUTER, account_name="Erin")
    assert await services.players.names(None, [ALICE, BOB, CAROL, DAVE, ERIN]) == {
        ALICE: "Alice",
        BOB: "Bob",
        DAVE: "Dave",
        ERIN: "Erin",
    }


async def test_names_are_the_ones_of_the_server_asked_about(services: Services) -> None:
    """A nickname belongs to its server: the export, the leaderboard and the stats of a server
    name each player as that server does (else by the account's name), never as another does."""
    await start(services, sets=1)
    await services.players.remember(ALICE, "Alice", guild_id=GUILD, member_name="Alice here")
    await services.players.remember(ALICE, "Alice", guild_id=GUILD + 1, member_name="Ali there")
    await services.players.remember(BOB, "Bob", guild_id=GUILD + 1, member_name="Bobby there")
    await play_out(services, CHANNEL, ("d1-c1", "d3-a3"))
    exported = await services.records.export(channel_id=CHANNEL, unnamed="a player")
    assert "[attackers:Alice here]" in exported.record
    assert "[defenders:Bob]" in exported.record
    await resign_after(services, CHANNEL, 0, BOB)
    board = await services.standings.leaderboard(GUILD)
    assert [row.display_name for row in board.rows] == ["Alice here", "Bob"]
    assert (await services.standings.player_stats(GUILD, BOB)).display_name == "Bob"
    assert (await services.standings.player_stats(GUILD + 1, BOB)).display_name == "Bobby there"
    assert await services.players.names(GUILD + 1, [ALICE, BOB, CAROL]) == {
        ALICE: "Ali there",
        BOB: "Bobby there",
    }
    assert await services.players.names(None, [ALICE, BOB]) == {ALICE: "Alice", BOB: "Bob"}


async def _on_page_two_of(services: Services, games: int) -> GamesPage:
    """``games`` games against the computer, one a channel from CHANNEL on; /games' page 2."""
    for player, channel in enumerate(range(CHANNEL, CHANNEL + games), start=ALICE):
        await services.matches.start_computer_match(GUILD, channel, player, COMPUTER)
    return await services.records.in_progress(GUILD, offset=10, limit=10)


async def _end_the_first_three(services: Services) -> None:
    """The games in the first three channels are aborted."""
    for channel in range(CHANNEL, CHANNEL + 3):
        await services.games.abort(channel)


async def test_a_page_past_the_end_of_the_games_is_the_last_page(services: Services) -> None:
    """Turned to games 11–12, then three games end: the page asked for is past the end, so the
    last page comes back (games 1–9), never an empty list that says no game is on."""
    page = await _on_page_two_of(services, 12)
    assert (page.offset, page.total, len(page.games)) == (10, 12, 2)
    await _end_the_first_three(services)
    page = await services.records.in_progress(GUILD, offset=10, limit=10)
    assert (page.offset, page.total, len(page.games)) == (0, 9, 9)


async def test_previous_near_the_top_of_the_games_shows_the_whole_first_page(
    services: Services,
) -> None:
    """Turned to games 11–14, then three of the first ten end: Previous from game 11, with
    seven left before it, shows the whole first page (ten games, game 11 among them), not the
    seven alone, and Next from there the one after it. Pins what works (the page is read
    from the offset ten before the game, clamped to the top)."""
    second = await _on_page_two_of(services, 14)
    assert (second.offset, second.total, len(second.games)) == (10, 14, 4)
    await _end_the_first_three(services)
    back = await services.records.in_progress(
        GUILD, limit=10, before_match=second.games[0].match_id
    )
    assert (back.offset, back.total) == (0, 11)
    assert [game.channel_id for game in back.games] == list(range(CHANNEL + 3, CHANNEL + 13))
    onward = await services.records.in_progress(
        GUILD, limit=10, after_match=back.games[-1].match_id
    )
    assert [game.channel_id for game in onward.games] == [CHANNEL + 13]


async def test_a_move_after_the_deadline_is_refused_before_the_timer_ends_the_set(
    services: Services, clock: FakeClock
) -> None:
    """With 5 minutes a move, alice's move 6 minutes later (before the timer has checked) is
    refused with the time it ran out and stores nothing; the timer then ends the set on time."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(minutes=5)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    deadline = clock.now + timedelta(minutes=5)
    clock.advance(timedelta(minutes=6))
    with pytest.raises(TimeRanOut) as late:
        await services.games.play(CHANNEL, BOB, "c4-c2")
    assert str(late.value) == (
        f"Too late: your time for this move ran out <t:{int(deadline.timestamp())}:R>, so this "
        "set is lost on time."
    )
    game = await services.games.in_channel(CHANNEL)
    assert game is not None
    assert game.ply == 1
    [ended] = await services.clocks.time_out_due()
    assert ended.outcome.reason is Reason.TIMEOUT
    assert ended.winner_id == ALICE


async def test_a_move_too_late_in_a_one_set_match_says_the_game_is_lost(
    services: Services, clock: FakeClock
) -> None:
    """In a one-set match, a move after the deadline is refused saying the game (not a set
    the match never spoke of) is lost on time."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, sets_total=1, time_per_move=timedelta(minutes=5)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    deadline = clock.now + timedelta(minutes=5)
    clock.advance(timedelta(minutes=5))  # exactly at the deadline
    with pytest.raises(TimeRanOut) as late:
        await services.games.play(CHANNEL, ALICE, "d1-c1")
    assert str(late.value) == (
        f"Too late: your time for this move ran out <t:{int(deadline.timestamp())}:R>, so this "
        "game is lost on time."
    )


async def test_a_final_board_out_after_a_new_match_began_leaves_it_the_buttons(
    services: Services,
) -> None:
    """bob resigns a one-set match; its final board (with Rematch) is out only after a new
    match began in the same channel (threads off) and posted its board: the new board keeps
    the buttons, and the final board is told to take its own off (a Rematch of the old match
    beside the new one, never taken off later: review revflow38)."""
    await start(services, sets=1)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    end = await services.games.resign(CHANNEL, BOB)
    assert end.match_end is not None
    following = await start(services)
    assert await services.boards.set_live_board_at(following, 900) == (True, None)
    assert await services.boards.board_posted(end.game, 800) == (False, None)
    assert await services.boards.live_board(CHANNEL) == 900


async def test_a_board_of_a_ply_the_set_has_left_never_becomes_live(services: Services) -> None:
    """A board drawn of the set as it stands becomes the live one; a board of a ply the set has
    moved past since (a /board drawn while a move landed) does not."""
    active = await start(services)
    assert await services.boards.set_live_board_at(active, 501) == (True, None)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    assert await services.boards.set_live_board_at(active, 502) == (False, None)
    assert await services.boards.live_board(CHANNEL) == 501


async def test_a_restart_gives_the_clocks_back_the_time_the_bot_was_away(
    services: Services, clock: FakeClock
) -> None:
    """The timers last ran a minute after alice's move, the bot came back an hour later: bob's
    five minutes are moved on by that hour, so he can still move and is not lost on time."""
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(minutes=5)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    assert await services.clocks.resume_clocks() == Resumed(timedelta(0), [], [])  # first start
    moved = await services.games.play(CHANNEL, ALICE, "d1-c1")
    clock.advance(timedelta(minutes=1))
    await services.clocks.timers_ran()
    clock.advance(timedelta(hours=1))
    resumed = await services.clocks.resume_clocks()
    assert resumed.away == timedelta(hours=1)
    assert resumed.clocks == [
        (moved.game.set_id, CHANNEL, moved.game.deadline + timedelta(hours=1))
    ]
    assert await services.clocks.time_out_due() == []
    clock.advance(timedelta(minutes=3))
    assert (await services.games.play(CHANNEL, BOB, "c4-c2")).game.ply == 2


async def test_a_restart_moves_the_half_time_reminder_on_with_the_clock(
    services: Services, clock: FakeClock
) -> None:
    """Ten minutes per move; the bot was away an hour after alice's move: bob is reminded at
    half his time counted from the give-back, not at once (a give-back that moved his
    deadline alone, as the one UPDATE over arrays on PostgreSQL could, would remind him
    as soon as the bot is back)."""
    await services.players.remember(ALICE, "Alice")
    await services.players.remember(BOB, "Bob")
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(minutes=10)
    )
    await services.challenges.accept(challenge.challenge_id, BOB)
    await services.clocks.resume_clocks()  # first start
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    await services.clocks.timers_ran()
    clock.advance(timedelta(hours=1))
    await services.clocks.resume_clocks()
    clock.advance(timedelta(minutes=4))
    assert await services.clocks.reminders_due() == []
    clock.advance(timedelta(minutes=2))
    assert [(g.player_to_move, g.ply) for g in await services.clocks.reminders_due()] == [(BOB, 1)]


async def test_a_stale_note_never_gives_a_clock_more_than_it_has_run(
    services: Services, clock: FakeClock
) -> None:
    """The timers' last note is a week old (an earlier layout of the shards, say) and a set
    started a minute before the bot stopped, ten minutes ago: its clock gets back what it had
    run, eleven minutes — a full five again — not the week."""
    await services.clocks.timers_ran()
    clock.advance(timedelta(days=7))
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(minutes=5)
    )
    started = await services.challenges.accept(challenge.challenge_id, BOB)
    clock.advance(timedelta(minutes=11))
    resumed = await services.clocks.resume_clocks()
    assert resumed.clocks == [(started.set_id, CHANNEL, clock.now + timedelta(minutes=5))]


async def test_the_last_reminder_is_due_once_per_move_and_again_after_a_takeback(
    services: Services, clock: FakeClock
) -> None:
    """An hour per move: the last reminder is due from 6 minutes before the deadline, once;
    a takeback's fresh clock for the same move gets one again, and the next move its own."""
    await services.players.remember(ALICE, "Alice")
    await services.players.remember(BOB, "Bob")
    challenge = await services.challenges.create(
        GUILD, CHANNEL, ALICE, BOB, time_per_move=timedelta(hours=1)
    )
    first = await services.challenges.accept(challenge.challenge_id, BOB)
    clock.advance(timedelta(minutes=53))
    assert await services.clocks.last_reminders_due() == []
    clock.advance(timedelta(minutes=2))
    assert [g.set_id for g in await services.clocks.last_reminders_due()] == [first.set_id]
    assert await services.clocks.last_reminders_due() == []
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    asked = await services.takebacks.ask(CHANNEL, ALICE)  # alice takes her move back
    assert not isinstance(asked, ActiveGame)
    await services.takebacks.answer(asked.takeback_id, BOB, accept=True)
    clock.advance(timedelta(minutes=55))
    (again,) = await services.clocks.last_reminders_due()
    assert (again.player_to_move, again.ply) == (ALICE, 0)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    clock.advance(timedelta(minutes=55))
    (bobs,) = await services.clocks.last_reminders_due()
    assert bobs.player_to_move == BOB


async def test_a_player_who_left_forfeits_their_set_whoever_is_to_move(
    services: Services,
) -> None:
    """Bob left: he loses set 1 as on time (unrated: he never moved in it), and set 2, where
    Alice defends and Bob would move first, ends the match without a move — Alice wins 2–0."""
    first = await start(services)
    await services.games.play(CHANNEL, ALICE, "d1-c1")
    one = await services.games.forfeit(first.set_id, BOB)
    assert (one.outcome.reason, one.winner_id, one.left_server) == (Reason.TIMEOUT, ALICE, True)
    assert one.loser_never_moved
    assert one.rating_changes == ()
    assert one.next_game is not None
    two = await services.games.forfeit(one.next_game.set_id, BOB)
    assert (two.winner_id, two.moves) == (ALICE, 0)
    assert two.match_end is not None
    assert (two.match_end.winner_id, two.match_end.reason) == (ALICE, MatchReason.MORE_WINS)
    assert await services.games.in_channel(CHANNEL) is None
    with pytest.raises(NoGameHere):
        await services.games.forfeit(one.next_game.set_id, BOB)
    stats = await services.standings.player_stats(GUILD, ALICE)
    assert [(game.left_server, game.outcome) for game in stats.recent_games] == [
        (True, two.outcome),
        (True, one.outcome),
    ]


async def test_a_set_end_read_back_is_the_one_told_when_it_ended(services: Services) -> None:
    """``games.ended`` rebuilds a finished set's end from the store as it was told (for a
    post made late): winner and why, rating changes, the next set, the match's result."""
    await start(services)
    set_one = await play_out(services, CHANNEL, ATTACKERS_CAPTURE_KING)
    assert set_one is not None
    assert set_one.next_game is not None
    set_two = await services.games.resign(CHANNEL, ALICE)
    for told in (set_one, set_two):
        stored = await services.games.ended(told.game.set_id)
        assert (stored.outcome, stored.winner_id, stored.loser_id, stored.moves) == (
            told.outcome,
            told.winner_id,
            told.loser_id,
            told.moves,
        )
        assert stored.match_end == told.match_end
        assert [(c.user_id, round(c.delta, 6)) for c in stored.rating_changes] == [
            (c.user_id, round(c.delta, 6)) for c in told.rating_changes
        ]
    stored_one = await services.games.ended(set_one.game.set_id)
    assert stored_one.next_game is not None
    assert stored_one.next_game.set_id == set_one.next_game.set_id
    with pytest.raises(NoGameHere):
        await services.games.ended(set_one.game.set_id + 99)


async def test_a_set_end_read_back_has_its_walkover(services: Services) -> None:
    """Bob left: set 1 is forfeited by him, then set 2 before it began (as departures does);
    set 1's end read back carries set 2's walkover and Alice's match win, both lost by a
    player who left."""
    first = await start(services)
    await services.games.play(CHANNEL, ALICE, "d1-b1")
    set_one = await services.games.forfeit(first.set_id, BOB)
    assert set_one.next_game is not None
    await services.games.forfeit(set_one.next_game.set_id, BOB, walkover=True)
    stored = await services.games.ended(first.set_id)
    assert stored.left_server
    assert stored.next_game is None
    assert stored.walkover is not None
    assert stored.walkover.left_server
    assert (stored.walkover.game.set_id, stored.walkover.moves) == (set_one.next_game.set_id, 0)
    assert stored.match_end is not None
    assert stored.match_end.winner_id == ALICE
    assert stored.match_end.reason is MatchReason.MORE_WINS


async def test_a_set_end_read_back_names_the_admin_who_aborted_it(services: Services) -> None:
    """An admin (CAROL here) aborts the match: the set's end told and the one read back from
    the store both name her; an abort by nobody in particular (the bot's own) names nobody."""
    await start(services)
    await services.games.play(CHANNEL, ALICE, "d1-b1")
    told = await services.games.abort(CHANNEL, by=CAROL)
    assert told.aborted_by == CAROL
    assert (await services.games.ended(told.game.set_id)).aborted_by == CAROL
    other = await services.matches.start_computer_match(GUILD, OTHER_CHANNEL, ALICE, COMPUTER)
    untold = await services.games.abort(OTHER_CHANNEL)
    assert untold.aborted_by is None
    assert (await services.games.ended(other.set_id)).aborted_by is None


async def test_a_member_plays_at_most_five_matches_against_the_computer_at_once(
    services: Services,
) -> None:
    """alice's sixth match against the computer in a server is refused, even asked for at the
    same moment as the fifth; in another server, or once one of hers is over, she may play
    another."""
    matches = services.matches
    for channel in range(CHANNEL, CHANNEL + 4):
        await matches.start_computer_match(GUILD, channel, ALICE, COMPUTER)
    started = await asyncio.gather(
        *(
            matches.start_computer_match(GUILD, channel, ALICE, COMPUTER)
            for channel in (CHANNEL + 4, CHANNEL + 5)
        ),
        return_exceptions=True,
    )
    assert sorted(type(each).__name__ for each in started) == [
        "ActiveGame",
        "TooManyComputerMatches",
    ]
    with pytest.raises(TooManyComputerMatches):
        await matches.check_computer_matches(GUILD, ALICE)
    await matches.start_computer_match(GUILD + 1, CHANNEL + 6, ALICE, COMPUTER)
    await services.games.abort(CHANNEL)
    await matches.start_computer_match(GUILD, CHANNEL + 7, ALICE, COMPUTER)
