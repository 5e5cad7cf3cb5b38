"""/puzzle through the Discord stand-in: solving, failing, streaks and the daily post."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import bot.services.puzzles as puzzle_service
from bot.i18n import language_for
from bot.services.puzzles import by_id
from engine.puzzles import Difficulty, Puzzle
from tests.bot_harness import Harness, eventually, running_bot, until
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.discord_standin.faults import RestFault
from tests.discord_standin.model import ATTACH_FILES, SEND_MESSAGES

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


def shown_puzzle(message: StoredMessage) -> Puzzle:
    """The puzzle a message names."""
    found = re.search(r"\*\*\w+ (p[0-9a-f]{8})\*\*", message.content)
    assert found is not None, message.content
    return by_id()[found[1]]


def select_offering(message: StoredMessage, value: str) -> str:
    """The custom id of the select on ``message`` that offers ``value``."""
    for custom_id in message.custom_ids():
        component = message.component(custom_id)
        assert component is not None
        if any(option["value"] == value for option in component.get("options", [])):
            return custom_id
    raise LookupError(f"no select offers {value}: {message.custom_ids()}")


async def pick(table: Harness, message: StoredMessage, who: FakeMember, move: str) -> StoredMessage:
    """Choose ``move``'s piece, then its destination, with the puzzle's picker."""
    origin = move.split("-")[0]
    chosen = await table.standin.select(message, select_offering(message, origin), who, [origin])
    step_two = await chosen.wait_original()
    played = await table.standin.select(step_two, select_offering(step_two, move), who, [move])
    return await played.wait_original(lambda m: "Where does" not in m.content, timeout=30)


async def solve(table: Harness, message: StoredMessage, who: FakeMember) -> StoredMessage:
    """Play the shown puzzle's solution to its end."""
    puzzle = shown_puzzle(message)
    for move in puzzle.solution[::2]:
        message = await pick(table, message, who, str(move))
    return message


def wrong_first_move(puzzle: Puzzle) -> str:
    """A legal first move that is not the solution's."""
    return next(str(m) for m in puzzle.game().legal_moves() if m != puzzle.solution[0])


async def test_solve_fail_and_streaks(table: Harness) -> None:
    """A solved puzzle counts a streak of 1; a wrong move shows why, and resets the streak."""
    shown = await table.reply_text(table.alice, "puzzle play")
    assert shown.ephemeral
    assert "win in" in shown.content
    first = shown_puzzle(shown)
    [picture] = shown.attachments
    assert f"Your move ({first.to_move.value}), move " in (picture.description or "")
    solved = await solve(table, shown, table.alice)
    assert "Solved!" in solved.content
    [won] = solved.attachments
    assert (won.description or "").split(". ")[1].startswith("You win: "), won.description
    assert "Streak: 1 puzzle." in solved.content
    again = await table.standin.click(solved, "puzzle:next", table.alice)
    second = await again.wait_original(lambda m: "Find the move" in m.content)
    puzzle = shown_puzzle(second)
    assert puzzle != first
    failed = await pick(table, second, table.alice, wrong_first_move(puzzle))
    assert "Not this time" in failed.content
    [picture] = failed.attachments
    assert f"Your opponent's move ({puzzle.to_move.opponent.value})" in (picture.description or "")
    assert f"The solution: {' '.join(str(m) for m in puzzle.solution)}" in failed.content
    stats = await table.reply_text(table.alice, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Solved"] == "1 of 2 (50 %)"
    assert fields["Streak"] == "0 (best 1)"


async def test_puzzle_play_with_an_empty_bank_says_there_are_none_yet(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no puzzle in the bank, /puzzle play says there are none yet and who adds them (not
    that the player has seen them all); with none of the difficulty asked, to try another."""
    easy = next(p for p in puzzle_service.bank() if p.difficulty is Difficulty.EASY)
    by_id()  # read from the whole bank once and kept (functools.cache), not from the patched
    with monkeypatch.context() as patched:
        patched.setattr(puzzle_service, "bank", lambda: ())
        empty = await table.reply_text(table.alice, "puzzle play")
        patched.setattr(puzzle_service, "bank", lambda: (easy,))
        no_hard = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    assert empty.ephemeral
    assert empty.content == (
        "There are no puzzles in the bank yet: whoever runs the bot adds them."
    ), empty.content
    assert no_hard.content == (
        "There are no puzzles of that difficulty in the bank yet: try another."
    ), no_hard.content


async def test_a_puzzle_left_for_another_difficulty_is_given_back_not_skipped(
    table: Harness,
) -> None:
    """A hard puzzle left unfinished for a medium one is the one /puzzle play difficulty:hard
    gives again: asking for another difficulty and back drew a new hard one, so a puzzle a
    player could not solve was skipped, counted neither as tried nor against the streak."""
    hard = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    left = shown_puzzle(hard)
    medium = await table.reply_text(table.alice, "puzzle play", {"difficulty": "medium"})
    assert shown_puzzle(medium) != left
    again = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    assert shown_puzzle(again) == left
    failed = await pick(table, again, table.alice, wrong_first_move(left))
    assert "Not this time" in failed.content
    stats = await table.reply_text(table.alice, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Solved"] == "0 of 1 (0 %)"


async def test_daily_puzzle_once_a_day_across_a_restart(table: Harness) -> None:
    """The daily post comes once at its hour, not again after a restart, and the next day's
    names who solved it; the puzzle leaderboard names the solver, who used only Solve."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})

    def dailies() -> list[StoredMessage]:
        return [m for m in table.public_messages(lobby) if "Daily puzzle" in m.content]

    table.advance(timedelta(hours=1))
    first = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    assert first.custom_ids()[0].startswith("puzzle:solve:")
    await table.restart()
    table.advance(timedelta(minutes=30))
    await table.reply_text(table.alice, "puzzle stats")  # the timers have run meanwhile
    assert len(dailies()) == 1
    opened = await table.standin.click(first, first.custom_ids()[0], table.bob)
    attempt = await opened.wait_original()
    assert attempt.ephemeral
    assert "Solved!" in (await solve(table, attempt, table.bob)).content
    board = await table.reply_text(table.carol, "puzzle leaderboard")
    assert board.embeds[0]["description"] == "`  1.` **bob** — 1 of 1 solved (100 %)"
    table.advance(timedelta(days=1))
    second = await table.standin.wait_for_message(
        lobby, lambda m: "Daily puzzle" in m.content and m.id != first.id
    )
    assert "was solved by **bob**." in second.content
    assert second.pinged_user_ids() == set()
    assert len(dailies()) == 2


async def test_the_daily_post_names_a_solver_who_left_by_their_name(table: Harness) -> None:
    """bob solves the day's puzzle and leaves the server: the next day's post names him as
    "bob", where a mention would show his id's digits to everyone."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    table.advance(timedelta(hours=1))
    first = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    opened = await table.standin.click(first, first.custom_ids()[0], table.bob)
    assert "Solved!" in (await solve(table, await opened.wait_original(), table.bob)).content
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(days=1))
    second = await table.standin.wait_for_message(
        lobby, lambda m: "Daily puzzle" in m.content and m.id != first.id
    )
    solvers = second.content.splitlines()[-1]
    assert solvers.endswith("was solved by **bob**."), solvers
    assert "<@" not in second.content


async def test_a_forged_solve_button_starts_no_puzzle(table: Harness) -> None:
    """A Solve button naming another puzzle than the day's post, or a day without one, is
    refused in one sentence; the post's own button still opens its puzzle. (A forged one
    started any puzzle of the bank, counted as a daily puzzle of any day.)"""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    table.advance(timedelta(hours=1))
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    [solve_id] = post.custom_ids()
    _, _, puzzle_id, day = solve_id.split(":")
    other = next(p.puzzle_id for p in by_id().values() if p.puzzle_id != puzzle_id)
    for forged in (f"puzzle:solve:{other}:{day}", f"puzzle:solve:{puzzle_id}:2001-01-01"):
        record = await table.standin.forged_click(post, forged, table.bob)
        refused = await record.wait_original()
        assert refused.ephemeral
        assert refused.content == "That button or id is not one of mine.", forged
    opened = await (await table.standin.click(post, solve_id, table.bob)).wait_original()
    assert shown_puzzle(opened).puzzle_id == puzzle_id


async def daily_post_answer_lost(table: Harness) -> FakeChannel:
    """The daily puzzle set for #lobby an hour from now; Discord takes its post when it is due
    but the answer is lost (503): #lobby."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    lost = table.standin.lose_answers(
        503,
        matching=lambda method, path: method == "POST" and path == f"/channels/{lobby.id}/messages",
    )
    table.advance(timedelta(hours=1))
    await table.standin.wait_until(lambda: lost.hits == 1, timeout=15)
    return lobby


async def test_a_daily_post_whose_answer_was_lost_is_not_posted_again(table: Harness) -> None:
    """Discord takes the daily post but its answer is lost (503): the next try finds the post
    in the channel by its Solve button, though the server's language changed meanwhile."""
    lobby = await daily_post_answer_lost(table)
    await table.reply_text(table.admin, "settings", {"language": "de"})
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    for _ in range(100):  # the next tries, a minute apart, until the post is recorded
        if not await puzzles.posts_owed():
            break
        table.advance(timedelta(minutes=1))
        await table.checks_run()
    else:
        raise AssertionError("the daily post stayed owed")
    dailies = [
        m
        for m in table.public_messages(lobby)
        if any(c.startswith("puzzle:solve:") for c in m.custom_ids())
    ]
    assert len(dailies) == 1
    assert dailies[0].content.startswith("**Daily puzzle, ")


async def daily_post_never_marked(table: Harness) -> tuple[StoredMessage, StoredMessage]:
    """Discord takes #lobby's daily post but its answer is lost, and the bot stops before it
    finds the post; back a day later, it posts the new day's: the two posts."""
    lobby = await daily_post_answer_lost(table)
    await table.stop()
    table.advance(timedelta(days=1))
    await table.start()

    def dailies() -> list[StoredMessage]:
        return [m for m in table.public_messages(lobby) if "Daily puzzle" in m.content]

    await table.standin.wait_until(lambda: len(dailies()) == 2, timeout=15)
    old, new = dailies()
    return old, new


async def test_a_daily_post_never_marked_posted_keeps_its_solve_button(table: Harness) -> None:
    """Discord takes the daily post but its answer is lost, and the bot stops before it finds
    the post; back a day later, the new day's claim drops the unmarked one, yet that post's
    Solve button opens its puzzle (it was refused as forged), while a forged id on it, naming
    another puzzle or another day, is still refused."""
    old, new = await daily_post_never_marked(table)
    [solve_id] = old.custom_ids()
    _, _, puzzle_id, day = solve_id.split(":")
    assert new.custom_ids() != [solve_id]
    other = next(p.puzzle_id for p in by_id().values() if p.puzzle_id != puzzle_id)
    next_day = new.custom_ids()[0].split(":")[3]
    for forged in (f"puzzle:solve:{other}:{day}", f"puzzle:solve:{puzzle_id}:{next_day}"):
        record = await table.standin.forged_click(old, forged, table.bob)
        refused = await record.wait_original()
        assert refused.ephemeral
        assert refused.content == "That button or id is not one of mine.", forged
    opened = await (await table.standin.click(old, solve_id, table.bob)).wait_original()
    assert opened.ephemeral
    assert shown_puzzle(opened).puzzle_id == puzzle_id
    assert "Solved!" in (await solve(table, opened, table.bob)).content
    stats = await table.reply_text(table.bob, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Daily puzzles solved"] == "1"


async def test_a_daily_post_never_marked_is_known_whatever_its_wording(table: Harness) -> None:
    """A daily post whose claim was dropped, worded otherwise than today's catalogs say (a
    translation reworded since), still opens its puzzle: it is known by its day and its
    puzzle's id, which no wording changes."""
    old, _new = await daily_post_never_marked(table)
    [solve_id] = old.custom_ids()
    _, _, puzzle_id, day = solve_id.split(":")
    rest = old.content.split("\n", 2)[2]
    old.content = f"**Puzzle of the day — {day}**\nTry {puzzle_id}!\n{rest}"
    opened = await (await table.standin.click(old, solve_id, table.bob)).wait_original()
    assert opened.ephemeral
    assert shown_puzzle(opened).puzzle_id == puzzle_id


def refused_posts(table: Harness, channel: FakeChannel) -> int:
    """How many of the bot's posts in ``channel`` Discord refused (403)."""
    path = f"/api/v10/channels/{channel.id}/messages"
    return sum(1 for c in table.standin.rest_log if c.path == path and c.status == 403)


async def daily_denied_twice(table: Harness) -> FakeChannel:
    """The daily puzzle set for #lobby, where an admin then denies the bot Send Messages: its
    post is refused at the hour and a minute later, then paused; returns #lobby."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    await table.standin.set_overwrite(lobby, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(hours=1))
    await until(lambda: refused_posts(table, lobby) == 1)
    table.advance(timedelta(minutes=1))
    await until(lambda: refused_posts(table, lobby) == 2)
    assert table.bot is not None
    puzzles = table.bot.services.puzzles
    await eventually(lambda: puzzles.posts_owed(table.now), [])  # paused two minutes, stored
    return lobby


async def daily_refused_in(table: Harness, lobby: FakeChannel) -> tuple[int, RestFault]:
    """The daily puzzle set for ``lobby`` an hour from now, where Discord refuses the bot's
    posts (403) for an hour: the hour, and the refusal (its ``hits``)."""
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    refused = table.standin.fail_rest(
        403,
        seconds=3600,
        matching=lambda method, path: path.startswith(f"/channels/{lobby.id}/messages"),
    )
    return hour, refused


async def test_a_refused_daily_posts_pause_survives_a_restart(table: Harness) -> None:
    """The bot may not post in #lobby (Send Messages denied): the day's post is refused, tried
    again a minute later, refused again, and then waits two minutes, a restart in between or
    not (a restart tried it again at once: many servers refusing would all be tried at each
    start). Only a permission seen given back at the restart brings it forward."""
    lobby = await daily_denied_twice(table)
    await table.restart()
    table.advance(timedelta(seconds=90))
    await table.checks_run(2)  # a retry due would be tried by now
    assert refused_posts(table, lobby) == 2
    table.advance(timedelta(seconds=40))
    await until(lambda: refused_posts(table, lobby) == 3)


async def test_a_refused_daily_post_follows_the_setting_moved_or_switched_off(
    table: Harness,
) -> None:
    """The bot may not post in #lobby, so the day's post is refused there. Moved to #side, the
    day's puzzle is posted in #side at the next check; switched off, nothing comes later."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    hour, refused = await daily_refused_in(table, lobby)
    table.advance(timedelta(hours=1))
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=10)
    await table.reply_text(table.admin, "puzzle daily", {"channel": side, "hour": hour})
    table.advance(timedelta(seconds=10))
    post = await table.standin.wait_for_message(side, lambda m: "Daily puzzle" in m.content)
    assert post.custom_ids()[0].startswith("puzzle:solve:")
    assert refused.hits == 1

    table.advance(timedelta(days=1))  # the next day's post is refused in #side...
    refused_too = table.standin.fail_rest(
        403,
        seconds=3600,
        matching=lambda method, path: path.startswith(f"/channels/{side.id}/messages"),
    )
    await table.standin.wait_until(lambda: refused_too.hits >= 1, timeout=10)
    off = await table.reply_text(table.admin, "puzzle daily", {"off": True})
    assert off.content == "The daily puzzle is off."
    table.standin.end_faults()  # ...and once the bot may post there, nothing comes
    for _ in range(5):
        table.advance(timedelta(minutes=10))
        await table.reply_text(table.alice, "puzzle stats")  # the timers have run meanwhile
    dailies = [m for m in table.public_messages(side) if "Daily puzzle" in m.content]
    assert [m.id for m in dailies] == [post.id]
    assert [m for m in table.public_messages(lobby) if "Daily puzzle" in m.content] == []


async def test_a_brazilian_players_puzzle_is_in_portuguese(table: Harness) -> None:
    """A pt-BR player's /puzzle play, its picker and a wrong move's verdict are in Portuguese."""
    table.alice.user.locale = "pt-BR"
    shown = await table.reply_text(table.alice, "puzzle play")
    assert shown.ephemeral
    assert re.match(
        r"\*\*Problema p[0-9a-f]{8}\*\* · fácil \(pontuação \d+\) · você joga com os ",
        shown.content,
    ), shown.content
    assert "vença em" in shown.content
    assert shown.content.endswith("Encontre o lance: escolha uma peça.")
    first_select = shown.component(shown.custom_ids()[0])
    assert first_select is not None
    assert first_select["placeholder"] == "Escolha uma peça"
    puzzle = shown_puzzle(shown)
    move = wrong_first_move(puzzle)
    origin = move.split("-")[0]
    chosen = await table.standin.select(
        shown, select_offering(shown, origin), table.alice, [origin]
    )
    step_two = await chosen.wait_original()
    assert step_two.content.endswith(f"Para onde vai {origin}?")
    played = await table.standin.select(
        step_two, select_offering(step_two, move), table.alice, [move]
    )
    failed = await played.wait_original(lambda m: "Para onde vai" not in m.content, timeout=30)
    assert "**Não foi desta vez:** " in failed.content
    assert "Sua sequência recomeça." in failed.content
    assert not re.search(r"\b(the|does not|answer|wins)\b", failed.content), failed.content
    another = failed.component("puzzle:next")
    assert another is not None
    assert another["label"] == "Outro problema"


# -- /puzzle daily: the options, the channel, days missed (from an attack run) --------------


def dailies(table: Harness, channel: FakeChannel) -> list[StoredMessage]:
    """The daily posts in ``channel``."""
    return [
        m
        for m in table.public_messages(channel)
        if any(c.startswith("puzzle:solve:") for c in m.custom_ids())
    ]


async def settle(table: Harness, rounds: int = 3) -> None:
    """Let the timers run a few whole checks at the current clock."""
    await table.checks_run(rounds)


async def test_puzzle_daily_hour_alone_moves_the_hour(table: Harness) -> None:
    """/puzzle daily hour:18 moves a daily puzzle posted at 12:00 to 18:00 in its channel (it
    showed the old setting and changed nothing); switched off, it asks for a channel."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    moved = await table.reply_text(table.admin, "puzzle daily", {"hour": 18})
    assert moved.content.startswith(f"A puzzle will be posted in <#{lobby.id}> every day at <t:")
    assert ":t> (18:00 UTC); the first <t:" in moved.content
    assert table.bot is not None
    setting = await table.bot.services.puzzles.daily_setting(table.guild.id)
    assert setting is not None
    assert (setting.channel_id, setting.hour) == (lobby.id, 18)
    side = table.guild.channel("side")
    kept = await table.reply_text(table.admin, "puzzle daily", {"channel": side})
    assert "(18:00 UTC)" in kept.content  # a channel alone keeps the hour
    both = await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "off": True})
    assert both.content == (
        "Give `off` alone to stop the daily puzzle, or a channel and hour to move it."
    )
    assert (await table.bot.services.puzzles.daily_setting(table.guild.id)) is not None
    await table.reply_text(table.admin, "puzzle daily", {"off": True})
    refused = await table.reply_text(table.admin, "puzzle daily", {"hour": 9})
    assert refused.content == (
        "The daily puzzle is off: to switch it on, give a channel too, like "
        "`/puzzle daily channel:#somewhere`."
    )


async def test_the_daily_puzzle_says_how_to_switch_it_on_as_the_admins_discord_does(
    table: Harness,
) -> None:
    """A German admin's /puzzle daily, off, names the subcommand and its option as their
    Discord lists them (`/rätsel täglich kanal:#irgendwo`, from the synced name_localizations),
    not `/puzzle daily channel:`; a French admin's refusal names the option `off` in French."""
    table.admin.user.locale = "de"
    daily = table.shown_name("puzzle daily", "de")
    channel = table.shown_option("puzzle daily", "channel", "de")
    assert (daily, channel) != ("puzzle daily", "channel")
    somewhere = language_for("de").gettext("#somewhere")
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert (
        shown.content
        == f"Das Tagesrätsel ist aus: `/{daily} {channel}:{somewhere}` schaltet es ein."
    )
    refused = await table.reply_text(table.admin, "puzzle daily", {"hour": 9})
    assert f"`/{daily} {channel}:{somewhere}`" in refused.content
    table.admin.user.locale = "fr"
    off = table.shown_option("puzzle daily", "off", "fr")
    both = await table.reply_text(
        table.admin, "puzzle daily", {"channel": table.guild.channel("lobby"), "off": True}
    )
    assert both.content.startswith(f"Donnez `{off}` seul pour arrêter le problème du jour")
    assert "puzzle" not in both.content + shown.content + refused.content


async def test_a_daily_channel_the_bot_cannot_post_in_is_refused(table: Harness) -> None:
    """/puzzle daily channel:#lobby where the bot may not send messages is refused at once,
    naming the permission (it was accepted, then never posted)."""
    lobby = table.guild.channel("lobby")
    await table.standin.set_overwrite(lobby, table.me, deny=SEND_MESSAGES)
    reply = await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    assert reply.ephemeral
    assert reply.content.startswith(f"I can't post the daily puzzle in <#{lobby.id}>: I need the ")
    assert "Send Messages" in reply.content
    assert table.bot is not None
    assert await table.bot.services.puzzles.daily_setting(table.guild.id) is None


async def test_puzzle_daily_says_when_i_may_no_longer_post_there(table: Harness) -> None:
    """An admin took Send Messages from the bot in #lobby after setting the daily puzzle
    there: /puzzle daily shows the setting and says that the post cannot be made, naming the
    permission (it said only when the next post was due, while each was refused unseen)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    await table.standin.set_overwrite(lobby, table.me, deny=SEND_MESSAGES)
    shown = await table.reply_text(table.admin, "puzzle daily")
    first, second = shown.content.splitlines()
    assert first.startswith(f"The daily puzzle is posted in <#{lobby.id}> every day at ")
    assert second == (
        f"I can't post the daily puzzle in <#{lobby.id}>: I need the Send Messages permission "
        "there."
    )


async def test_puzzle_daily_is_shown_with_my_member_not_cached(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/puzzle daily shows the setting when my own member has left discord.py's cache (my
    permissions in the channel are then not known: no line about them), where reading them
    failed and the admin got an apology."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 12})
    assert table.bot is not None
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    service = table.bot.services.puzzles
    read_setting = service.daily_setting

    async def read_with_my_member_gone(guild_id: int) -> Any:
        if guild.me is not None:
            guild._remove_member(guild.me)  # a command brings my member; it is gone meanwhile
        return await read_setting(guild_id)

    monkeypatch.setattr(service, "daily_setting", read_with_my_member_gone)
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content.startswith(f"The daily puzzle is posted in <#{lobby.id}> every day at ")
    assert len(shown.content.splitlines()) == 1


async def test_a_refused_daily_post_comes_soon_after_the_channel_allows_it_again(
    table: Harness,
) -> None:
    """An admin took Send Messages from the bot in #lobby after setting the daily puzzle
    there; the day's post is refused twice, then the admin gives it back: the post comes at
    the next check, while the clock stands still (it waited out the refusals' pause, up to an
    hour, as owed boards no longer do)."""
    lobby = await daily_denied_twice(table)
    await table.standin.set_overwrite(lobby, table.me)  # the denial removed
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    assert any(c.startswith("puzzle:solve:") for c in post.custom_ids())


async def test_a_refused_daily_post_comes_soon_after_a_permission_given_back_while_stopped(
    table: Harness,
) -> None:
    """An admin took Send Messages from the bot in #lobby; the day's post is refused twice,
    the bot stops, and the admin gives the permission back meanwhile (no CHANNEL_UPDATE can
    reach a stopped bot): after the restart the post comes at the first check, while the
    clock stands still. It waited out its pause, as owed boards no longer did."""
    lobby = await daily_denied_twice(table)
    await table.stop()
    await table.standin.set_overwrite(lobby, table.me)  # the denial removed
    await table.start()
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    assert any(c.startswith("puzzle:solve:") for c in post.custom_ids())


async def test_a_daily_post_where_i_may_no_longer_attach_files_shows_the_board_as_text(
    table: Harness,
) -> None:
    """An admin took Attach Files from the bot in #lobby after setting the daily puzzle
    there: the day's post comes with its board as text and its Solve button (before, its
    picture was refused, and the post retried every day)."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    await table.standin.set_overwrite(lobby, table.me, deny=ATTACH_FILES)
    table.advance(timedelta(hours=1))
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    assert post.attachments == []
    assert "Attackers (" in post.content
    assert "Defenders (" in post.content
    assert any(c.startswith("puzzle:solve:") for c in post.custom_ids())


async def test_days_missed_while_refused_are_not_all_posted_at_once(table: Harness) -> None:
    """The bot may not post in #lobby for three days; the admin moves the daily puzzle to
    #side: one post comes there, not one for every day missed."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    hour, refused = await daily_refused_in(table, lobby)
    for _ in range(3):
        table.advance(timedelta(days=1))
        await settle(table)
    assert refused.hits >= 3
    await table.reply_text(table.admin, "puzzle daily", {"channel": side, "hour": hour})
    table.advance(timedelta(seconds=10))
    await table.standin.wait_for_message(side, lambda m: "Daily puzzle" in m.content)
    await settle(table)
    posted = [m.content.splitlines()[0] for m in dailies(table, side)]
    assert len(posted) == 1, posted


async def test_a_daily_post_days_late_carries_the_day_it_is_posted(table: Harness) -> None:
    """The bot is away for three days past the daily hour: back, it posts the daily puzzle
    headed with today's date (it carried the date of three days before)."""
    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    await table.stop()
    table.advance(timedelta(days=3, hours=1, minutes=5))
    await table.start()
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    today = table.now.strftime("%Y-%m-%d")
    assert post.content.startswith(f"**Daily puzzle, {today}**"), post.content.splitlines()[0]


async def test_the_daily_puzzle_solved_after_drawing_it_with_puzzle_play_counts(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob drew the day's puzzle with /puzzle play and left it open; he presses Solve on the
    daily post and solves it: the next day's post names him and his daily count is 1 (it
    said nobody solved it)."""
    import bot.services.puzzles as puzzle_service

    lobby = table.guild.channel("lobby")
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    table.advance(timedelta(hours=1))
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    todays = shown_puzzle(post)
    with monkeypatch.context() as patched:  # bob happens to draw the same puzzle
        patched.setattr(puzzle_service, "bank", lambda: (todays,))
        drawn = await table.reply_text(table.bob, "puzzle play")
    assert shown_puzzle(drawn) == todays
    opened = await table.standin.click(post, post.custom_ids()[0], table.bob)
    attempt = await opened.wait_original()
    assert "Solved!" in (await solve(table, attempt, table.bob)).content
    stats = await table.reply_text(table.bob, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Daily puzzles solved"] == "1"
    table.advance(timedelta(days=1))
    second = await table.standin.wait_for_message(
        lobby, lambda m: "Daily puzzle" in m.content and m.id != post.id
    )
    assert "was solved by **bob**." in second.content, second.content.splitlines()[-1]


# -- /puzzle leaderboard -----------------------------------------------------------------------


async def finished_elsewhere(table: Harness, member: FakeMember, *statuses: str) -> None:
    """``member`` finishes puzzles in the server (one per status, a minute apart), stored
    straight through the service as the picker stores them, their name remembered as the bot
    remembers a player's."""
    assert table.bot is not None
    services = table.bot.services
    await services.players.remember(member.id, member.name)
    for status in statuses:
        attempt = await services.puzzles.start(guild_id=table.guild.id, user_id=member.id)
        await services.puzzles.record(attempt, (str(attempt.puzzle.solution[0]),), status)
        table.advance(timedelta(minutes=1))


def pings_nobody(message: StoredMessage) -> bool:
    """Whether ``message`` pings nobody, and could not: its allowed_mentions parse nothing."""
    allowed = message.allowed_mentions
    return (
        message.pinged_user_ids() == set()
        and allowed is not None
        and not allowed.get("parse")
        and not allowed.get("users")
    )


async def test_the_puzzle_leaderboard_ranks_the_servers_solvers(table: Harness) -> None:
    """/puzzle leaderboard answers in public and pings nobody: with no puzzle finished, one
    sentence naming /puzzle play; later the top ten, then the asker (12th) on a line of their
    own, and Next turns to the rest. A member who left keeps their line, as on /leaderboard,
    and a name's Markdown and @everyone show as text."""
    empty = await table.reply_text(table.carol, "puzzle leaderboard")
    assert not empty.ephemeral
    [embed] = empty.embeds
    assert embed["title"] == "Puzzle leaderboard — Tafl Club"
    assert embed["description"] == (
        f"Nobody here has finished a puzzle yet: {table.mention('puzzle play')} gives you one."
    )
    assert empty.custom_ids() == []
    assert pings_nobody(empty)

    shown = await table.reply_text(table.alice, "puzzle play")
    assert "Solved!" in (await solve(table, shown, table.alice)).content
    shown = await table.reply_text(table.bob, "puzzle play")
    failed = await pick(table, shown, table.bob, wrong_first_move(shown_puzzle(shown)))
    assert "Not this time" in failed.content
    names = ["**Tafl** _fan_ @everyone", *(f"solver{n}" for n in range(1, 11))]
    solvers = [table.standin.add_member(table.guild, name) for name in names]
    for member in solvers:
        await finished_elsewhere(table, member, "solved", "solved")
    await table.standin.remove_member(solvers[0])

    board = await table.reply_text(table.alice, "puzzle leaderboard")
    assert not board.ephemeral
    assert pings_nobody(board)
    [embed] = board.embeds
    assert embed["title"] == "Puzzle leaderboard — Tafl Club"
    lines = embed["description"].splitlines()
    assert lines[:2] == [
        "`  1.` **\\*\\*Tafl\\*\\* \\_fan\\_ @\u200beveryone** — 2 of 2 solved (100 %)",
        "`  2.` **solver1** — 2 of 2 solved (100 %)",
    ]
    assert lines[9:] == [
        "` 10.` **solver9** — 2 of 2 solved (100 %)",
        "…",
        "` 12.` **alice** — 1 of 1 solved (100 %)",
    ]
    assert embed["footer"]["text"] == (
        "Players 1–10 of 13 · Each player's first try at a puzzle counts; a tie goes to the "
        "higher success rate, then to whoever got there first."
    )
    previous, following = board.button("Previous"), board.button("Next")
    assert previous["disabled"] is True
    assert not following.get("disabled")
    await table.standin.click(board, following["custom_id"], table.carol)
    [embed] = board.embeds
    assert embed["description"].splitlines() == [
        "` 11.` **solver10** — 2 of 2 solved (100 %)",
        "` 12.` **alice** — 1 of 1 solved (100 %)",
        "` 13.` **bob** — 0 of 1 solved (0 %)",
    ]
    assert embed["footer"]["text"].startswith("Players 11–13 of 13 · ")
    assert pings_nobody(board)


async def test_a_puzzle_finished_between_two_presses_repeats_nobody(table: Harness) -> None:
    """The board shows the top ten of twelve; bob, last, then solves three and leads: Next
    shows the one line after the tenth shown (12th now), not the tenth again as the page from
    offset 10 would; Previous from places 2-11, with only bob's line before it, shows the
    whole first page (before: bob's line alone, after which Next repeated nine). A button
    posted before pages turned by keys still shows its page."""
    solvers = [table.standin.add_member(table.guild, f"solver{n}") for n in range(1, 12)]
    for member in solvers:
        await finished_elsewhere(table, member, "solved", "solved")
    await finished_elsewhere(table, table.bob, "failed")
    board = await table.reply_text(table.alice, "puzzle leaderboard")
    lines = board.embeds[0]["description"].splitlines()
    assert lines[9] == "` 10.` **solver10** — 2 of 2 solved (100 %)"
    await finished_elsewhere(table, table.bob, "solved", "solved", "solved")
    await table.standin.click(board, board.button("Next")["custom_id"], table.carol)
    [embed] = board.embeds
    assert embed["description"].splitlines() == ["` 12.` **solver11** — 2 of 2 solved (100 %)"]
    assert embed["footer"]["text"].startswith("Players 12–12 of 12 · ")
    await table.standin.click(board, board.button("Previous")["custom_id"], table.carol)
    lines = board.embeds[0]["description"].splitlines()
    assert (lines[0], lines[-1]) == (
        "`  2.` **solver1** — 2 of 2 solved (100 %)",
        "` 11.` **solver10** — 2 of 2 solved (100 %)",
    )
    await table.standin.click(board, board.button("Previous")["custom_id"], table.carol)
    [embed] = board.embeds
    lines = embed["description"].splitlines()
    assert (len(lines), lines[0], lines[-1]) == (
        10,
        "`  1.` **bob** — 3 of 4 solved (75 %)",
        "` 10.` **solver9** — 2 of 2 solved (100 %)",
    )
    assert embed["footer"]["text"].startswith("Players 1–10 of 12 · ")
    old = f"puzzleboard:{table.guild.id}:all:{table.alice.id}:10:next"
    await table.standin.forged_click(board, old, table.carol)
    assert board.embeds[0]["description"].splitlines() == [
        "` 11.` **solver10** — 2 of 2 solved (100 %)",
        "` 12.` **solver11** — 2 of 2 solved (100 %)",
    ]


async def test_a_german_servers_puzzle_leaderboard_over_the_last_30_days(table: Harness) -> None:
    """In a server whose public messages are German, /puzzle leaderboard is listed as
    `/rätsel rangliste zeitraum:` with its choices in German, and answers in German: over the
    last 30 days it leaves out alice's puzzle of 31 days ago (first saying in one sentence,
    naming `/rätsel spielen`, that nobody finished one), over all time it counts it."""
    assert table.shown_name("puzzle leaderboard", "de") == "rätsel rangliste"
    assert table.shown_option("puzzle leaderboard", "period", "de") == "zeitraum"
    [period] = [
        option
        for command in table.standin.synced_commands()
        if command["name"] == "puzzle"
        for sub in command["options"]
        if sub["name"] == "leaderboard"
        for option in sub["options"]
    ]
    assert [(c["value"], c["name_localizations"]["de"]) for c in period["choices"]] == [
        ("all", "seit Beginn"),
        ("30d", "letzte 30 Tage"),
    ]
    shown = await table.reply_text(table.alice, "puzzle play")
    assert "Solved!" in (await solve(table, shown, table.alice)).content
    table.advance(timedelta(days=31))
    await table.reply_text(table.admin, "settings", {"language": "de"})
    table.carol.user.locale = "pt-BR"  # a public answer is in the server's language
    recent = {"period": "30d"}
    empty = await table.reply_text(table.carol, "puzzle leaderboard", recent)
    [embed] = empty.embeds
    assert embed["title"] == "Rätsel-Rangliste, letzte 30 Tage — Tafl Club"
    assert embed["description"] == (
        "In den letzten 30 Tagen hat hier niemand ein Rätsel beendet: `/rätsel spielen` gibt "
        "dir eins."
    )
    await finished_elsewhere(table, table.bob, "solved", "failed")
    board = await table.reply_text(table.carol, "puzzle leaderboard", recent)
    [embed] = board.embeds
    assert embed["description"] == "`  1.` **bob** — 1 von 2 gelöst (50 %)"
    assert embed["footer"]["text"] == (
        "Spieler 1–1 von 1 · Es zählt der erste Versuch an jedem Rätsel; bei Gleichstand "
        "entscheidet die höhere Lösungsquote, dann wer zuerst dort war."
    )
    ever = await table.reply_text(table.carol, "puzzle leaderboard")
    [embed] = ever.embeds
    assert embed["title"] == "Rätsel-Rangliste — Tafl Club"
    assert embed["description"].splitlines() == [
        "`  1.` **alice** — 1 von 1 gelöst (100 %)",
        "`  2.` **bob** — 1 von 2 gelöst (50 %)",
    ]
    assert pings_nobody(ever)


async def test_the_puzzle_leaderboard_calls_a_solver_it_never_named_a_player(
    table: Harness,
) -> None:
    """A solver whose name the bot never learned shows on /puzzle leaderboard as "a player" in
    the server's language, as the bot names them everywhere else, not as a mention (raw digits
    for someone who left the server), and nobody is pinged."""
    assert table.bot is not None
    unnamed = table.standin.add_member(table.guild, "never told")
    attempt = await table.bot.services.puzzles.start(guild_id=table.guild.id, user_id=unnamed.id)
    await table.bot.services.puzzles.record(attempt, (str(attempt.puzzle.solution[0]),), "solved")
    await table.reply_text(table.admin, "settings", {"language": "de"})
    board = await table.reply_text(table.carol, "puzzle leaderboard")
    [embed] = board.embeds
    assert embed["description"] == "`  1.` **ein Spieler** — 1 von 1 gelöst (100 %)"
    assert pings_nobody(board)


async def test_a_double_click_on_a_puzzles_square_says_the_move_was_played(
    table: Harness,
) -> None:
    """alice double-clicks the square of her puzzle's winning move: it is played once, and the
    other press tells her she played it, not that the puzzle moved on and to look at its newest
    message (it is the message she looks at: the first press edited it), nor that the puzzle is
    already solved, as if it were news (the other press, handled after the first, found it so)."""
    shown = await table.reply_text(table.alice, "puzzle play", {"difficulty": "easy"})
    puzzle = shown_puzzle(shown)
    move = str(puzzle.solution[0])
    origin = move.split("-")[0]
    chosen = await table.standin.select(
        shown, select_offering(shown, origin), table.alice, [origin]
    )
    step_two = await chosen.wait_original()
    where = select_offering(step_two, move)
    presses = await asyncio.gather(
        *(table.standin.select(step_two, where, table.alice, [move], wait=False) for _ in "ab")
    )
    for press in presses:
        await table.standin.wait_answered(press, timeout=30)
    await until(lambda: sum(m.ephemeral for m in table.standin.messages(table.channel)) == 2)
    [board, refusal] = [m for m in table.standin.messages(table.channel) if m.ephemeral]
    assert refusal.content == f"You played {move} already."
    assert ("Solved!" if puzzle.moves == 1 else "Good:") in board.content


async def test_a_puzzle_drawn_in_one_server_counts_where_it_is_played(table: Harness) -> None:
    """alice draws a puzzle in the Tafl Club, leaves it, and plays it in another server where
    /puzzle play gives it back: it counts on that server's puzzle leaderboard, where it was
    played, not on the Tafl Club's (it counted where it had been drawn)."""
    drawn = await table.reply_text(table.alice, "puzzle play")
    puzzle = shown_puzzle(drawn)
    other = table.standin.add_guild("Elsewhere", channels=["play"])
    alice_there = table.standin.add_member(other, table.alice.user)
    await table.standin.bot_joins(other)
    await table.standin.announce_member(alice_there)
    there = other.channel("play")
    given_back = await (
        await table.standin.slash(other, there, alice_there, "puzzle play", {})
    ).wait_original()
    assert shown_puzzle(given_back) == puzzle
    failed = await pick(table, given_back, alice_there, wrong_first_move(puzzle))
    assert "Not this time" in failed.content
    board = await (
        await table.standin.slash(other, there, alice_there, "puzzle leaderboard", {})
    ).wait_original()
    assert board.embeds[0]["description"] == "`  1.` **alice** — 0 of 1 solved (0 %)"
    home = await table.reply_text(table.alice, "puzzle leaderboard")
    assert home.embeds[0]["description"].startswith("Nobody here has finished a puzzle yet")


async def test_a_player_stuck_on_a_puzzle_gives_up_and_sees_the_solution(
    table: Harness,
) -> None:
    """Give up under the picker ends the attempt as a wrong move would (tried, streak over)
    and shows the solution, and /puzzle play then gives another puzzle: before, a player who
    could not find the move got the same puzzle back for good, or had to play a move they
    knew was wrong to see the answer."""
    shown = await table.reply_text(table.alice, "puzzle play")
    puzzle = shown_puzzle(shown)
    [give_up] = [c for c in shown.custom_ids() if c.endswith(":give-up")]
    pressed = await table.standin.click(shown, give_up, table.alice)
    over = await pressed.wait_original(lambda m: "gave up" in m.content)
    solution = " ".join(str(m) for m in puzzle.solution)
    assert f"**You gave up.** The solution: {solution}. Your streak starts again." in over.content
    assert over.custom_ids() == ["puzzle:next"]
    stats = await table.reply_text(table.alice, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Solved"] == "0 of 1 (0 %)"
    assert shown_puzzle(await table.reply_text(table.alice, "puzzle play")) != puzzle


async def test_a_puzzles_answer_goes_before_the_analyses_waiting(table: Harness) -> None:
    """Both workers busy and two analyses' searches waiting for them: alice's puzzle move is
    judged as soon as a running search ends, before the waiting ones (the solver waits on it,
    as a player waits on the computer's move), not after them all."""
    assert table.bot is not None
    engine = table.bot.engine
    running = [asyncio.ensure_future(engine.run(time.sleep, 3.0)) for _ in range(2)]
    await asyncio.sleep(0)  # they hold both workers
    waiting = [asyncio.ensure_future(engine.run(time.sleep, 5.0)) for _ in range(2)]
    try:
        shown = await table.reply_text(table.alice, "puzzle play", {"difficulty": "easy"})
        puzzle = shown_puzzle(shown)
        judged = await pick(table, shown, table.alice, str(puzzle.solution[0]))
        assert ("Solved!" if puzzle.moves == 1 else "Good:") in judged.content
        assert all(search.done() for search in running)
        assert not any(search.done() for search in waiting), "judged after the analyses"
    finally:
        for search in waiting:
            search.cancel()
        await asyncio.gather(*running, *waiting, return_exceptions=True)


async def test_a_double_click_on_give_up_says_the_puzzle_was_given_up(table: Harness) -> None:
    """alice double-clicks Give up: the puzzle is given up once, and the other press tells her
    she gave it up, not that the puzzle moved on and to look at its newest message (it is the
    message she looks at: the first press edited it) nor that it is failed, as if it were
    news."""
    shown = await table.reply_text(table.alice, "puzzle play", {"difficulty": "easy"})
    [give_up] = [c for c in shown.custom_ids() if c.endswith(":give-up")]
    presses = await asyncio.gather(
        *(table.standin.click(shown, give_up, table.alice, wait=False) for _ in "ab")
    )
    for press in presses:
        await table.standin.wait_answered(press, timeout=30)
    await until(lambda: sum(m.ephemeral for m in table.standin.messages(table.channel)) == 2)
    [board, refusal] = [m for m in table.standin.messages(table.channel) if m.ephemeral]
    assert "**You gave up.**" in board.content
    assert refusal.content == "You gave up on this puzzle already."
    stats = await table.reply_text(table.alice, "puzzle stats")
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert fields["Solved"] == "0 of 1 (0 %)"


async def test_a_move_typed_while_solving_a_puzzle_says_the_picker_plays_it(
    table: Harness,
) -> None:
    """alice, solving a puzzle, types /move where no game is played: told in one sentence that
    /move plays no puzzle and her picker does (before: only that no game is here), her puzzle
    untouched; bob, with no puzzle, still reads that no game is here."""
    shown = await table.reply_text(table.alice, "puzzle play")
    puzzle = shown_puzzle(shown)
    typed = await table.reply_text(table.alice, "move", {"move": str(puzzle.solution[0])})
    assert typed.ephemeral
    assert typed.content == (
        f"There is no game in this channel, and {table.mention('move')} does not play "
        "puzzles: choose your puzzle's move with the picker under its board, which "
        f"{table.mention('puzzle play')} (or the daily puzzle's **Solve**) shows again."
    ), typed.content
    other = await table.reply_text(table.bob, "move", {"move": "d1-c1"})
    assert other.content.startswith("There is no game in progress in this channel"), other.content
    again = await table.reply_text(table.alice, "puzzle play")
    assert shown_puzzle(again) == puzzle
    assert "Find the move" in again.content


async def test_a_move_typed_with_a_puzzle_gone_from_the_bank_is_told_no_game_is_here(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's unfinished puzzle was since removed from the bank (a new version of the bot):
    her /move where no game is played reads that no game is here, where it sent her to a
    picker that answers that the puzzle is not hers."""
    shown = await table.reply_text(table.alice, "puzzle play")
    gone = shown_puzzle(shown).puzzle_id
    left = {puzzle_id: p for puzzle_id, p in by_id().items() if puzzle_id != gone}
    monkeypatch.setattr(puzzle_service, "by_id", lambda: left)
    typed = await table.reply_text(table.alice, "move", {"move": "d1-c1"})
    assert typed.ephemeral
    assert typed.content.startswith("There is no game in progress in this channel"), typed.content


async def test_a_picker_behind_its_puzzle_after_a_restart_shows_it_as_it_stands(
    table: Harness,
) -> None:
    """alice's move and its answer were stored, then a restart cut off the edit that showed
    them: her next press on the picker, now behind, shows the puzzle as it stands in that
    message (before: "look at its newest message", and there was none), and she plays on."""
    shown = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    puzzle = shown_puzzle(shown)
    assert puzzle.moves >= 2
    assert table.bot is not None
    service = table.bot.services.puzzles
    attempt = await service.start(guild_id=table.guild.id, user_id=table.alice.user.id)
    assert attempt.puzzle == puzzle
    first, reply = (str(m) for m in puzzle.solution[:2])
    await service.record(attempt, (first, reply), "open")
    await table.restart()
    pieces = next(c for c in shown.custom_ids() if ":from:" in c)
    component = shown.component(pieces)
    assert component is not None
    origin = component["options"][0]["value"]
    pressed = await table.standin.select(shown, pieces, table.alice, [origin])
    stands = await pressed.wait_original(lambda m: "moved on" in m.content)
    left = puzzle.moves - 1
    assert stands.content.endswith(
        f"\nThe puzzle had moved on since this message: you played {first}, your opponent "
        f"answered {reply}. Win in {left} more {'move' if left == 1 else 'moves'}."
    ), stands.content
    assert all(f":{attempt.attempt_id}:2:" in c for c in stands.custom_ids()), stands.custom_ids()
    played = await pick(table, stands, table.alice, str(puzzle.solution[2]))
    assert ("Solved!" if puzzle.moves == 2 else "**Good:**") in played.content, played.content


async def test_an_older_message_of_a_puzzle_pressed_tells_the_move_it_is_behind(
    table: Harness,
) -> None:
    """alice plays her puzzle's first move in the message /puzzle play gave it back in, then
    presses the picker of its older message: that one shows the puzzle as it stands with her
    move and its answer (before: that its last answer was not shown, which she had read)."""
    older = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    puzzle = shown_puzzle(older)
    assert puzzle.moves >= 2
    newer = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    assert shown_puzzle(newer) == puzzle
    first = str(puzzle.solution[0])
    played = await pick(table, newer, table.alice, first)
    reply = str(puzzle.solution[1])
    assert f"**Good:** {first}. Your opponent answers {reply}." in played.content, played.content
    pieces = next(c for c in older.custom_ids() if ":from:" in c)
    component = older.component(pieces)
    assert component is not None
    origin = component["options"][0]["value"]
    pressed = await table.standin.select(older, pieces, table.alice, [origin])
    stands = await pressed.wait_original(lambda m: "moved on" in m.content)
    assert "was not shown" not in stands.content, stands.content
    assert f"you played {first}, your opponent answered {reply}." in stands.content, stands.content


async def test_a_message_two_moves_behind_its_puzzle_tells_every_move_since(
    table: Harness,
) -> None:
    """alice plays two moves of her puzzle in the message /puzzle play gave it back in, then
    presses the picker of its older message: that one tells both moves and both answers
    (before: only the last pair, as if the older message showed the first)."""
    older = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    puzzle = shown_puzzle(older)
    assert puzzle.moves >= 3
    newer = await table.reply_text(table.alice, "puzzle play", {"difficulty": "hard"})
    first, reply, second, answer = (str(move) for move in puzzle.solution[:4])
    played = await pick(table, newer, table.alice, first)
    played = await pick(table, played, table.alice, second)
    assert f"**Good:** {second}. Your opponent answers {answer}." in played.content
    pieces = next(c for c in older.custom_ids() if ":from:" in c)
    component = older.component(pieces)
    assert component is not None
    pressed = await table.standin.select(
        older, pieces, table.alice, [component["options"][0]["value"]]
    )
    stands = await pressed.wait_original(lambda m: "moved on" in m.content)
    left = puzzle.moves - 2
    assert stands.content.endswith(
        f"\nThe puzzle had moved on since this message: you played {first}, your opponent "
        f"answered {reply}; then you played {second}, your opponent answered {answer}. "
        f"Win in {left} more {'move' if left == 1 else 'moves'}."
    ), stands.content


async def test_the_daily_puzzle_is_posted_in_a_channel_closed_to_games(table: Harness) -> None:
    """Games allowed in #general alone, the daily puzzle set in #lobby is still posted there
    and its Solve works: a puzzle is not a game (solved privately, no thread, no channel
    held), and an admin chose that channel for it (README, "The daily puzzle")."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    hour = (table.now + timedelta(hours=1)).hour
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
    table.advance(timedelta(hours=1))
    post = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
    opened = await table.standin.click(post, post.custom_ids()[0], table.bob)
    attempt = await opened.wait_original()
    assert attempt.ephemeral
    assert "Find the move" in attempt.content, attempt.content
