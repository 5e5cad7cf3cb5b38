"""A game between two members shown alike ("alex" twice) tells them apart in its mentions too:
"<@1> (@alex_w)" where each would read "@alex" — whose turn it is, the takeback request (and
its answer shown late), set and match ends, an admin's abort, who attacks next, the challenge
(accepted, expired or lapsed) and reminders. A failed read of their usernames costs no board
and no thread: they are shown alike then."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.alike_names import NamesToldApart
from bot.flow.posts import turn_line
from bot.i18n import Language, languages
from bot.timers import reminder_text
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import FakeMember
from tests.discord_standin.recorder import StoredMessage
from tests.test_bot_failed_reads import fails_once_in, origins_kept
from tests.test_bot_locked_threads import answered_while_locked
from tests.test_flow_boards_as_text import set_two

pytest_plugins = ["tests.discord_standin.fixtures"]

__all__ = ["origins_kept"]  # its coroutines remember where they were made (fails_once_in)

WON = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""A set its attackers win on its fifth move: the king captured."""


def tagged(member: FakeMember) -> str:
    """``member``'s mention as a message of the two alexes shows it (``_`` escaped)."""
    return f"<@{member.id}> (@{member.name.replace('_', chr(92) + '_')})"


def bare(text: str, *members: FakeMember) -> Iterator[str]:
    """The mentions of ``members`` in ``text`` that no username follows."""
    for member in members:
        for rest in text.split(f"<@{member.id}>")[1:]:
            if not rest.startswith(" (@"):
                yield f"<@{member.id}>{rest[:20]}"


async def alexes(table: Harness, sets: int) -> tuple[FakeMember, FakeMember, StoredMessage]:
    """alex_w challenges alex.k (both nicknamed "alex") to ``sets`` sets: the challenge."""
    first = table.standin.add_member(table.guild, "alex_w", nick="alex")
    second = table.standin.add_member(table.guild, "alex.k", nick="alex")
    posted = await table.reply_text(first, "challenge", {"opponent": second, "sets": sets})
    return first, second, posted


async def won_after_a_takeback(
    table: Harness, attacker: FakeMember, defender: FakeMember
) -> tuple[str, StoredMessage]:
    """``defender`` asks to take back his first move, ``attacker`` declines, and she wins the
    set (:data:`WON`): the request as it was asked, and the board of her winning move."""
    await table.move(attacker, WON[0])
    await table.move(defender, WON[1])
    asked = await table.reply_text(defender, "takeback")
    request = asked.content
    [decline] = [c for c in asked.custom_ids() if c.endswith(":decline")]
    await table.standin.click(asked, decline, attacker)
    for ply, move in enumerate(WON[2:], start=2):
        last = await table.move(attacker if ply % 2 == 0 else defender, move)
    return request, last


async def test_a_match_between_two_alexes_mentions_them_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Every mention in a two-set match between two members nicknamed "alex" is followed by
    their username, as a player reads them: the accepted challenge, whose turn it is, the half
    time reminder, the takeback request, who won set 1, who attacks in set 2, and the match."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        first, second, posted = await alexes(table, 2)
        w, k = tagged(first), tagged(second)
        await table.standin.click(posted, f"challenge:accept:{challenge_id(posted)}", second)
        opening = await table.wait_board(lambda m: m.created_at >= posted.created_at)
        await table.standin.wait_until(lambda: "accepted" in posted.content, timeout=5)
        assert posted.content.startswith(
            f"alex (@alex.k) accepted: {w} attacks, {k} defends. Good game!"
        ), posted.content
        assert f"Set 1 of 2 · move 1 · {w}, your move as the attackers" in opening.content
        table.advance(timedelta(hours=13))
        await table.checks_run(1)
        [reminder] = [m for m in table.public_messages() if "reminder:" in m.content]
        assert reminder.content.startswith(f"{w}, reminder: it is your move"), reminder.content
        asked, last = await won_after_a_takeback(table, first, second)
        assert asked.startswith(f"{w}, {k} asks to take back their last move (c4-c2)")
        assert f"{w} wins the set." in last.content, last.content
        assert f"Set 2 starts with sides swapped: {k} attacks, {w} defends." in last.content
        resign = await table.reply_text(second, "resign")
        await table.standin.click(resign, resign.custom_ids()[0], second)
        end = await table.wait_board(lambda m: "Match over" in m.content)
        assert f"**Match over:** {w} wins the match 2–0." in end.content, end.content
        seen = [m.content for m in (posted, opening, reminder, last, end)] + [asked]
        assert not [m for text in seen for m in bare(text, first, second)]


async def test_a_lapsed_challenge_between_two_alexes_mentions_them_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alex_w's challenge to alex.k lapses as its channel gets busy with another game: its
    message names both with their usernames."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        first, second, posted = await alexes(table, 1)
        await table.challenge_accepted(table.alice, table.bob)
        await table.standin.wait_until(lambda: "lapsed" in posted.content, timeout=5)
        assert posted.content == (
            f"{tagged(first)}'s challenge to {tagged(second)} lapsed: this channel is now busy "
            "with a game."
        ), posted.content


async def test_a_challenge_between_two_alexes_and_its_expiry_mention_them_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alex_w's challenge to alex.k names both with their usernames (as the /challenge just
    stored them: no read), and so does its message once it expired unanswered."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        first, second, posted = await alexes(table, 1)
        w, k = tagged(first), tagged(second)
        assert posted.content.startswith(
            f"{k}, {w} challenges you to **Brandubh (World Tafl Federation)**: a single set, "
            f"{w} plays the attackers"
        ), posted.content
        table.advance(timedelta(minutes=10, seconds=1))
        await table.standin.wait_until(lambda: "expired" in posted.content, timeout=30)
        assert posted.content == f"{w}'s challenge to {k} expired without an answer."


async def test_a_takeback_declined_in_a_locked_thread_mentions_two_alexes_apart_once_shown(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alex.k declines alex_w's takeback in a thread whose lock the bot missed: once the
    thread is unlocked, the request's message (edited by the outbox) names both apart."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        first = table.standin.add_member(table.guild, "alex_w", nick="alex")
        second = table.standin.add_member(table.guild, "alex.k", nick="alex")
        request, _ = await answered_while_locked(table, "decline", first, second)
        declined = f"{tagged(second)} declined {tagged(first)}'s takeback request."
        await table.standin.wait_until(lambda: request.content == declined, timeout=10)


async def test_an_admins_abort_of_a_match_between_two_alexes_mentions_them_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin aborts the match of alex_w and alex.k: the post names each with their
    username, and pings both."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        first, second, posted = await alexes(table, 2)
        await table.standin.click(posted, f"challenge:accept:{challenge_id(posted)}", second)
        await table.wait_board(lambda m: m.created_at >= posted.created_at)
        over = await table.abort(table.admin)
        assert over.content.startswith(
            f"<@{table.admin.id}> aborted the match of {tagged(first)} and {tagged(second)}."
        ), over.content
        assert over.pinged_user_ids() == {first.id, second.id}


async def test_a_game_between_alice_and_bob_mentions_them_as_ever(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice and bob, named apart, are mentioned bare: their turn, request and win (as
    before this change: it pins that they stay so)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        alice, bob = table.alice, table.bob
        opening = await table.challenge_accepted(alice, bob, sets=1)
        assert f"Move 1 · <@{alice.id}>, your move as the attackers" in opening.content
        asked, last = await won_after_a_takeback(table, alice, bob)
        assert asked.startswith(f"<@{alice.id}>, <@{bob.id}> asks to take back")
        assert f"<@{alice.id}> wins the game." in last.content, last.content
        assert " (@" not in last.content + asked + opening.content


async def test_a_board_whose_usernames_cannot_be_read_is_posted_alike(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database fails the two alexes' usernames as alex_w's first move is answered: its
    board is posted all the same, naming both "alex" (and mentioning them bare)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        first, second, posted = await alexes(table, 1)
        await table.standin.click(posted, f"challenge:accept:{challenge_id(posted)}", second)
        await table.wait_board(lambda m: m.created_at >= posted.created_at)
        assert table.bot is not None
        failed = fails_once_in(monkeypatch, table.bot.services.players, "usernames", "play_move")
        board = await table.move(first, WON[0])
        assert failed
        assert board.content.startswith("**alex** (attackers) played d1-b1"), board.content
        assert f"<@{second.id}>, your move as the defenders" in board.content
        assert "could not be posted" not in board.content


async def test_a_thread_whose_usernames_cannot_be_read_is_opened_alike(
    discord_standin: DiscordStandin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database fails the two alexes' usernames as their thread is named: the thread is
    opened all the same, named "alex vs alex", and its board (read after) tells them apart."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        first, second, posted = await alexes(table, 1)
        assert table.bot is not None
        failed = fails_once_in(monkeypatch, table.bot.services.players, "usernames", "_thread_name")
        pressed = await table.standin.click(
            posted, f"challenge:accept:{challenge_id(posted)}", second
        )
        assert pressed.answered
        await table.standin.wait_until(lambda: posted.thread is not None, timeout=10)
        assert failed
        assert posted.thread is not None
        assert posted.thread.name.startswith("alex vs alex · "), posted.thread.name
        board = await table.wait_board(channel=posted.thread)
        assert f"<@{first.id}> (@alex\\_w), your move as the attackers" in board.content


@pytest.mark.parametrize("lang", languages(), ids=str)
def test_a_turn_and_a_reminder_mention_an_alex_apart_in_every_language(lang: Language) -> None:
    """The turn line and the reminder put the username after the mention in every language
    (the same words: only the mention grows), and leave a mention bare without one."""
    game = set_two("brandubh")
    to_move = game.player_to_move
    names = NamesToldApart({to_move: "alex (@alex_w)"}, {to_move: "alex_w"})
    for text in (turn_line(game, lang, names), reminder_text(game, lang, last=True, names=names)):
        assert f"<@{to_move}> (@alex\\_w)" in text, text
    assert f"<@{to_move}> (@" not in turn_line(game, lang) + reminder_text(game, lang, last=True)
