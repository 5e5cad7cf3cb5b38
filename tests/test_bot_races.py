"""Two presses that cross: what each player is told when the other's lands first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.services.domain import ChallengeStatus
from bot.storage import puzzles, settings
from bot.storage.errors import DatabaseBusy
from bot.views.picker import PickDestination
from tests.bot_harness import (
    Harness,
    challenge_id,
    eventually,
    running_bot,
    timers_checked,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin
from tests.discord_standin.command_options import OptionValue
from tests.discord_standin.model import MANAGE_GUILD

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server (games in the channel)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@pytest.mark.parametrize(
    ("sets", "told"), [(1, "That game is over."), (2, "That set is already over.")]
)
@pytest.mark.parametrize("restarted", [False, True], ids=["warm", "after-restart"])
async def test_a_move_crossing_the_opponents_resignation_is_told_the_set_is_over(
    table: Harness, monkeypatch: pytest.MonkeyPatch, sets: int, told: str, restarted: bool
) -> None:
    """bob resigns while alice's move is on its way: alice is told the game (set) is over,
    not to look at the new board and try again, nor that no game is played here."""
    await table.challenge_accepted(table.alice, table.bob, sets=sets)
    if restarted:  # the bot knows the game only from the database
        await table.restart()
    ask = await table.reply_text(table.bob, "resign")
    assert table.bot is not None
    # alice's move is read as the game stands, and written once bob's resignation is stored.
    entered, go_on = waits_until_told(monkeypatch, table.bot.services.games, "_apply")
    move = await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "d1-b1"}, wait=False
    )
    await entered.wait()
    resigned = await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    assert resigned.answered
    go_on.set()
    answer = await move.wait_original()
    assert answer.ephemeral
    assert answer.content == told
    assert not any("played d1-b1" in m.content for m in table.public_messages())


@pytest.mark.parametrize("second", ["time", "allow"], ids=["another-option", "another-channel"])
async def test_two_admins_changing_settings_at_once_both_keep_their_change(
    table: Harness, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """ada allows #lobby while another admin changes the time per move or allows #side: both
    are told "Settings saved.", and both changes stay (neither writes back what it read
    before the other's change was stored)."""
    other = table.standin.add_member(table.guild, "odile", permissions=MANAGE_GUILD)
    options: dict[str, OptionValue] = (
        {"time": 60} if second == "time" else {"allow": table.guild.channel("side")}
    )
    entered, go_on = waits_until_told(monkeypatch, settings, "save")
    first = await table.standin.slash(
        table.guild,
        table.channel,
        table.admin,
        "settings",
        {"allow": table.guild.channel("lobby")},
        wait=False,
    )
    await entered.wait()  # ada's change is being written
    then = await table.standin.slash(
        table.guild, table.channel, other, "settings", options, wait=False
    )
    await table.standin.wait_answered(then, timeout=10)  # deferred: waiting to write
    go_on.set()
    for press in (first, then):
        saved = await press.wait_original()
        assert saved.content.startswith("Settings saved."), saved.content
    assert table.bot is not None
    now = await table.bot.services.settings.get(table.guild.id)
    lobby, side = table.guild.channel("lobby").id, table.guild.channel("side").id
    if second == "time":
        assert now.allowed_channel_ids == {lobby}
        assert now.time_per_move == timedelta(hours=1)
    else:
        assert now.allowed_channel_ids == {lobby, side}


async def test_two_admins_moving_the_daily_puzzle_at_once_both_keep_their_change(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily puzzle is posted in #games at 12:00; ada moves it to 08:00 while another admin
    moves it to #side: both are told so, and it is posted in #side at 08:00."""
    other = table.standin.add_member(table.guild, "odile", permissions=MANAGE_GUILD)
    side = table.guild.channel("side")
    await table.reply_text(table.admin, "puzzle daily", {"channel": table.channel, "hour": 12})
    entered, go_on = waits_until_told(monkeypatch, puzzles, "set_daily")
    first = await table.standin.slash(
        table.guild, table.channel, table.admin, "puzzle daily", {"hour": 8}, wait=False
    )
    await entered.wait()  # ada's hour is being written
    then = await table.standin.slash(
        table.guild, table.channel, other, "puzzle daily", {"channel": side}, wait=False
    )
    await table.standin.wait_answered(then, timeout=10)  # deferred: waiting to write
    go_on.set()
    assert "(08:00 UTC)" in (await first.wait_original()).content
    moved = (await then.wait_original()).content
    assert f"<#{side.id}>" in moved
    assert table.bot is not None
    now = await table.bot.services.puzzles.daily_setting(table.guild.id)
    assert now is not None
    assert (now.channel_id, now.hour) == (side.id, 8)


@pytest.mark.parametrize("threads", [True, False], ids=["thread", "channel"])
@pytest.mark.parametrize("open_to_anyone", [False, True], ids=["to-bob", "open"])
async def test_accept_pressed_twice_at_once_says_the_game_is_on(
    discord_standin: DiscordStandin, tmp_path: Path, threads: bool, open_to_anyone: bool
) -> None:
    """bob double-clicks Accept: one game starts, and the other press tells him he accepted it
    and where the game is, not that the challenge is no longer open (as if someone else had
    taken it)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=threads) as table:
        options: dict[str, OptionValue] = {"sets": 1}
        if not open_to_anyone:
            options["opponent"] = table.bob
        line = await table.reply_text(table.alice, "challenge", options)
        accept = f"challenge:accept:{challenge_id(line)}"
        presses = await asyncio.gather(
            *(table.standin.click(line, accept, table.bob, wait=False) for _ in "ab")
        )
        for press in presses:
            await table.standin.wait_answered(press, timeout=10)
        answers = [await press.wait_original() for press in presses]
        [refused] = [answer for answer in answers if answer.ephemeral]
        place = line.thread.id if threads and line.thread is not None else table.channel.id
        assert refused.content == (
            f"You accepted this challenge already: the game is on in <#{place}>."
        )
        assert len(table.standin.world.threads_of(table.channel)) == (1 if threads else 0)


@pytest.mark.parametrize("open_to_anyone", [False, True], ids=["to-bob", "open"])
async def test_an_accept_while_the_first_fails_to_save_starts_the_game_itself(
    discord_standin: DiscordStandin,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    open_to_anyone: bool,
) -> None:
    """bob presses Accept, and presses again (or carol does, on a challenge open to anyone)
    while the first press's match cannot be saved (a busy database): the first is told to try
    again, and the second starts the game in the thread the first made, not told "You
    accepted this challenge already" (or "no longer open") of a game that never started."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        assert table.bot is not None
        options: dict[str, OptionValue] = {"sets": 1}
        if not open_to_anyone:
            options["opponent"] = table.bob
        line = await table.reply_text(table.alice, "challenge", options)
        accept = f"challenge:accept:{challenge_id(line)}"
        service = table.bot.services.challenges
        real = service.accept
        entered, go_on = asyncio.Event(), asyncio.Event()

        async def first_fails(*args: Any, **kwargs: Any) -> Any:
            if not entered.is_set():
                entered.set()
                await go_on.wait()
                raise DatabaseBusy("the write lock could not be had in time")
            return await real(*args, **kwargs)

        monkeypatch.setattr(service, "accept", first_fails)
        first = await table.standin.click(line, accept, table.bob, wait=False)
        await entered.wait()  # bob's first press is saving its match
        second_player = table.carol if open_to_anyone else table.bob
        second = await table.standin.click(line, accept, second_player, wait=False)
        for press in (first, second):
            await table.standin.wait_answered(press, timeout=10)
        go_on.set()
        failed = await first.wait_followup()  # deferred while it waited to save
        assert failed.ephemeral
        assert failed.content == "The game could not be saved just now; try again."
        [thread] = table.standin.world.threads_of(table.channel)
        await table.wait_board(channel=thread)
        assert line.thread is thread
        active = await table.bot.services.games.in_channel(thread.id)
        assert active is not None
        assert {active.attacker_id, active.defender_id} == {table.alice.id, second_player.id}
        assert [m.content for m in second.followups if m.ephemeral] == []


@pytest.mark.parametrize(
    ("action", "told"),
    [
        ("decline", "You declined this challenge already."),
        ("withdraw", "You withdrew this challenge already."),
    ],
)
async def test_decline_or_withdraw_pressed_twice_at_once_says_it_is_done(
    table: Harness, action: str, told: str
) -> None:
    """bob double-clicks Decline (alice Withdraw): the challenge is closed once, and the other
    press says so, not that it is no longer open."""
    line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "sets": 1})
    who = table.bob if action == "decline" else table.alice
    button = f"challenge:{action}:{challenge_id(line)}"
    presses = await asyncio.gather(
        *(table.standin.click(line, button, who, wait=False) for _ in "ab")
    )
    for press in presses:
        await table.standin.wait_answered(press, timeout=10)
    answers = [await press.wait_original() for press in presses]
    [refused] = [answer for answer in answers if answer.ephemeral]
    assert refused.content == told
    replies = [m for m in table.public_messages() if "declined your challenge" in m.content]
    assert len(replies) == (1 if action == "decline" else 0)


async def test_a_double_click_on_a_pickers_square_says_the_move_was_played(
    table: Harness,
) -> None:
    """alice double-clicks b1 in the Move picker: d1-b1 is played once, and the other press
    tells her so, not that the game changed and to try again (it is bob's turn)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    presses = await asyncio.gather(
        *(table.standin.select(step_two, where, table.alice, ["d1-b1"], wait=False) for _ in "ab")
    )
    for press in presses:
        await table.standin.wait_answered(press, timeout=10)
    answers = {(await press.wait_original()).content for press in presses}
    assert "You played d1-b1 already." in answers
    await table.wait_board(lambda m: "played d1-b1" in m.content)
    await timers_checked(table)  # nor does the outbox post it again
    boards = [m for m in table.public_messages() if "played d1-b1" in m.content]
    assert len(boards) == 1


async def test_a_second_press_of_a_pickers_square_after_the_move_landed_says_it_was_played(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice double-clicks b1 in the Move picker and her second press is handled only once
    d1-b1 has landed (the common double click: the first press is quick): she is told she
    played it, not that the board changed and to press Move again (it is bob's turn)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    landed = asyncio.Event()
    real = PickDestination._unchanged_game
    checks: list[object] = []

    async def second_waits(self: PickDestination, interaction: Any) -> Any:
        checks.append(interaction)
        if len(checks) > 1:
            await landed.wait()  # the second press is handled once the first's move landed
        return await real(self, interaction)

    monkeypatch.setattr(PickDestination, "_unchanged_game", second_waits)
    presses = await asyncio.gather(
        *(table.standin.select(step_two, where, table.alice, ["d1-b1"], wait=False) for _ in "ab")
    )
    await table.wait_board(lambda m: "played d1-b1" in m.content)
    landed.set()
    for press in presses:
        await table.standin.wait_answered(press, timeout=10)
    answers = sorted([(await press.wait_original()).content for press in presses])
    assert answers == ["You played d1-b1 already.", "You played d1-b1."]


async def test_a_picker_whose_answer_came_too_late_is_retired_at_its_next_press(
    table: Harness,
) -> None:
    """alice's b1 in the Move picker is played but its answer reaches Discord too late
    (Unknown interaction), the picker left as it was: choosing c1 there then turns it into
    "You played d1-b1 already.", its select gone (before, she read it was bob's turn)."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    step_two = await table.picked(board, table.alice)
    [where] = step_two.custom_ids()
    late = table.standin.fail_rest(
        404, seconds=60, code=10062, matching=lambda _m, p: p.endswith("/callback")
    )
    await table.standin.select(step_two, where, table.alice, ["d1-b1"], wait=False)
    assert table.bot is not None
    games = table.bot.services.games

    async def ply() -> int | None:
        game = await games.in_channel(table.channel.id)
        return None if game is None else game.ply

    await eventually(ply, 1)
    await table.standin.wait_until(lambda: late.hits >= 1, timeout=10)
    table.standin.end_faults()
    assert step_two.custom_ids() == [where]  # still live: Discord took no answer
    pressed = await table.standin.select(step_two, where, table.alice, ["d1-c1"])
    assert pressed.answered
    assert step_two.content == "You played d1-b1 already."
    assert step_two.custom_ids() == []
    assert await ply() == 1


async def test_a_challenge_sent_twice_at_once_keeps_the_first_open(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's /challenge to bob goes twice (a double submit): the second, which finds the
    first stored but not yet posted, is refused with the first, and does not take it for one
    a restart cut off (closing it: its post would show a challenge no longer open)."""
    assert table.bot is not None
    service = table.bot.services.challenges
    real = service.create
    stored, go_on = asyncio.Event(), asyncio.Event()

    async def slowed(*args: Any, **kwargs: Any) -> Any:
        made = await real(*args, **kwargs)
        if not stored.is_set():  # the first: stored, then slow to get on (its task waits)
            stored.set()
            await go_on.wait()
        return made

    monkeypatch.setattr(service, "create", slowed)
    options: dict[str, OptionValue] = {"opponent": table.bob}
    first = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", options, wait=False
    )
    await stored.wait()
    second = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", options, wait=False
    )
    refused = await second.wait_original()
    go_on.set()
    posted = await first.wait_original()
    assert refused.ephemeral
    assert refused.content.startswith(f"Your challenge to <@{table.bob.id}> is still open")
    assert not posted.ephemeral
    challenge = await service.get(int(challenge_id(posted)))
    assert challenge.status is ChallengeStatus.OPEN
    assert [m for m in table.public_messages() if m.custom_ids()] == [posted]
