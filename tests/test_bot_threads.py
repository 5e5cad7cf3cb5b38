"""A thread per game, end to end through the stand-in: start, play, finish, archive, fall back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.flow.challenges import ChallengeFlow
from bot.i18n import Language
from bot.services.challenges import ChallengeService
from bot.services.domain import Challenge
from bot.storage import challenges as stored_challenges
from bot.storage.errors import DatabaseBusy, StorageError
from tests.bot_harness import (
    Harness,
    board_thread_game,
    challenge_id,
    running_bot,
    until,
    waits_until_told,
)
from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeMember,
    StoredMessage,
)
from tests.discord_standin.command_options import OptionValue
from tests.discord_standin.model import CREATE_PUBLIC_THREADS, GUILD_STAGE_VOICE, GUILD_VOICE

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""Five moves after which the attackers capture the king against the throne's neighbour."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread (the bot's default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def challenge(table: Harness, challenger: FakeMember, opponent: FakeMember) -> StoredMessage:
    """Post a one-set challenge in the main channel; return the challenge message."""
    return await table.reply_text(challenger, "challenge", {"opponent": opponent, "sets": 1})


async def accept(table: Harness, message: StoredMessage, opponent: FakeMember) -> None:
    """Press Accept on ``message`` as ``opponent``."""
    pressed = await table.standin.click(
        message, f"challenge:accept:{challenge_id(message)}", opponent
    )
    assert pressed.answered


def thread_of(table: Harness, message: StoredMessage) -> FakeChannel:
    """The thread started from ``message``."""
    assert message.thread is not None, f"no thread from message {message.id}: {message.content}"
    return message.thread


async def thread_held(table: Harness, thread: FakeChannel) -> None:
    """The bot has heard that ``thread`` was locked: it holds the thread's clocks."""
    assert table.bot is not None
    holds = table.bot.timers.holds
    await until(lambda: holds.thread_held(thread.id))


async def test_two_games_start_from_one_channel_each_in_its_thread(table: Harness) -> None:
    """Two challenges in one channel, both accepted: two threads, each with its own board."""
    first = await challenge(table, table.alice, table.bob)
    second = await challenge(table, table.carol, table.admin)
    await asyncio.gather(accept(table, first, table.bob), accept(table, second, table.admin))
    one, two = thread_of(table, first), thread_of(table, second)
    assert one.name == "alice vs bob · Brandubh (World Tafl Federation)"
    assert two.name == "carol vs ada · Brandubh (World Tafl Federation)"
    assert one.parent is table.channel
    assert two.parent is table.channel
    for thread, message in ((one, first), (two, second)):
        board = await table.wait_board(channel=thread)
        assert "** begins. <@" in board.content
        assert message.components == []  # the challenge is one line now, without buttons
        assert f"<#{thread.id}>" in message.content
    # The channel itself holds only the two challenge lines: no board was posted there.
    assert [m.id for m in table.public_messages()] == [first.id, second.id]


async def test_a_finished_thread_match_is_exported_and_analysed_from_its_channel(
    table: Harness,
) -> None:
    """/export and /analyse in #games, without a number, take the match just finished in a
    thread of #games, not the newer match still being played in another thread (between its
    sets), which is its thread's alone."""
    _, thread = await board_thread_game(table)
    refused = await table.reply_text(table.carol, "export")
    assert refused.ephemeral, refused.content
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    # Meanwhile carol and the admin finish set 1 of a two-set match in another thread.
    await board_thread_game(
        table, challenger=table.carol, opponent=table.admin, sets=2, opening=ATTACKERS_WIN
    )
    exported = await (await table.slash(table.bob, "export")).wait_followup()
    assert exported.channel is table.channel
    record, _replay = exported.attachments
    assert "[attackers:alice]" in record.data.decode()
    assert "b1-b3" in record.data.decode()
    review = await (await table.slash(table.bob, "analyse")).wait_original(
        lambda m: bool(m.attachments), timeout=60
    )
    assert review.content.startswith("**Analysis of game ")
    assert "**alice** (attackers)" in review.content


async def test_a_game_is_played_in_its_thread_and_the_line_shows_the_result(
    table: Harness,
) -> None:
    """Moves in the thread; at the end the parent line shows the result and the thread archives."""
    _, thread = await board_thread_game(table)
    line = table.thread_line(thread)
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        reply = await table.reply_text(who, "move", {"move": text}, channel=thread)
        assert not reply.ephemeral, reply.content
        assert reply.channel is thread
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    assert "**alice** won." in line.content
    assert f"<#{thread.id}>" in line.content
    assert not thread.archived  # late replies still land during the grace period
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=5)


async def test_a_line_discord_would_not_edit_at_the_matchs_end_shows_the_result_later(
    table: Harness,
) -> None:
    """Discord refuses the edit of the match's line as the last move ends the match: the edit
    is owed, and the timers' check makes it once Discord takes it (before, the line said the
    match was in progress for good)."""
    _, thread = await board_thread_game(table)
    line = table.thread_line(thread)
    edit = f"/channels/{table.channel.id}/messages/{line.id}"
    refused = table.standin.fail_rest(
        403,
        seconds=600,
        code=50013,
        matching=lambda method, path: method == "PATCH" and path == edit,
    )
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    await table.standin.wait_until(lambda: refused.hits == 1, timeout=5)
    await table.checks_run(1)
    assert " won. " not in line.content
    table.standin.end_faults()
    table.advance(timedelta(seconds=30))
    await table.checks_run(2)
    assert "**alice** won." in line.content
    assert f"<#{thread.id}>" in line.content


async def test_a_picked_moves_board_is_posted_in_the_thread_pinging_the_opponent(
    table: Harness,
) -> None:
    """alice plays with the Move button's picker in her game's thread: its board is posted in
    the thread, not in the channel it started from, pinging bob (whose move it is) and nobody
    else, and carries the nonce the outbox would post it with."""
    board, thread = await board_thread_game(table)
    where = await table.picked(board, table.alice)
    [select] = where.custom_ids()
    pressed = await table.standin.select(where, select, table.alice, ["d1-b1"])
    posted = await table.wait_board(lambda m: "played d1-b1." in m.content, channel=thread)
    assert f"<@{table.bob.id}>, your move" in posted.content
    assert posted.allowed_mentions == {"parse": [], "users": [table.bob.id]}
    assert table.bot is not None
    services = table.bot.services
    game = await services.games.in_channel(thread.id)
    assert game is not None
    # discord.py gives every message a nonce of its own: it must be the outbox's.
    assert posted.nonce == await services.announcements.nonce(game.set_id, 1)
    assert pressed.followups == []
    assert where.content == "You played d1-b1."
    assert not [m for m in table.public_messages() if "played d1-b1." in m.content]


async def test_moves_in_the_parent_channel_point_to_the_players_thread(table: Harness) -> None:
    """The parent channel has no game of its own: alice's /move, /board, /resign and /takeback
    there are refused naming her game's thread (they said only that there was no game here);
    carol, who plays nothing, is pointed to /games."""
    _, thread = await board_thread_game(table)
    commands: tuple[tuple[str, dict[str, str]], ...] = (
        ("move", {"move": "d1-b1"}),
        ("board", {}),
        ("resign", {}),
        ("takeback", {}),
    )
    for command, options in commands:
        reply = await table.reply_text(table.alice, command, options)
        assert reply.ephemeral
        assert reply.content == (
            f"There is no game in this channel: yours is in <#{thread.id}>, play it there."
        )
    reply = await table.reply_text(table.carol, "move", {"move": "d1-b1"})
    assert "no game in progress in this channel" in reply.content


async def test_a_move_in_the_parent_channel_says_the_players_thread_is_locked(
    table: Harness,
) -> None:
    """A moderator locked and archived alice's thread: her /move in the parent channel says
    so, and that its clocks stand still until it is opened (it said "play it there", where
    she cannot)."""
    _, thread = await board_thread_game(table)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert reply.ephemeral
    assert reply.content == (
        f"Your game's thread <#{thread.id}> is locked by a moderator: ask one to open it; its "
        "clocks stand still until then."
    )


async def test_a_move_beside_a_locked_thread_says_so_when_the_player_has_other_games(
    table: Harness,
) -> None:
    """alice plays bob in a thread of #games and carol in a thread of #second; a moderator
    locks the first: her /move in #games says that thread is locked (it listed both games,
    "play each there"), while in a third channel it still lists both."""
    _, thread = await board_thread_game(table)
    second = table.standin.add_channel(table.guild, "second")
    _, other = await board_thread_game(table, opponent=table.carol, channel=second)
    await table.standin.edit_thread(thread, archived=True, locked=True)
    await thread_held(table, thread)
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"})
    assert reply.ephemeral
    assert reply.content == (
        f"Your game's thread <#{thread.id}> is locked by a moderator: ask one to open it; its "
        "clocks stand still until then."
    )
    third = table.standin.add_channel(table.guild, "third")
    elsewhere = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=third)
    assert elsewhere.content == (
        f"There is no game in this channel: yours are in <#{thread.id}>, <#{other.id}>, play "
        "each there."
    )


async def test_refused_thread_falls_back_to_the_channel_and_says_why(table: Harness) -> None:
    """Discord refusing the thread (403): the game is played in the channel, with the reason."""
    table.standin.world.thread_creation_error = (403, 50013, "Missing Permissions")
    line = await challenge(table, table.alice, table.bob)
    await accept(table, line, table.bob)
    assert line.thread is None
    assert "Discord would not let me open a thread, so the game is played here." in line.content
    board = await table.wait_board()
    assert board.channel is table.channel
    reply = await table.move(table.alice, "d1-b1")
    assert not reply.ephemeral, reply.content


async def test_threads_off_plays_in_the_channel_and_lapses_other_challenges(
    table: Harness,
) -> None:
    """With /settings threads:off the channel hosts the game; its other challenges lapse."""
    await table.reply_text(table.admin, "settings", {"threads": "off"})
    first = await challenge(table, table.alice, table.bob)
    second = await challenge(table, table.carol, table.admin)
    await accept(table, first, table.bob)
    assert "Threads are off on this server" in first.content
    await table.wait_board()
    await table.standin.wait_until(lambda: second.components == [], timeout=5)
    assert "lapsed: this channel is now busy" in second.content


async def test_without_thread_permissions_the_game_stays_in_the_channel(table: Harness) -> None:
    """A bot without Create Public Threads plays in the channel and says which permission."""
    for role in (table.guild.everyone, *table.guild.roles):
        role.permissions &= ~CREATE_PUBLIC_THREADS
    line = await challenge(table, table.alice, table.bob)
    await accept(table, line, table.bob)
    assert "I may not create threads here" in line.content
    assert (await table.wait_board()).channel is table.channel


async def test_a_channel_without_thread_permissions_refuses_challenges_while_busy(
    table: Harness,
) -> None:
    """The bot may not create threads in #games, so alice and bob's game is played there:
    carol's challenge in #games is refused at once with the reason, instead of being posted
    and refused to whoever accepts it."""
    for role in (table.guild.everyone, *table.guild.roles):
        role.permissions &= ~CREATE_PUBLIC_THREADS
    line = await challenge(table, table.alice, table.bob)
    await accept(table, line, table.bob)
    await table.wait_board()
    refused = await challenge(table, table.carol, table.admin)
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this channel: start yours in another channel."
    )


async def test_a_game_against_the_computer_in_the_channel_lapses_the_challenges_there(
    table: Harness,
) -> None:
    """Nobody may create threads in #games: alice's challenge to bob is posted, then carol's
    game against the computer starts there. alice's challenge lapses, as it would for a
    challenge accepted there: its message says why, without buttons, and an Accept from a
    client still showing them is told it is no longer open (it was left open, and refused as
    the channel busy)."""
    for role in (table.guild.everyone, *table.guild.roles):
        await table.standin.edit_role(role, permissions=role.permissions & ~CREATE_PUBLIC_THREADS)
    line = await challenge(table, table.alice, table.bob)
    accept_id = f"challenge:accept:{challenge_id(line)}"
    await challenge_computer(table, table.carol, level=1, sets=1)
    await table.wait_board()
    await table.standin.wait_until(lambda: line.components == [], timeout=5)
    assert line.content == (
        f"<@{table.alice.id}>'s challenge to <@{table.bob.id}> lapsed: this channel is now busy "
        "with a game."
    )
    pressed = await table.standin.forged_click(line, accept_id, table.bob)
    refused = await pressed.wait_original()
    assert refused.ephemeral
    assert refused.content == "That challenge is no longer open."


async def test_an_accept_as_a_game_takes_the_channel_lapses_the_challenge(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody may create threads in #games: carol's game against the computer starts there
    while alice's challenge to bob waits, and bob presses Accept before that start has lapsed
    the challenges there. His press lapses them itself: he is told so in one sentence (the
    challenge could never be accepted while the match there is on), and alice reads it on
    her challenge's message, pinged by nobody."""
    assert table.bot is not None
    for role in (table.guild.everyone, *table.guild.roles):
        await table.standin.edit_role(role, permissions=role.permissions & ~CREATE_PUBLIC_THREADS)
    line = await challenge(table, table.alice, table.bob)
    lapsing, go_on = waits_until_told(monkeypatch, table.bot.flow.challenges, "lapse_waiting")
    await challenge_computer(table, table.carol, level=1, sets=1)
    await table.wait_board()
    await lapsing.wait()
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    refused = await pressed.wait_original()
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this channel, so this challenge lapsed."
    )
    await table.standin.wait_until(lambda: line.components == [], timeout=5)
    assert line.content == (
        f"<@{table.alice.id}>'s challenge to <@{table.bob.id}> lapsed: this channel is now busy "
        "with a game."
    )
    pinging = [m for m in table.standin.messages(table.channel) if m.pinged_user_ids()]
    go_on.set()
    assert table.alice.id not in {user for m in pinging for user in m.pinged_user_ids()}


async def test_a_members_thread_in_an_allowed_channel_hosts_games(table: Harness) -> None:
    """Games are allowed in #games only and threads are off: while alice and bob play in
    #games, carol is told to start her game in a thread, and in the thread she starts there
    her challenge and a game against the computer are taken (the thread was refused as a
    channel games are not allowed in)."""
    await table.reply_text(table.admin, "settings", {"allow": table.channel, "threads": "off"})
    await table.challenge_accepted(table.alice, table.bob)
    busy = await challenge(table, table.carol, table.admin)
    assert busy.content == (
        "A game is already being played in this channel: start yours in another channel or "
        "in a thread."
    )
    corner = await table.standin.start_member_thread(table.channel, "carol's corner", table.carol)
    posted = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1}, channel=corner
    )
    assert not posted.ephemeral, posted.content
    await accept(table, posted, table.admin)
    board = await table.wait_board(channel=corner)
    assert f"<@{table.carol.id}>, your move" in board.content
    other = await table.standin.start_member_thread(table.channel, "ada's corner", table.admin)
    computer = await table.reply_text(
        table.admin, "challenge", {"opponent": table.me}, channel=other
    )
    assert not computer.ephemeral, computer.content


async def test_a_thread_of_a_channel_games_are_not_allowed_in_is_refused(
    table: Harness,
) -> None:
    """Only #lobby is allowed: a member's thread of #games is refused as #games is."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    corner = await table.standin.start_member_thread(table.channel, "corner", table.carol)
    refused = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin}, channel=corner
    )
    assert refused.ephemeral
    assert refused.content == (
        f"Games are not allowed in this channel. Games are played in <#{lobby.id}>."
    )


async def rematch_beside_a_busy_game(table: Harness, over: StoredMessage) -> StoredMessage:
    """carol and ada start a game in #games, then alice presses Rematch under ``over`` (her
    finished match's end): her answer, which is private and posts nothing."""
    busy = await challenge(table, table.carol, table.admin)
    await accept(table, busy, table.admin)
    await table.wait_board(lambda m: f"<@{table.carol.id}>, your move" in m.content)
    before = len(table.public_messages())
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    answer = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    assert answer.ephemeral
    assert table.public_messages()[before:] == []
    return answer


async def test_a_rematch_where_the_game_could_only_be_played_in_a_busy_channel_is_refused(
    table: Harness,
) -> None:
    """Nobody may create threads in #games: after alice and bob's match there, carol and ada
    start one in #games; alice's Rematch is refused at once (it was posted, and refused to bob
    when he accepted), not suggesting a thread, which she may not start (as a /challenge
    there is not), and in words for a button: /challenge elsewhere starts a match (it read
    "start yours in another channel", as if she had typed a command)."""
    for role in (table.guild.everyone, *table.guild.roles):
        await table.standin.edit_role(role, permissions=role.permissions & ~CREATE_PUBLIC_THREADS)
    line = await challenge(table, table.alice, table.bob)
    await accept(table, line, table.bob)
    await table.wait_board()
    for ply, text in enumerate(ATTACKERS_WIN):
        over = await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    assert "wins the game" in over.content
    answer = await rematch_beside_a_busy_game(table, over)
    assert answer.content == (
        f"A game is already being played in <#{table.channel.id}>, so the rematch cannot be "
        f"played there: {table.mention('challenge')} in another channel starts a new match."
    )
    refused = await challenge(table, table.alice, table.bob)
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this channel: start yours in another channel."
    )


async def test_a_rematch_against_the_computer_in_a_busy_channel_names_the_channel_and_challenge(
    table: Harness,
) -> None:
    """Nobody may create threads in #games: alice resigns her game against the computer
    there, carol and ada start theirs in #games, and alice's Rematch is refused as her
    /challenge of the computer there is, without a thread, in words for a button press."""
    for role in (table.guild.everyone, *table.guild.roles):
        await table.standin.edit_role(role, permissions=role.permissions & ~CREATE_PUBLIC_THREADS)
    await challenge_computer(table, table.alice, level=1, sets=1)
    await table.wait_board()
    await table.move(table.alice, "d1-b1")
    await table.wait_board(lambda m: "(defenders) played" in m.content)
    ask = await table.reply_text(table.alice, "resign")
    await (await table.standin.click(ask, ask.custom_ids()[0], table.alice)).wait_original()
    over = await table.wait_board(lambda m: "wins the game" in m.content)
    answer = await rematch_beside_a_busy_game(table, over)
    assert answer.content == (
        f"A game is already being played in <#{table.channel.id}>, so the rematch cannot be "
        f"played there: {table.mention('challenge')} in another channel starts a new match."
    )
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.me})
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this channel: start yours in another channel."
    )


async def test_a_rematch_asked_in_a_thread_is_refused_for_its_channel(table: Harness) -> None:
    """alice beats bob in their thread; then I may no longer create threads in #games, where
    carol and ada's game is played. alice's Rematch, pressed in the thread, goes to #games and
    is refused for #games, named: members may start threads there, so it suggests one, as a
    /challenge in #games does (not what a /challenge inside the thread would be told), in
    words for a button (it read "start yours in another channel or in a thread")."""
    over, _ = await board_thread_game(table, opening=ATTACKERS_WIN)
    assert "wins the game" in over.content
    await table.standin.set_overwrite(table.channel, table.me, deny=CREATE_PUBLIC_THREADS)
    answer = await rematch_beside_a_busy_game(table, over)
    assert answer.content == (
        f"A game is already being played in <#{table.channel.id}>, so the rematch cannot be "
        f"played there: {table.mention('challenge')} in another channel or in a thread "
        "starts a new match."
    )
    table.alice.user.locale = "de"
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    answer = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    assert answer.content.startswith(f"In <#{table.channel.id}> läuft schon eine Partie"), (
        answer.content
    )
    table.alice.user.locale = "en-US"
    refused = await challenge(table, table.alice, table.bob)
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this channel: start yours in another channel or "
        "in a thread."
    )


async def test_a_challenge_inside_a_game_thread_is_refused_at_once(table: Harness) -> None:
    """carol types /challenge inside alice and bob's game thread, where her game could only be
    played (a thread has no threads): she is told at once where to challenge instead."""
    _, thread = await board_thread_game(table)
    refused = await table.reply_text(
        table.carol, "challenge", {"opponent": table.admin, "sets": 1}, channel=thread
    )
    assert refused.ephemeral
    assert refused.content == (
        "A game is already being played in this thread: challenge from the channel, where "
        "each game gets a thread of its own."
    )
    computer = await table.reply_text(
        table.carol, "challenge", {"opponent": table.me}, channel=thread
    )
    assert computer.ephemeral
    assert computer.content == refused.content


async def test_a_member_may_have_five_open_challenges(table: Harness) -> None:
    """The sixth open challenge is refused with one sentence."""
    for n in range(5):
        await challenge(table, table.alice, table.standin.add_member(table.guild, f"m{n}"))
    refused = await challenge(table, table.alice, table.carol)
    assert refused.ephemeral
    assert refused.content == (
        "You already have 5 open challenges: wait for an answer, or withdraw one."
    )


async def test_a_challenge_discord_would_not_show_does_not_hold_the_pair(table: Harness) -> None:
    """Discord refuses the answer that would show alice's challenge (404, as for an interaction
    that expired): the stored challenge is withdrawn, so her next /challenge to bob is posted,
    not refused as still open."""
    failed = table.standin.fail_rest(
        404,
        seconds=60,
        matching=lambda method, path: path.startswith("/interactions/"),
        code=10062,  # Unknown interaction
    )
    await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob}, wait=False
    )
    await table.standin.wait_until(lambda: failed.hits >= 1, timeout=10)
    table.standin.end_faults()
    assert table.bot is not None
    database = table.bot.services.database
    for _ in range(100):  # the failed answer's handling has withdrawn it
        async with database.snapshot() as db:
            if not await stored_challenges.open_in_channel(db, table.channel.id):
                break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the unshown challenge stayed open")
    line = await challenge(table, table.alice, table.bob)
    assert line.content.startswith(f"<@{table.bob.id}>, <@{table.alice.id}> challenges you")


async def test_an_admin_aborts_a_thread_game_by_number_from_the_channel(table: Harness) -> None:
    """In #games an admin's /abort says to give the game's number; with it, the question names
    the thread the game is played in, and the aborted board is posted there, not in #games."""
    _, thread = await board_thread_game(table)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(thread.id)
    assert active is not None
    refused = await table.reply_text(table.admin, "abort")
    assert refused.content.startswith(
        "There is no game in progress in this channel: to abort one played elsewhere, give its "
        "number with `game` ("
    )
    asked = await table.reply_text(table.admin, "abort", {"game": active.set_id})
    assert asked.content.endswith(f"It is played in <#{thread.id}>.")
    before = len(table.public_messages(table.channel))
    board = await table.abort(table.admin, {"game": active.set_id}, game_channel=thread)
    assert "**Game aborted:**" in board.content
    assert await table.bot.services.games.in_channel(thread.id) is None
    boards = [m for m in table.public_messages(table.channel)[before:] if m.attachments]
    assert boards == []


async def test_a_thread_game_resumes_after_a_restart(table: Harness) -> None:
    """Restarted mid-game, the bot goes on in the thread: moves there still land."""
    _, thread = await board_thread_game(table)
    await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    await table.restart()
    reply = await table.reply_text(table.bob, "move", {"move": "c4-c2"}, channel=thread)
    assert not reply.ephemeral, reply.content
    assert "c4-c2" in reply.content


async def challenge_computer(table: Harness, member: FakeMember, **options: Any) -> StoredMessage:
    """Challenge the computer; return the answer once the match has started (thread or not)."""
    line = await table.reply_text(member, "challenge", {"opponent": table.me, **options})
    await table.standin.wait_until(
        lambda: "the game is on" in line.content or "\n" in line.content, timeout=5
    )
    return line


async def test_games_against_the_computer_get_a_thread_each(table: Harness) -> None:
    """Two members challenge the computer in one channel: each game is in its own thread,
    linked from one line, and the computer answers there; the channel stays free."""
    alice = await challenge_computer(table, table.alice, level=1)
    carol = await challenge_computer(table, table.carol, level=1)
    for line, member in ((alice, table.alice), (carol, table.carol)):
        thread = thread_of(table, line)
        assert thread.parent is table.channel
        assert thread.name == (
            f"{member.name} vs {table.me.name} (level 1) · Brandubh (World Tafl Federation)"
        )
        assert line.content == (
            f"**{member.name}** vs **{table.me.name} (level 1)** · Brandubh (World Tafl "
            f"Federation) — the game is on in <#{thread.id}>."
        )
        board = await table.wait_board(channel=thread)
        assert "against the computer (level 1)" in board.content
        assert f"<@{member.id}>" in board.content
    assert [m.id for m in table.public_messages()] == [alice.id, carol.id]
    thread = thread_of(table, alice)
    played = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert played.channel is thread
    reply = await table.wait_board(lambda m: "(defenders) played" in m.content, channel=thread)
    assert reply.channel is thread
    assert [m.id for m in table.public_messages()] == [alice.id, carol.id]


async def test_a_computer_game_in_a_thread_names_the_computer_not_a_mention_of_me(
    table: Harness,
) -> None:
    """The first board of alice's game against the computer in its thread says who attacks and
    who defends, and an admin's abort names the players: the computer is named
    "Brandubh (level 4)", as every other line names it, never by a mention of me, which shows
    neither its level nor that it is the computer."""
    line = await challenge_computer(table, table.alice, level=4, side="defenders")
    thread = thread_of(table, line)
    me = f"**{table.me.name} (level 4)**"
    first = await table.wait_board(lambda m: "Good game!" in m.content, channel=thread)
    assert f"{me} attacks, <@{table.alice.id}> defends. Good game!" in first.content
    assert f"<@{table.me.id}>" not in first.content
    aborted = await table.abort(table.admin, {"game": 1}, game_channel=thread)
    assert aborted.content.startswith(
        f"<@{table.admin.id}> aborted the match of {me} and <@{table.alice.id}>."
    )
    assert f"<@{table.me.id}>" not in aborted.content


async def test_a_member_may_play_five_matches_against_the_computer_at_once(
    table: Harness,
) -> None:
    """The sixth match alice asks the computer for while five are on is refused privately,
    with no thread opened; once she resigns one, she may start another. (Each /challenge of
    the computer opened a thread: one member could fill a server with them.)"""
    lines = [await challenge_computer(table, table.alice, level=1, sets=1) for _ in range(5)]
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.me})
    assert refused.ephemeral
    assert refused.content == (
        "You are already playing 5 matches against me in this server: finish one, or resign "
        f"it, first ({table.mention('games')} lists them)."
    )
    assert len(table.standin.world.threads_of(table.channel)) == 5
    carol = await challenge_computer(table, table.carol, level=1)
    assert carol.thread is not None
    thread = thread_of(table, lines[0])
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await (await table.standin.click(asked, asked.custom_ids()[0], table.alice)).wait_original()
    await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    again = await challenge_computer(table, table.alice, level=1)
    assert again.thread is not None


async def test_the_computer_line_shows_the_result_and_its_thread_archives(
    table: Harness,
) -> None:
    """Resigning a one-set match against the computer: the line shows the result."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    [confirm] = asked.custom_ids()
    await table.standin.click(asked, confirm, table.alice)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    assert f"**{table.me.name} (level 1)** won." in line.content
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=5)


async def test_a_rematch_that_begins_as_its_thread_is_archived_keeps_the_thread_open(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timer has read that the finished match's thread is due to archive when alice's
    rematch against the computer starts in it: the thread is archived, then opened again at
    once, since a game is being played in it."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    assert table.bot is not None
    boards = table.bot.services.boards
    read_due = boards.archives_due
    due_read, rematch_started = asyncio.Event(), asyncio.Event()

    async def due_then_rematch(now: Any = None) -> list[tuple[int, int]]:
        due = await read_due(now)
        if due:
            due_read.set()
            await rematch_started.wait()  # the rematch begins between the read and the archive
        return due

    monkeypatch.setattr(boards, "archives_due", due_then_rematch)
    table.advance(timedelta(minutes=11))
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    await asyncio.wait_for(due_read.wait(), timeout=5)
    started = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    await table.wait_board(lambda m: m.id > started.id, channel=thread)

    def thread_edits() -> int:
        log = table.standin.recorder.rest_log
        return sum(c.method == "PATCH" and c.path.endswith(f"/channels/{thread.id}") for c in log)

    before = thread_edits()
    rematch_started.set()
    await table.standin.wait_until(lambda: thread_edits() >= before + 2, timeout=5)  # and back
    assert not thread.archived
    assert await table.bot.services.games.in_channel(thread.id) is not None


async def test_a_rematchs_line_discord_would_not_edit_says_the_game_is_on_later(
    table: Harness,
) -> None:
    """alice resigns her match against the computer and presses Rematch, and Discord refuses
    the edit of the match's line that says the game is on again: the edit is owed, and the
    timers' check makes it once Discord takes it (before, the line showed the last match's
    result for good)."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    edit = f"/channels/{table.channel.id}/messages/{line.id}"
    refused = table.standin.fail_rest(
        403,
        seconds=600,
        code=50013,
        matching=lambda method, path: (method, path) == ("PATCH", edit),
    )
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    started = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    await table.wait_board(lambda m: m.id > started.id, channel=thread)
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=5)
    await table.checks_run(1)
    assert " won. " in line.content
    table.standin.end_faults()
    table.advance(timedelta(seconds=30))
    await table.checks_run(2)
    assert "the game is on" in line.content, line.content


async def test_a_rematchs_line_the_database_failed_says_the_game_is_on_later(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice presses Rematch after her match against the computer, and the database fails the
    server's language as the match's line is edited to say the game is on again: she is shown
    no apology for the rematch that began, and the edit is owed, made by the timers' check
    (before, she was told it could not be saved and the line showed the last result for good)."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    assert table.bot is not None
    settings, set_ends = table.bot.services.settings, table.bot.flow.set_ends
    read_settings, show_game_on = settings.get, set_ends.show_game_on
    editing: set[asyncio.Task[Any] | None] = set()

    async def settings_failing(guild_id: int) -> Any:
        if asyncio.current_task() in editing:
            raise StorageError("database is locked")
        return await read_settings(guild_id)

    async def show_game_on_failing(active: Any) -> None:
        editing.add(asyncio.current_task())  # the database fails the line's edit
        try:
            await show_game_on(active)
        finally:
            editing.clear()

    monkeypatch.setattr(settings, "get", settings_failing)
    monkeypatch.setattr(set_ends, "show_game_on", show_game_on_failing)
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    pressed = await table.standin.click(over, rematch, table.alice)
    started = await pressed.wait_original()
    await table.wait_board(lambda m: m.id > started.id, channel=thread)
    await table.checks_run(2)
    assert pressed.followups == [], [m.content for m in pressed.followups]
    assert "the game is on" in line.content, line.content


async def test_a_rematchs_owed_line_made_as_it_ends_does_not_write_over_its_result(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's rematch against the computer owes its line saying the game is on (Discord
    refused the edit); the timers' check reads the rematch still played, and she resigns it
    before the check edits the line: the line ends showing her rematch's result (before, the
    check's stale "the game is on" was written over the result the resignation had shown)."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
    edit = f"/channels/{table.channel.id}/messages/{line.id}"
    refused = table.standin.fail_rest(
        403,
        seconds=600,
        code=50013,
        matching=lambda method, path: (method, path) == ("PATCH", edit),
    )
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    started = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    await table.wait_board(lambda m: m.id > started.id, channel=thread)
    await table.standin.wait_until(lambda: refused.hits >= 1, timeout=5)
    table.standin.end_faults()
    assert table.bot is not None
    games, set_ends = table.bot.services.games, table.bot.flow.set_ends
    read_game, show_result = games.get, set_ends._show_result_on_line
    owed_read, result_shown, resigned = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def get_then_resign(set_id: int) -> Any:
        game = await read_game(set_id)
        if not owed_read.is_set():
            owed_read.set()
            await resigned.wait()  # she resigns between the check's read and its edit
        return game

    async def show_result_noted(end: Any) -> None:
        result_shown.set()
        await show_result(end)

    monkeypatch.setattr(games, "get", get_then_resign)
    monkeypatch.setattr(set_ends, "_show_result_on_line", show_result_noted)
    table.advance(timedelta(seconds=30))  # the timers' check reads the rematch's line owed
    await asyncio.wait_for(owed_read.wait(), timeout=5)
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    await asyncio.wait_for(result_shown.wait(), timeout=5)
    # Without a lock the resignation's edit lands at once; with one, it waits for the check's.
    with contextlib.suppress(AssertionError):
        await table.standin.wait_until(lambda: " won. " in line.content, timeout=1)
    resigned.set()
    await table.checks_run(2)
    await asyncio.wait_for(set_ends._line_edits.acquire(), timeout=5)  # the result's edit too
    set_ends._line_edits.release()
    assert " won. " in line.content, line.content
    assert "the game is on" not in line.content


async def test_a_result_owed_on_a_line_a_rematch_took_over_meanwhile_is_not_written_over_it(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice resigns her match against the computer and Discord refuses the edit of its line
    (owed); the timers' check reads it owed, and her rematch takes the line over before the
    check edits it: the line keeps saying the game is on (before, the old result was written
    over it)."""
    line = await challenge_computer(table, table.alice, level=1, sets=1)
    thread = thread_of(table, line)
    await table.wait_board(channel=thread)
    edit = f"/channels/{table.channel.id}/messages/{line.id}"
    refused = table.standin.fail_rest(
        403,
        seconds=600,
        code=50013,
        matching=lambda method, path: (method, path) == ("PATCH", edit),
    )
    asked = await table.reply_text(table.alice, "resign", channel=thread)
    await table.standin.click(asked, asked.custom_ids()[0], table.alice)
    over = await table.standin.wait_for_message(thread, lambda m: "wins the game" in m.content)
    await table.standin.wait_until(lambda: refused.hits == 1, timeout=5)
    table.standin.end_faults()
    assert table.bot is not None
    announcements = table.bot.services.announcements
    read_due = announcements.lines_due
    owed_read, rematch_started = asyncio.Event(), asyncio.Event()

    async def due_then_rematch(limit: int = 20) -> Any:
        due = await read_due(limit)
        if due and not owed_read.is_set():
            owed_read.set()
            await rematch_started.wait()  # the rematch begins between the read and the edit
        return due

    monkeypatch.setattr(announcements, "lines_due", due_then_rematch)
    table.advance(timedelta(seconds=30))  # the timers' check reads the line owed
    await asyncio.wait_for(owed_read.wait(), timeout=5)
    [rematch] = [c for c in over.custom_ids() if c.startswith("rematch:")]
    started = await (await table.standin.click(over, rematch, table.alice)).wait_original()
    await table.wait_board(lambda m: m.id > started.id, channel=thread)
    await table.standin.wait_until(lambda: " won. " not in line.content, timeout=5)
    rematch_started.set()
    await table.checks_run(2)
    assert " won. " not in line.content, line.content
    assert "the game is on" in line.content


async def test_a_refused_computer_thread_plays_in_the_channel_and_says_why(
    table: Harness,
) -> None:
    """Discord refusing the thread: the game against the computer is played in the channel,
    and the line the thread was to start from becomes its first board, saying why, as where no
    thread was tried (the board came apart, saying only "**Brandubh** begins.")."""
    table.standin.world.thread_creation_error = (403, 50013, "Missing Permissions")
    line = await challenge_computer(table, table.alice, level=1)
    assert line.thread is None
    board = await table.wait_board()
    assert board.id == line.id
    assert board.content.split("\n")[:2] == [
        f"<@{table.alice.id}> plays **Brandubh (World Tafl Federation)** against the computer "
        "(level 1).",
        "Discord would not let me open a thread, so the game is played here.",
    ], board.content
    assert board.custom_ids()
    assert len(table.public_messages()) == 1
    reply = await table.move(table.alice, "d1-b1")
    assert not reply.ephemeral, reply.content


async def test_a_computer_game_without_thread_permissions_says_why_in_its_answer(
    table: Harness,
) -> None:
    """I may not create threads in #games: the game against the computer is played there, and
    its first board, the answer to /challenge, says which permissions, as an accept does."""
    for role in (table.guild.everyone, *table.guild.roles):
        role.permissions &= ~CREATE_PUBLIC_THREADS
    board = await table.reply_text(table.alice, "challenge", {"opponent": table.me, "level": 1})
    assert not board.ephemeral, board.content
    assert board.content.split("\n")[1] == (
        "I may not create threads here (Create Public Threads and Send Messages in Threads), so "
        "the game is played in this channel."
    ), board.content
    assert table.standin.world.threads_of(table.channel) == []


async def test_a_computer_game_started_in_a_thread_says_why_it_is_played_there(
    table: Harness,
) -> None:
    """Challenged from inside a member's thread, the computer plays in that thread, and its
    first board says the channel is a thread already, as an accept there does."""
    corner = await table.standin.start_member_thread(table.channel, "alice's corner", table.alice)
    board = await table.reply_text(
        table.alice, "challenge", {"opponent": table.me, "level": 1}, channel=corner
    )
    assert not board.ephemeral, board.content
    assert board.content.split("\n")[1] == (
        "This channel is a thread already, so the game is played here."
    ), board.content
    assert (await table.wait_board(channel=corner)).id == board.id


async def test_a_refused_computer_match_opens_no_thread(table: Harness) -> None:
    """A channel where games are not allowed: one sentence, and nothing posted or opened."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.me})
    assert refused.ephemeral
    assert f"<#{lobby.id}>" in refused.content
    assert table.public_messages() == []
    assert table.standin.world.threads_of(table.channel) == []


async def test_a_challenge_that_expires_while_its_thread_opens_leaves_no_empty_thread(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob accepts just before the challenge expires and Discord is slow to make the thread:
    the match does not start, bob is told why, and the thread says so and is archived."""
    opened = ChallengeFlow._open_thread

    async def slow_open(
        flow: ChallengeFlow, message: discord.Message, challenge: Challenge, lang: Language
    ) -> tuple[discord.Thread | None, str | None]:
        made = await opened(flow, message, challenge, lang)
        table.advance(timedelta(minutes=11))  # the challenge expired meanwhile
        return made

    monkeypatch.setattr(ChallengeFlow, "_open_thread", slow_open)
    line = await challenge(table, table.alice, table.bob)
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    answer = await pressed.wait_original()
    assert answer.ephemeral
    assert answer.content == "That challenge has expired: challenge again."
    thread = thread_of(table, line)
    await table.standin.wait_until(lambda: thread.archived, timeout=5)
    assert [m.content for m in table.standin.messages(thread)] == [
        "That challenge has expired: challenge again."
    ]
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(thread.id) is None


@pytest.mark.parametrize("open_to_anyone", [False, True], ids=["to-bob", "open"])
async def test_accept_pressed_again_after_the_database_was_busy_starts_the_game(
    table: Harness, monkeypatch: pytest.MonkeyPatch, open_to_anyone: bool
) -> None:
    """An Accept made the game's thread, then the match could not be saved (a busy database):
    told to try again, bob presses Accept again and the game starts in that thread, named for
    its players (on a challenge open to anyone, carol's press had made it), not "That
    challenge is no longer open" (it still is: the thread left over was taken for a game)."""
    options: dict[str, OptionValue] = {"sets": 1}
    if not open_to_anyone:
        options["opponent"] = table.bob
    message = await table.reply_text(table.alice, "challenge", options)
    real = ChallengeService.accept
    refused: list[object] = []

    async def busy_once(self: ChallengeService, *args: Any, **kwargs: Any) -> Any:
        if not refused:
            refused.append(args)
            raise DatabaseBusy("the database is locked", "test")
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(ChallengeService, "accept", busy_once)
    button = f"challenge:accept:{challenge_id(message)}"
    first_presser = table.carol if open_to_anyone else table.bob
    first = await (await table.standin.click(message, button, first_presser)).wait_original()
    assert first.content == "The game could not be saved just now; try again."
    again = await table.standin.click(message, button, table.bob, wait=False)
    await table.standin.wait_answered(again, timeout=10)
    answer = await again.wait_original()
    assert not answer.ephemeral, answer.content
    thread = thread_of(table, message)
    board = await table.wait_board(channel=thread)
    assert f"<@{table.alice.id}>" in board.content
    assert table.standin.world.threads_of(table.channel) == [thread]
    assert thread.name.startswith("alice vs bob")
    assert not thread.archived
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert not reply.ephemeral, reply.content


async def test_accept_does_not_ask_the_challenger_to_write_messages(table: Harness) -> None:
    """Games get a thread each, in a #games that keeps chat out: alice may send neither
    messages nor messages in threads there, yet she challenged bob with a command, and plays
    with /move and the buttons, which need neither. bob's Accept starts their game in a thread
    and her /move there is played."""
    await table.standin.set_overwrite(
        table.channel,
        table.alice,
        deny=discord.Permissions(send_messages=True, send_messages_in_threads=True),
    )
    first = await challenge(table, table.alice, table.bob)
    await accept(table, first, table.bob)
    thread = thread_of(table, first)
    await table.wait_board(channel=thread)
    reply = await table.reply_text(table.alice, "move", {"move": "d1-b1"}, channel=thread)
    assert not reply.ephemeral, reply.content


@pytest.fixture
async def voice_table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server with a voice channel (#voice) and a stage channel (#stage), whose
    text chats take commands but no threads."""
    harness = Harness(
        discord_standin,
        tmp_path / "bot.sqlite3",
        channels=("games", "voice", "stage"),
        threads=True,
    )
    harness.guild.channel("voice").type = GUILD_VOICE
    harness.guild.channel("stage").type = GUILD_STAGE_VOICE
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


def bot_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the bot logged at WARNING or above during the test."""
    return [
        record.getMessage()
        for record in caplog.get_records("call")
        if record.name.startswith("bot.") and record.levelno >= logging.WARNING
    ]


async def test_a_challenge_in_a_voice_channels_chat_is_played_there_and_says_why(
    voice_table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Accepted in a voice channel's chat, which has no threads, the game is played in that
    chat, and the accept message says why (not that Discord refused a thread)."""
    voice = voice_table.guild.channel("voice")
    line = await voice_table.reply_text(
        voice_table.alice, "challenge", {"opponent": voice_table.bob, "sets": 1}, channel=voice
    )
    await accept(voice_table, line, voice_table.bob)
    assert line.thread is None
    assert line.content.endswith(
        "\nA voice or stage channel's chat cannot have threads, so the game is played here."
    ), line.content
    assert (await voice_table.wait_board(channel=voice)).channel is voice
    played = await voice_table.reply_text(
        voice_table.alice, "move", {"move": "d1-b1"}, channel=voice
    )
    assert not played.ephemeral, played.content
    assert bot_warnings(caplog) == []


async def test_a_game_against_the_computer_in_a_stage_channels_chat_is_played_there(
    voice_table: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Challenged from a stage channel's chat, the computer plays there at once: no thread
    is tried (which Discord would refuse, and the bot log as a failure), and its first board
    says why, as an accept there does."""
    stage = voice_table.guild.channel("stage")
    board = await voice_table.reply_text(
        voice_table.alice,
        "challenge",
        {"opponent": voice_table.me, "level": 1, "sets": 1},
        channel=stage,
    )
    assert board.content.split("\n")[1] == (
        "A voice or stage channel's chat cannot have threads, so the game is played here."
    ), board.content
    assert (await voice_table.wait_board(channel=stage)).id == board.id
    assert voice_table.standin.world.threads_of(stage) == []
    played = await voice_table.reply_text(
        voice_table.alice, "move", {"move": "d1-b1"}, channel=stage
    )
    assert not played.ephemeral, played.content
    assert bot_warnings(caplog) == []


async def test_a_computer_game_whose_line_cannot_be_edited_begins_in_its_thread(
    table: Harness,
) -> None:
    """Discord refuses the edit that points carol's /challenge line to her computer game's
    thread: the match is stored, so it begins all the same, the computer (attacking) opening it
    in the thread; before, the refused edit skipped the match's beginning and nothing came."""
    table.standin.fail_rest(
        404,
        seconds=60,
        code=10015,
        matching=lambda method, path: method == "PATCH" and path.endswith("/@original"),
    )
    await table.slash(
        table.carol, "challenge", {"opponent": table.me, "level": 1, "side": "defenders"}
    )
    await table.standin.wait_until(
        lambda: bool(table.standin.world.threads_of(table.channel)), timeout=10
    )
    [thread] = table.standin.world.threads_of(table.channel)
    board = await table.wait_board(lambda m: "(attackers) played" in m.content, channel=thread)
    assert f"<@{table.carol.id}>" in board.content


async def test_a_refused_computer_thread_whose_line_cannot_be_edited_posts_its_first_board(
    table: Harness,
) -> None:
    """Discord refuses carol's computer game a thread, then the edit that makes her /challenge
    line its first board: the match begins all the same, its first board (saying why) posted
    apart, and the computer, attacking, answers on it."""
    table.standin.world.thread_creation_error = (403, 50013, "Missing Permissions")
    table.standin.fail_rest(
        404,
        seconds=60,
        code=10015,
        matching=lambda method, path: method == "PATCH" and path.endswith("/@original"),
    )
    line = await table.reply_text(
        table.carol, "challenge", {"opponent": table.me, "level": 1, "side": "defenders"}
    )
    board = await table.wait_board()
    assert board.id != line.id
    assert board.content.split("\n")[1] == (
        "Discord would not let me open a thread, so the game is played here."
    ), board.content
    assert line.content == (
        f"<@{table.carol.id}> plays **Brandubh (World Tafl Federation)** against the computer "
        "(level 1)."
    )
    await table.wait_board(lambda m: "(attackers) played" in m.content)
