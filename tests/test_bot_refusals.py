"""Every refusal a player can meet: an ephemeral sentence saying why, and nothing changed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.services.errors import RepetitionNeedsConfirmation
from bot.storage.errors import StorageError
from bot.views import common
from tests.bot_harness import (
    Harness,
    challenge_id,
    running_bot,
    timers_checked,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import ATTACH_FILES, READ_MESSAGE_HISTORY

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def refusal(table: Harness, who: object, name: str, options: dict[str, object]) -> str:
    """Run a command that must be refused; return the sentence only ``who`` sees."""
    record = await table.slash(who, name, options)  # type: ignore[arg-type]
    message = await record.wait_original()
    assert message.ephemeral, f"/{name} was answered publicly: {message.content}"
    assert message.attachments == []
    assert "Traceback" not in message.content
    return message.content


async def test_challenging_yourself_is_refused(table: Harness) -> None:
    """A member cannot challenge themself."""
    text = await refusal(table, table.alice, "challenge", {"opponent": table.alice})
    assert "yourself" in text.lower()


async def test_challenging_another_bot_is_refused(table: Harness) -> None:
    """Bots other than this one cannot be challenged."""
    text = await refusal(table, table.alice, "challenge", {"opponent": table.other_bot})
    assert "bot" in text.lower()


async def test_a_member_who_cannot_see_the_channel_cannot_be_challenged_there(
    table: Harness,
) -> None:
    """In a private channel, challenging a member who cannot see it is refused, naming them
    and the reason; nothing is stored, so the same pair can play where both can see."""
    standin, private = table.standin, table.channel
    view = discord.Permissions(view_channel=True)
    await standin.set_overwrite(private, table.guild, deny=view)
    for member in (table.alice, table.carol, table.me):
        await standin.set_overwrite(private, member, allow=view)

    text = await refusal(table, table.alice, "challenge", {"opponent": table.bob})
    assert text == (
        f"{table.bob.mention} cannot see this channel, so they could not answer: challenge "
        "them in a channel they can see."
    )
    assert [m for m in standin.messages(private) if not m.ephemeral] == []

    # Nothing held the pair: the challenge in a channel bob sees is posted and pings him.
    lobby = table.guild.channel("lobby")
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob}, channel=lobby)
    assert not reply.ephemeral
    assert table.bob.mention in reply.content
    # And a member allowed in the private channel can be challenged there.
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.carol})
    assert not reply.ephemeral
    assert table.carol.mention in reply.content


async def test_busy_channel_suggests_another_channel_or_a_thread(table: Harness) -> None:
    """A second game in a channel is refused with a hint to use another channel or a thread."""
    await table.challenge_accepted(table.alice, table.bob)
    text = await refusal(table, table.carol, "challenge", {"opponent": table.admin})
    assert "thread" in text
    assert "channel" in text


async def test_move_without_a_game(table: Harness) -> None:
    """/move in a channel with no game says there is none."""
    text = await refusal(table, table.alice, "move", {"move": "d1-d3"})
    assert "no game" in text.lower()


async def test_move_by_a_spectator(table: Harness) -> None:
    """A member who is not playing cannot move."""
    await table.challenge_accepted(table.alice, table.bob)
    text = await refusal(table, table.carol, "move", {"move": "d1-b1"})
    assert "not playing" in text.lower()


async def test_move_out_of_turn(table: Harness) -> None:
    """The defender cannot move first; the message names who is to move."""
    await table.challenge_accepted(table.alice, table.bob)
    text = await refusal(table, table.bob, "move", {"move": "d3-a3"})
    assert "not your turn" in text.lower()
    assert f"<@{table.alice.id}>" in text


async def test_illegal_move_says_why_and_changes_nothing(table: Harness) -> None:
    """An attacker may not stop on the throne; the same move stays legal-checked afterwards."""
    await table.challenge_accepted(table.alice, table.bob)
    text = await refusal(table, table.alice, "move", {"move": "d2-d3"})
    assert "d3" in text
    reply = await table.move(table.alice, "d1-b1")
    assert "played d1-b1" in reply.content


async def test_unreadable_move_text(table: Harness) -> None:
    """Text that is not a move is explained with an example."""
    await table.challenge_accepted(table.alice, table.bob)
    text = await refusal(table, table.alice, "move", {"move": "king to the corner"})
    assert "d1-c1" in text


async def test_refused_text_is_shown_as_typed_not_as_markdown(table: Harness) -> None:
    """A refusal repeats ``**a4**``, `` `d1-d3` `` or ``||d1-d3||`` with its Markdown escaped, so
    the player sees what they typed, not a bold a4 or a valid-looking move in code or a
    spoiler being refused."""
    await table.challenge_accepted(table.alice, table.bob)
    shown = {
        "**a4**": r"\*\*a4\*\*",
        "`d1-d3`": r"\`d1-d3\`",
        "||d1-d3||": r"\|\|d1-d3\|\|",
    }
    for typed, escaped in shown.items():
        text = await refusal(table, table.alice, "move", {"move": typed})
        assert text == (
            f"'{escaped}' is not a move: write the piece's square and where it goes, like d1-c1."
        ), typed


async def test_autocomplete_offers_nothing_to_the_player_not_to_move(table: Harness) -> None:
    """Only the player to move gets move suggestions."""
    await table.challenge_accepted(table.alice, table.bob)
    for who in (table.bob, table.carol):
        choices = await table.standin.autocomplete(
            table.guild, table.channel, who, "move", focused="move", value=""
        )
        assert choices == []


async def test_autocomplete_matches_ignoring_case_and_separators(table: Harness) -> None:
    """Typing "D1 B" (or "d1 to b", "D1>B1", "d1→b", with an en dash, in full-width
    characters or Arabic-Indic digits, after a pasted zero-width space) offers d1-b1 and only
    it; text /move would refuse ("d1xb1") offers nothing."""
    await table.challenge_accepted(table.alice, table.bob)
    choices = await table.standin.autocomplete(
        table.guild, table.channel, table.alice, "move", focused="move", value="D1 B"
    )
    assert [c["value"] for c in choices] == ["d1-b1"]
    typing = (
        "d1 to b",
        "D1>B1",
        "d1\u2013b",
        "d1\u2212b",
        "k d1-b",
        "Kd1 to b1",
        "ｄ１－ｂ",
        "\u200bd1-b",
        "d1\u2192b",
        "d\u0661-b",
        "d\u06f1-b\u06f1",
    )
    for typed in typing:  # /move reads "k"
        choices = await table.standin.autocomplete(
            table.guild, table.channel, table.alice, "move", focused="move", value=typed
        )
        assert [c["value"] for c in choices] == ["d1-b1"], typed
    half_typed = await table.standin.autocomplete(  # "d1 t", on the way to "d1 to b1"
        table.guild, table.channel, table.alice, "move", focused="move", value="d1 t"
    )
    values = [c["value"] for c in half_typed]
    assert "d1-b1" in values
    assert all(value.startswith("d1-") for value in values)
    for typed in ("d1xb1", "xxxx"):  # /move refuses these: autocomplete offers nothing
        choices = await table.standin.autocomplete(
            table.guild, table.channel, table.alice, "move", focused="move", value=typed
        )
        assert choices == [], typed


async def test_only_the_opponent_may_accept(table: Harness) -> None:
    """A bystander pressing Accept is told the challenge is not theirs; it stays open."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    click = await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.carol)
    answer = await click.wait_original()
    assert answer.ephemeral
    assert reply.components, "the challenge lost its buttons"


async def test_the_challenger_pressing_accept_or_decline_is_told_to_withdraw(
    table: Harness,
) -> None:
    """alice presses Accept, then Decline, on her own challenge to bob: each is refused saying
    only bob can answer it and that she can withdraw it (it did not say how to take it back);
    it stays open."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    for action in ("accept", "decline"):
        click = await table.standin.click(
            reply, f"challenge:{action}:{challenge_id(reply)}", table.alice
        )
        answer = await click.wait_original()
        assert answer.ephemeral
        assert answer.content == (
            "Only the challenged player can answer this challenge: withdraw it if you no "
            "longer want to play."
        ), action
    assert reply.components, "the challenge lost its buttons"


async def test_accept_is_refused_when_the_challenger_can_no_longer_see_the_channel(
    table: Harness,
) -> None:
    """alice challenged bob in #games, then lost View Channel there: bob's Accept is refused in
    one sentence and the challenge stays open (it started a game alice could not play); once
    she may again, the same Accept starts it."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    accept = f"challenge:accept:{challenge_id(reply)}"
    await table.standin.set_overwrite(
        table.channel, table.alice, deny=discord.Permissions(view_channel=True)
    )
    click = await table.standin.click(reply, accept, table.bob)
    answer = await click.wait_original()
    assert answer.ephemeral
    assert answer.content == (
        f"<@{table.alice.id}> can no longer see this channel, so they could not play: this "
        "challenge cannot be accepted here."
    )
    assert reply.components, "the challenge lost its buttons"
    assert table.public_messages()[-1] is reply  # no board

    await table.standin.set_overwrite(table.channel, table.alice)
    assert (await table.standin.click(reply, accept, table.bob)).answered
    board = await table.wait_board()
    assert f"<@{table.alice.id}>, your move as the attackers" in board.content


async def test_challenger_can_withdraw(table: Harness) -> None:
    """The challenger's Withdraw closes the challenge and removes the buttons."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(reply, f"challenge:withdraw:{challenge_id(reply)}", table.alice)
    assert "withdrew" in reply.content
    assert reply.components == []


async def test_challenge_expires_after_ten_minutes(table: Harness) -> None:
    """An unanswered challenge is marked expired and its buttons go away."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: "expired" in reply.content, waiting_for="expiry")
    assert reply.components == []


async def test_accept_after_expiry_is_refused_and_the_buttons_go(table: Harness) -> None:
    """Accept pressed after ten minutes, before the expiry sweep, is refused and shows expiry."""
    assert table.bot is not None
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.bot.timers.stop()  # the click lands between two sweeps
    table.advance(timedelta(minutes=10, seconds=1))
    clicked = await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", table.bob)
    refused = await clicked.wait_followup()
    assert refused.ephemeral
    assert "expired" in refused.content
    # The challenge message is edited after the refusal is sent: wait for it, not for luck.
    await table.standin.wait_until(lambda: reply.components == [], timeout=5)
    assert "expired" in reply.content


async def test_accept_crossing_the_expiry_says_the_challenge_expired(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's Accept was checked in time, but the expiry sweep closed the challenge before his
    game could be stored: he is told it expired (it said only that it was no longer open),
    its message says so, and no game starts."""
    assert table.bot is not None
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    entered, go_on = waits_until_told(monkeypatch, table.bot.services.challenges, "accept")
    pressed = await table.standin.click(
        reply, f"challenge:accept:{challenge_id(reply)}", table.bob, wait=False
    )
    await entered.wait()
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: "expired" in reply.content, timeout=30)
    go_on.set()
    refused = await pressed.wait_original(lambda m: m.ephemeral, timeout=10)
    assert refused.content == "That challenge has expired: challenge again."
    assert reply.content == (
        f"<@{table.alice.id}>'s challenge to <@{table.bob.id}> expired without an answer."
    )
    assert reply.components == []
    assert not any(m.attachments for m in table.public_messages())


async def test_settings_need_manage_server(table: Harness) -> None:
    """/settings by a member without Manage Server is refused."""
    text = await refusal(table, table.alice, "settings", {})
    assert "Manage Server" in text


async def test_missing_attach_files_is_reported(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Where the bot may not attach files, /challenge says which permission it needs."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3")
    for role in [table.guild.everyone, *discord_standin.world.bot_member(table.guild).roles]:
        role.permissions &= ~ATTACH_FILES
    await table.start()
    try:
        text = await refusal(table, table.alice, "challenge", {"opponent": table.bob})
    finally:
        await table.stop()
    assert "Attach Files" in text


async def test_opponent_can_decline(table: Harness) -> None:
    """The opponent's Decline closes the challenge and removes the buttons."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(reply, f"challenge:decline:{challenge_id(reply)}", table.bob)
    assert "declined" in reply.content
    assert reply.components == []


async def test_a_declined_challenge_tells_the_challenger_in_a_reply(table: Harness) -> None:
    """bob declines alice's challenge: beside the edit (which pings nobody), a reply to the
    challenge tells alice, pinging her alone (she was never told)."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(reply, f"challenge:decline:{challenge_id(reply)}", table.bob)
    told = await table.standin.wait_for_message(
        table.channel, lambda m: "declined your challenge" in m.content
    )
    assert told.content == f"<@{table.alice.id}>, bob declined your challenge."
    assert told.reference is not None
    assert int(told.reference["message_id"]) == reply.id
    assert told.pinged_user_ids() == {table.alice.id}
    assert told.allowed_user_ids() == {table.alice.id}


async def test_a_decline_stored_while_the_language_is_unread_is_told_as_done(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob declines alice's challenge, stored, but the database then fails the server's
    language: the challenge still says he declined (in bob's language) and alice is told,
    not bob asked to try again on a challenge declined already."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert table.bot is not None
    flow = table.bot.flow

    async def unread(guild_id: int) -> Any:
        raise StorageError("database is locked")

    monkeypatch.setattr(flow, "server_language", unread)
    record = await table.standin.click(reply, f"challenge:decline:{challenge_id(reply)}", table.bob)
    assert reply.content == f"<@{table.bob.id}> declined the challenge."
    assert reply.components == []
    assert record.response_type == discord.InteractionResponseType.message_update.value
    assert record.followups == []
    await table.standin.wait_for_message(
        table.channel, lambda m: "bob declined your challenge" in m.content
    )


async def test_a_decline_is_told_without_a_reply_where_i_cannot_read_the_history(
    table: Harness,
) -> None:
    """Without Read Message History Discord refuses a reply (160002): the challenger is told
    all the same, in a message that is not a reply, pinging her alone."""
    await table.standin.set_overwrite(table.channel, table.me, deny=READ_MESSAGE_HISTORY)
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(reply, f"challenge:decline:{challenge_id(reply)}", table.bob)
    told = await table.standin.wait_for_message(
        table.channel, lambda m: "declined your challenge" in m.content
    )
    assert told.content == f"<@{table.alice.id}>, bob declined your challenge."
    assert told.reference is None
    assert told.pinged_user_ids() == {table.alice.id}


async def test_a_withdrawn_or_expired_challenge_sends_no_reply(table: Harness) -> None:
    """The near misses: alice withdraws her challenge to bob, and her next one expires; no
    message follows either (she knows, and nobody declined)."""
    withdrawn = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(
        withdrawn, f"challenge:withdraw:{challenge_id(withdrawn)}", table.alice
    )
    expiring = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    posts = len(table.public_messages())
    table.advance(timedelta(minutes=10, seconds=1))
    await table.standin.wait_until(lambda: "expired" in expiring.content, waiting_for="expiry")
    await timers_checked(table)  # nothing else comes of the expiry
    assert "withdrew" in withdrawn.content
    assert len(table.public_messages()) == posts
    assert not any("your challenge" in m.content for m in table.public_messages())


async def test_a_member_who_declined_is_not_challenged_again_at_once(table: Harness) -> None:
    """bob declines alice's challenge: her next challenge to him is refused to her alone (he
    is not pinged again) until fifteen minutes have passed; carol may still challenge him."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    await table.standin.click(reply, f"challenge:decline:{challenge_id(reply)}", table.bob)
    await table.standin.wait_for_message(
        table.channel, lambda m: "declined your challenge" in m.content
    )
    posts = len(table.public_messages())
    again = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert again.ephemeral
    assert again.content.startswith(
        f"<@{table.bob.id}> just declined your challenge: you can challenge them again <t:"
    )
    assert len(table.public_messages()) == posts
    other = await table.reply_text(table.carol, "challenge", {"opponent": table.bob})
    assert challenge_id(other)
    table.advance(timedelta(minutes=16))
    later = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert challenge_id(later)


async def test_withdrawing_and_challenging_again_pings_the_member_once_in_15_minutes(
    table: Harness,
) -> None:
    """alice challenges bob, withdraws and challenges him again, three times: he is pinged
    once, and alice is told privately when her challenges will ping him again; carol's ping
    him, and alice's do again fifteen minutes after the first. (Each pinged him: a member
    could ping another without end.)"""
    pinged = []
    for _ in range(3):
        record = await table.slash(table.alice, "challenge", {"opponent": table.bob})
        posted = await record.wait_original()
        pinged.append(posted.pinged_user_ids())
        await table.standin.click(posted, f"challenge:withdraw:{challenge_id(posted)}", table.alice)
    assert pinged == [{table.bob.id}, set(), set()]
    told = await record.wait_followup()
    assert told.ephemeral
    next_ping = int((table.now + timedelta(minutes=15)).timestamp())
    assert told.content == (
        f"Your challenge is posted without pinging <@{table.bob.id}>: your challenges ping them "
        f"at most once every 15 minutes (next <t:{next_ping}:R>)."
    )
    other = await table.reply_text(table.carol, "challenge", {"opponent": table.bob})
    assert other.pinged_user_ids() == {table.bob.id}
    table.advance(timedelta(minutes=15, seconds=1))
    later = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert later.pinged_user_ids() == {table.bob.id}


async def test_a_bug_is_logged_and_the_player_gets_an_apology(
    table: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected exception is logged with its traceback; the player sees no Python text."""
    assert table.bot is not None

    async def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(table.bot.services.standings, "leaderboard", broken)
    table.expect_apology = True
    text = await refusal(table, table.alice, "leaderboard", {})
    assert text.startswith("Sorry, something went wrong")
    assert "Zero" not in text
    [logged] = [r for r in caplog.records if r.name == "bot.errors"]
    assert logged.exc_info is not None
    assert logged.exc_info[0] is not None


# -- on a busy bot, /move is deferred at once: its refusals stay private -----------------------


@contextlib.contextmanager
def busy_process() -> Iterator[None]:
    """Ten other interactions at work in the bot's process (a busy evening): a /move is then
    deferred at once, and a deferred /move answers in public."""
    loop = asyncio.get_running_loop()
    others = [loop.create_future() for _ in range(common.BUSY)]
    common._at_work.update(others)
    try:
        yield
    finally:
        common._at_work.difference_update(others)
        for other in others:
            other.cancel()


SHUFFLE = ["a4-a5", "e4-e5", "a5-a4", "e5-e4", "a4-a5", "e4-e5", "a5-a4"]
"""After these, the defenders' e5-e4 would bring the start position back a third time."""


async def test_on_a_busy_bot_a_refused_move_is_still_private(table: Harness) -> None:
    """On a busy bot, carol (a spectator) types /move: "You are not playing the game in this
    channel." is hers alone, as when the bot is idle (it landed in the channel for all)."""
    await table.challenge_accepted(table.alice, table.bob)
    with busy_process():
        refusal = await table.reply_text(table.carol, "move", {"move": "d1-b1"})
        wrong = await table.reply_text(table.alice, "move", {"move": "d1-d4"})
    assert refusal.content == "You are not playing the game in this channel."
    assert refusal.ephemeral
    assert wrong.ephemeral, wrong.content


async def test_on_a_busy_bot_the_losing_repetition_warning_is_still_private(
    table: Harness,
) -> None:
    """On a busy bot, bob's /move repeating the position a third time gets its warning and
    "Play e5-e4 anyway" privately (they were posted in the channel)."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(SHUFFLE):
        reply = await table.move(table.alice if ply % 2 == 0 else table.bob, text)
        assert not reply.ephemeral, reply.content
    with busy_process():
        warning = await table.reply_text(table.bob, "move", {"move": "e5-e4"})
    assert "third time" in warning.content, warning.content
    assert warning.ephemeral


async def test_a_repetition_warning_as_the_opponent_resigns_is_no_apology(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice resigns the one-set game just as bob's /move gets its losing-repetition warning:
    bob sees the warning (not the apology: the game was read again, gone, and an assertion
    failed), and its "Play anyway" then says the game is over."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    for ply, text in enumerate(SHUFFLE):
        reply = await table.move(table.alice if ply % 2 == 0 else table.bob, text)
        assert not reply.ephemeral, reply.content
    assert table.bot is not None
    games = table.bot.services.games
    check = games.check_move

    async def resigned_meanwhile(*args: Any, **kwargs: Any) -> None:
        try:
            await check(*args, **kwargs)
        except RepetitionNeedsConfirmation:
            await games.resign(table.channel.id, table.alice.id)
            raise

    monkeypatch.setattr(games, "check_move", resigned_meanwhile)
    warning = await table.reply_text(table.bob, "move", {"move": "e5-e4"})
    assert warning.ephemeral
    assert "third time" in warning.content, warning.content
    [confirm] = warning.custom_ids()
    pressed = await (await table.standin.click(warning, confirm, table.bob)).wait_original()
    assert pressed.ephemeral
    assert pressed.content == "This board belongs to a game that is over."
