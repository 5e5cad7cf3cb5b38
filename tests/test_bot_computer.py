"""Playing the computer: challenge the bot's own user and a match starts at once."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot import computer_retries
from bot.ai_pool import AIPool
from bot.flow import computer_turns as turns
from bot.services.domain import ActiveGame, GuildSettings, MoveResult
from bot.storage.errors import StorageError
from engine import Game
from tests.bot_harness import Harness, running_bot, until
from tests.discord_standin import DiscordStandin, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

MAX_HUMAN_MOVES = 150


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running with a very short thinking time."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", ai_seconds=0.02) as harness:
        yield harness


def awaits_alice(table: Harness, message: StoredMessage) -> bool:
    """Whether ``message`` is a board asking alice to move, or a match result."""
    return f"<@{table.alice.id}>, your move" in message.content or "Match" in message.content


async def human_move(table: Harness, rng: random.Random) -> None:
    """alice plays a random legal move offered by autocomplete (avoiding losing repetitions)."""
    choices = await table.standin.autocomplete(
        table.guild, table.channel, table.alice, "move", focused="move", value=""
    )
    assert choices, "autocomplete offered alice no move: " + "\n---\n".join(
        m.content for m in table.public_messages()[-3:]
    )
    options = [c["value"] for c in choices]
    rng.shuffle(options)
    for text in options:
        reply = await table.move(table.alice, text)
        if not reply.ephemeral:
            return
        assert "third time" in reply.content, reply.content
    raise AssertionError("every offered move repeated a position")


async def test_full_match_against_the_computer(table: Harness) -> None:
    """Two sets against level 1 end with a match result and no rating change."""
    rng = random.Random(5)
    start = await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 1})
    first = await start.wait_original()
    assert not first.ephemeral
    assert "against the computer" in first.content
    seen = 0
    for _ in range(MAX_HUMAN_MOVES):
        message = await table.wait_board(
            lambda m, after=seen: m.id > after and awaits_alice(table, m), timeout=20
        )
        seen = message.id
        if "Match" in message.content:
            break
        await human_move(table, rng)
    else:
        raise AssertionError("the match did not end")
    assert "Ratings:" not in message.content
    sets = [m for m in table.public_messages() if "is over" in m.content]
    assert len(sets) == 2


async def test_a_game_against_the_computer_with_threads_off_says_why_in_the_channel(
    table: Harness,
) -> None:
    """With /settings threads:off (this table's), the first board, the answer to /challenge,
    says why the game is played in the channel, as a member's accepted challenge does."""
    board = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    assert not board.ephemeral, board.content
    assert board.content.split("\n")[:2] == [
        f"<@{table.alice.id}> plays **Brandubh (World Tafl Federation)** against the computer "
        "(level 1).",
        "Threads are off on this server, so the game is played in this channel.",
    ], board.content
    assert board.channel is table.channel


async def resign(table: Harness) -> StoredMessage:
    """alice resigns the set she is playing against the computer; returns its final board."""
    asked = await table.reply_text(table.alice, "resign")
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    started = asked.created_at
    await table.standin.click(asked, confirm, table.alice)
    return await table.wait_board(lambda m: "is over" in m.content and m.created_at >= started)


async def test_the_ends_of_sets_and_match_name_the_computer_with_its_level(
    table: Harness,
) -> None:
    """alice resigns both sets to the computer: the set's, the next set's and the match's
    lines name it "Brandubh (level 2)", as every other line does, not as a mention of me,
    which shows neither the level nor that it is the computer."""
    me = f"**{table.me.user.name} (level 2)**"
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 2})
    await table.wait_board(lambda m: awaits_alice(table, m), timeout=20)
    first = await resign(table)
    assert f"{me} wins the set." in first.content.splitlines()
    assert (
        f"Set 2 starts with sides swapped: {me} attacks, <@{table.alice.id}> defends."
        in first.content.splitlines()
    )
    await table.wait_board(lambda m: "Set 2 of 2 · move 2" in m.content, timeout=20)
    last = await resign(table)
    assert f"**Match over:** {me} wins the match 2–0." in last.content
    assert f"<@{table.me.id}>" not in first.content + last.content


async def test_a_walkover_against_the_computer_names_it_with_its_level(table: Harness) -> None:
    """alice leaves the server in set 1 against the computer: the set's end names the winner of
    set 2, not played, "Brandubh (level 2)" as its other lines do, not as a mention of me."""
    me = f"**{table.me.user.name} (level 2)**"
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 2})
    await table.wait_board(lambda m: awaits_alice(table, m), timeout=20)
    await table.standin.remove_member(table.alice)
    table.advance(timedelta(hours=13))  # past half her time: the reminder's check finds her gone
    over = await table.wait_board(lambda m: "left the server" in m.content)
    assert over.content.splitlines()[1:] == [
        f"{me} wins the set.",
        f"Set 2 is not played: {me} wins it without a move.",
        f"**Match over:** {me} wins the match 2–0.",
    ]


async def test_computer_opens_when_the_human_defends(table: Harness) -> None:
    """Choosing the defenders, alice sees the computer's first move and is asked to reply."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    board = await table.wait_board(lambda m: awaits_alice(table, m), timeout=20)
    assert "(attackers) played" in board.content
    assert "your move as the defenders" in board.content


class StallingPool(AIPool):
    """A computer opponent whose first ``failures`` searches crash, then plays a legal move."""

    def __init__(self, failures: int) -> None:
        super().__init__(workers=1)
        self.failures = failures

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("search crashed")
        return str(game.legal_moves()[0])


async def test_a_computer_turn_that_failed_is_tried_again_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """After the computer gives up on a move, it tries again a little later and plays it."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    table.bot.ai = StallingPool(failures=turns.COMPUTER_ATTEMPTS)
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)
    table.advance(timedelta(minutes=5))
    board = await table.wait_board(lambda m: "(attackers) played" in m.content)
    assert "your move as the defenders" in board.content


@pytest.mark.parametrize("failing", ["discord", "database"])
async def test_a_keep_trying_line_that_could_not_be_sent_is_sent_at_the_next_failure(
    table: Harness, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    """The computer gives up on its move and its "I will keep trying" line cannot be sent
    (Discord refuses it, or the database fails the server's language before it): when the
    computer gives up again a minute later, the channel is told then (it was noted as told,
    and never was)."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    table.bot.ai = StallingPool(failures=2 * turns.COMPUTER_ATTEMPTS)
    failed: list[str] = []
    if failing == "discord":
        path = f"/channels/{table.channel.id}/messages"

        def the_first_post(method: str, p: str) -> bool:
            if method == "POST" and p.endswith(path) and not failed:
                failed.append(p)
                return True
            return False

        table.standin.fail_rest(403, seconds=60, matching=the_first_post, code=50013)
    else:
        settings = table.bot.services.settings
        read = settings.get

        async def fails_the_turns_first_read(guild_id: int) -> GuildSettings:
            task = asyncio.current_task()
            if not failed and task is not None and task.get_name().startswith("computer-move-"):
                failed.append(task.get_name())
                raise StorageError("database is locked")
            return await read(guild_id)

        monkeypatch.setattr(settings, "get", fails_the_turns_first_read)
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await until(lambda: bool(failed))
    await table.checks_run()
    assert not any("could not find" in m.content for m in table.public_messages())
    table.advance(computer_retries.STALLED_RETRY * 2 + timedelta(seconds=1))
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)


async def test_a_retry_of_the_computers_turn_that_dies_is_tried_again_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer gave up on its move; its retry a minute later dies at once (the database
    fails its first read): it is tried again after the next wait and plays (it was never tried
    again, the turn taken for one still under way, until a restart or a loss on time)."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    table.bot.ai = StallingPool(failures=turns.COMPUTER_ATTEMPTS)
    games = table.bot.services.games
    read = games.get
    died: list[int] = []

    async def fails_the_retrys_first_read(set_id: int) -> ActiveGame:
        task = asyncio.current_task()
        if not died and task is not None and task.get_name().startswith("computer-move-"):
            died.append(set_id)
            raise StorageError("database is locked")
        return await read(set_id)

    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)
    monkeypatch.setattr(games, "get", fails_the_retrys_first_read)
    table.advance(computer_retries.STALLED_RETRY + timedelta(seconds=1))
    await until(lambda: bool(died))
    table.advance(2 * computer_retries.STALLED_RETRY + timedelta(seconds=1))
    board = await table.wait_board(lambda m: "(attackers) played" in m.content)
    assert "your move as the defenders" in board.content


class HeldRetryPool(StallingPool):
    """A computer opponent whose first ``failures`` searches crash; the next waits until the
    test lets it, then plays a legal move."""

    def __init__(self, failures: int) -> None:
        super().__init__(failures)
        self.asked = 0
        self.go = asyncio.Event()

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        self.asked += 1
        if self.failures == 0:
            await self.go.wait()
        return await super().choose_move(game, level, seed=seed)


async def test_a_retry_that_plays_while_the_timers_read_its_game_leaves_the_check_whole(
    table: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The computer's retry plays its move while the timers' next check reads that game: the
    check goes on (it failed on the failure the move had just forgotten, KeyError, and the
    other failed turns waited for the next check)."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    pool = HeldRetryPool(failures=turns.COMPUTER_ATTEMPTS)
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)
    table.advance(computer_retries.STALLED_RETRY + timedelta(seconds=1))
    await until(lambda: pool.asked > turns.COMPUTER_ATTEMPTS)  # the retry thinks
    games, bot_timers = table.bot.services.games, table.bot.timers
    read = games.get
    raced: list[int] = []

    async def read_as_the_retry_plays(set_id: int) -> ActiveGame:
        if not raced and asyncio.current_task() is bot_timers._task:
            raced.append(set_id)
            pool.go.set()
            await table.wait_board(lambda m: "(attackers) played" in m.content)
        return await read(set_id)

    monkeypatch.setattr(games, "get", read_as_the_retry_plays)
    await until(lambda: bool(raced))
    await table.checks_run()
    assert not [r for r in caplog.records if "retrying the computer's turns" in r.getMessage()]


async def test_a_computer_turn_that_dies_on_an_error_is_tried_again_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's first try at its reply dies on an error (the database fails to store
    its move): it is tried again a minute later, silently, and its board replaces alice's
    line (it was never tried again until a restart: the computer lost on time)."""
    assert table.bot is not None
    games = table.bot.services.games
    store = games.play_computer_move
    died: list[int] = []

    async def fails_once(set_id: int, move: str, expected_ply: int) -> MoveResult:
        if not died:
            died.append(set_id)
            raise StorageError("database is locked")
        return await store(set_id, move, expected_ply=expected_ply)

    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    monkeypatch.setattr(games, "play_computer_move", fails_once)
    line = await table.move(table.alice, "d1-b1")
    await until(lambda: bool(died))
    await table.checks_run()
    assert line.content.endswith("I am thinking…")
    table.advance(computer_retries.STALLED_RETRY + timedelta(seconds=1))
    await table.standin.wait_until(
        lambda: "your move as the attackers" in line.content, waiting_for="the retry's board"
    )
    assert "(defenders) played" in line.content
    assert not any("could not find" in m.content for m in table.public_messages())


async def test_a_set_lost_on_time_while_the_computer_is_stalled_takes_the_thinking_line_off(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer gave up on its reply to alice's move (it will try again later) and loses
    the set on time before it does: alice's line no longer says "I am thinking…" (it said so
    until the computer's next try, up to an hour later; no reply was coming)."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    monkeypatch.setattr(computer_retries, "STALLED_RETRY", timedelta(hours=1))
    await table.slash(table.alice, "challenge", {"opponent": table.me, "time": 5})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    table.bot.ai = StallingPool(failures=100)
    line = await table.move(table.alice, "d1-b1")
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)
    table.advance(timedelta(minutes=6))
    await table.wait_board(lambda m: "the defenders ran out of time" in m.content)
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"), timeout=5)
    assert line.content == "**alice** (attackers) played d1-b1."


class HeldPool(AIPool):
    """A computer opponent that notes each position it is asked about and answers once the
    test lets it."""

    def __init__(self) -> None:
        super().__init__(workers=1)
        self.asked: list[int] = []
        self.go = asyncio.Event()

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        self.asked.append(game.ply)
        await self.go.wait()
        return str(game.legal_moves()[0])


async def test_a_turn_under_way_is_not_started_twice(table: Harness) -> None:
    """The start-up resume of the computer's turns, racing the turn of a match that began as
    the bot came up, does not ask for the same move again: one search, one board."""
    assert table.bot is not None
    pool = HeldPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me, "side": "defenders"})
    await table.standin.wait_until(lambda: pool.asked == [0], waiting_for="the computer's turn")
    await table.bot.timers.resume_computer_turns()
    pool.go.set()
    await table.wait_board(lambda m: awaits_alice(table, m), timeout=20)
    assert pool.asked == [0]
    assert sum("(attackers) played" in m.content for m in table.public_messages()) == 1


async def computer_thinking(table: Harness) -> tuple[HeldPool, StoredMessage]:
    """alice plays d1-b1 against the computer, which holds its reply until the test lets it:
    the held pool and alice's line ("… I am thinking…")."""
    assert table.bot is not None
    pool = HeldPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…")
    await table.standin.wait_until(lambda: pool.asked == [1], waiting_for="the computer's turn")
    return pool, line


class HeldFailingPool(HeldPool):
    """A computer opponent whose searches crash, the first once the test lets it."""

    async def choose_move(self, game: Game, level: int, *, seed: int | None = None) -> str:
        self.asked.append(game.ply)
        await self.go.wait()
        raise RuntimeError("search crashed")


async def test_a_search_that_fails_after_an_abort_does_not_say_it_will_keep_trying(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's search for its reply to alice fails three times, the first ending after
    an admin aborted the game: nothing says "I could not find a move in this game; I will keep
    trying." (it was posted about the aborted game), and alice's line says no longer "I am
    thinking…"."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    pool = HeldFailingPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    line = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: pool.asked == [1], waiting_for="the computer's turn")
    await table.abort(table.admin)
    pool.go.set()
    await table.standin.wait_until(lambda: len(pool.asked) == turns.COMPUTER_ATTEMPTS)
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"), timeout=5)
    assert line.content == "**alice** (attackers) played d1-b1."
    assert not any("could not find" in m.content for m in table.public_messages())


async def test_a_typing_indicator_discord_fails_does_not_hold_up_the_computers_reply(
    table: Harness,
) -> None:
    """Discord answers 500 to "Brandubh is typing…" (discord.py tries it five times, for about
    25 s): the computer's reply to alice comes all the same, as soon as it is found (it waited
    for the indicator to be given up first)."""
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    typing = table.standin.fail_rest(
        500, seconds=60, matching=lambda method, path: path.endswith("/typing")
    )
    line = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: "(defenders) played" in line.content, timeout=8)
    assert typing.hits >= 1


async def test_an_abort_while_the_computer_thinks_takes_the_thinking_line_off(
    table: Harness,
) -> None:
    """An admin aborts while the computer thinks about its reply: the search's move is dropped,
    and the player's line no longer says "I am thinking…"."""
    pool, line = await computer_thinking(table)
    await table.abort(table.admin)
    pool.go.set()
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"))
    assert line.content == "**alice** (attackers) played d1-b1."


async def test_an_abort_before_the_computer_starts_thinking_takes_the_thinking_line_off(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The admin's abort lands between alice's move and the computer's first look at the
    game (its turn is started once her line is out): no search, and her line no longer says
    "I am thinking…" (before, it said so for good)."""
    assert table.bot is not None
    pool = HeldPool()
    table.bot.ai = pool
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    looking, aborted = asyncio.Event(), asyncio.Event()
    look = turns.ComputerTurns._still_to_move

    async def looks_after_the_abort(self: turns.ComputerTurns, active: ActiveGame) -> bool:
        looking.set()
        await aborted.wait()
        return await look(self, active)

    monkeypatch.setattr(turns.ComputerTurns, "_still_to_move", looks_after_the_abort)
    line = await table.move(table.alice, "d1-b1")
    assert line.content.endswith("I am thinking…")
    await asyncio.wait_for(looking.wait(), timeout=15)
    await table.abort(table.admin)
    aborted.set()
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"))
    assert line.content == "**alice** (attackers) played d1-b1."
    assert pool.asked == []


async def test_a_reply_the_outbox_posts_later_takes_the_thinking_line_off(
    table: Harness,
) -> None:
    """Discord cannot take the computer's reply to alice's move (neither the edit of her line
    nor a new post): the outbox posts the board later, and her line no longer says "I am
    thinking…" (it said so for good)."""
    pool, line = await computer_thinking(table)
    path = f"/channels/{table.channel.id}/messages"
    down = table.standin.fail_rest(503, seconds=60, matching=lambda _method, p: path in p)
    pool.go.set()
    await table.standin.wait_until(  # the line's own edit (telling my move) refused too
        lambda: down.hits >= 4, waiting_for="the edit, its read-back, the post, the line's read"
    )
    table.standin.end_faults()  # Discord is back
    table.advance(timedelta(seconds=30))  # the outbox's turn
    board = await table.wait_board(lambda m: "(defenders) played" in m.content)
    assert board.id != line.id
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"))
    assert line.content == "**alice** (attackers) played d1-b1."


async def test_a_reply_posted_apart_when_discord_is_back_takes_the_thinking_line_off(
    table: Harness,
) -> None:
    """Discord refuses the edit of alice's line into the computer's reply and the read-back,
    then takes the reply posted apart: her line no longer says "I am thinking…" (before, it
    said so for good: only the outbox's post took it off)."""
    pool, line = await computer_thinking(table)
    refused: list[str] = []

    def the_edit_and_its_read_back(method: str, path: str) -> bool:
        if path.endswith(f"/messages/{line.id}") and len(refused) < 2:
            refused.append(method)
            return True
        return False

    table.standin.fail_rest(503, seconds=60, matching=the_edit_and_its_read_back)
    pool.go.set()
    board = await table.wait_board(lambda m: "(defenders) played" in m.content)
    assert refused == ["PATCH", "GET"]
    assert board.id != line.id
    await table.standin.wait_until(lambda: not line.content.endswith("I am thinking…"))
    assert line.content == "**alice** (attackers) played d1-b1."


async def test_a_reply_tried_again_later_still_replaces_the_thinking_line(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer gives up on its reply to alice's move, then plays it at the later try: the
    board goes into alice's "… I am thinking…" line, as a reply in time would."""
    assert table.bot is not None
    monkeypatch.setattr(turns, "COMPUTER_RETRY_PAUSE", timedelta(0))
    await table.slash(table.alice, "challenge", {"opponent": table.me})
    await table.wait_board(lambda m: "your move as the attackers" in m.content)
    table.bot.ai = StallingPool(failures=turns.COMPUTER_ATTEMPTS)
    line = await table.move(table.alice, "d1-b1")
    await table.standin.wait_for_message(table.channel, lambda m: "could not find" in m.content)
    assert line.content.endswith("I am thinking…")
    table.advance(timedelta(minutes=5))
    await table.standin.wait_until(lambda: "(defenders) played" in line.content, timeout=10)
    assert line.attachments


async def test_a_reply_refused_and_posted_late_says_i_was_not_allowed(table: Harness) -> None:
    """Discord refuses the computer's reply to alice's move (403: a permission taken away),
    and she moves again before the outbox posts it: posted late, it says I was not allowed to
    post when it was played (before, that Discord could not be reached: only a refusal of the
    outbox's own try was noted)."""
    assert table.bot is not None
    pool, _ = await computer_thinking(table)
    path = f"/channels/{table.channel.id}/messages"
    refused = table.standin.fail_rest(
        403, seconds=60, code=50013, matching=lambda method, p: path in p and method != "GET"
    )
    pool.go.set()
    await table.standin.wait_until(lambda: refused.hits >= 2, waiting_for="edit, post refused")
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.ply == 2
    under_way = table.bot.flow.computer_turns._under_way
    await until(lambda: not under_way)  # the flow gave its reply up: the outbox owes it
    table.standin.end_faults()
    answer = await table.move(table.alice, str(active.game.legal_moves()[0]))
    assert not answer.ephemeral, answer.content
    await table.standin.wait_until(lambda: "(defenders) played" in answer.content, timeout=10)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    late = await table.wait_board(lambda m: "posted late" in m.content)
    assert late.content.endswith(
        "move 3 · posted late: I was not allowed to post here when it was played."
    ), late.content
