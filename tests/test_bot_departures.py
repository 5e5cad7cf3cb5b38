"""A player who left the server does not keep the other waiting: their set and match end."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from PIL import Image, ImageSequence

from bot.services.domain import SetEnd
from bot.storage.errors import DatabaseBusy
from engine import Outcome, Reason, Side, read_record, read_tags
from renderer import render_board
from tests.bot_harness import Harness, challenge_id, eventually, running_bot, timers_checked
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.discord_standin.model import SEND_MESSAGES

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def bob_leaves_before_his_reminder(table: Harness) -> None:
    """carol and bob start a two-set match (an hour per move), carol moves, bob leaves the
    server, and his half-time reminder falls due."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(minutes=31))


def bob_left_lines(table: Harness, *, german: bool = False) -> list[str]:
    """The post of set 1's end when bob left before his reminder (carol wins the match by
    the walkover of set 2), line by line, in English or German: the live post and the
    outbox's late one say the same."""
    bob, carol = f"<@{table.bob.id}>", f"<@{table.carol.id}>"
    if german:
        return [
            "**Satz 1 von 2 ist nach 1 Zug vorbei.** Die Angreifer gewinnen: Die Verteidiger "
            "haben den Server verlassen.",
            f"{carol} gewinnt den Satz.",
            f"Ohne Wertung: {bob} hat darin nie gezogen.",
            f"Satz 2 wird nicht gespielt: {carol} gewinnt ihn ohne Zug.",
            f"**Match vorbei:** {carol} gewinnt das Match 2–0.",
        ]
    return [
        "**Set 1 of 2 is over** after 1 move. The attackers win: the defenders left the server.",
        f"{carol} wins the set.",
        f"It is not rated: {bob} never moved in it.",
        f"Set 2 is not played: {carol} wins it without a move.",
        f"**Match over:** {carol} wins the match 2–0.",
    ]


async def test_a_player_who_left_loses_at_the_reminder_and_the_match_ends(
    table: Harness,
) -> None:
    """bob leaves during set 1 of a two-set match (an hour per move): at his half-time
    reminder he is not pinged; the set is carol's at once, set 2 is not played, and carol
    wins the match — and is the one pinged."""
    await bob_leaves_before_his_reminder(table)
    over = await table.wait_board(lambda m: "left the server" in m.content)
    assert over.content.splitlines() == bob_left_lines(table)
    assert over.allowed_user_ids() == {table.carol.id}
    [picture] = over.attachments  # its caption and alt text say why too, not "Out of time"
    assert picture.data == await board_of_set_1(table)
    assert "carol (attackers) wins: the defenders left the server." in (picture.description or "")
    await timers_checked(table)
    shown = [m.content for m in table.public_messages()]
    assert not any("reminder" in text for text in shown), shown
    assert not any("Set 2 begins" in text for text in shown), shown
    refused = await table.move(table.carol, "d1-b1")
    assert refused.ephemeral  # nothing left to play: the match is over, not waiting
    # He is named by the name the bot keeps: Discord shows a mention of a member it cannot
    # find as "<@123…>".
    stats = await table.reply_text(table.carol, "stats", {"player": table.carol})
    [recent] = [f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Recent games"]
    assert all(
        " vs bob in " in line and "(bob left the server; unrated: bob never moved)" in line
        for line in recent.splitlines()
    ), recent


async def board_of_set_1(table: Harness) -> bytes:
    """The picture of set 1 of a two-set match lost by a player who left the server."""
    assert table.bot is not None
    exported = await table.bot.services.records.export(set_id=1, unnamed="a player")
    left = render_board(
        exported.game,
        attacker_name=exported.attacker_name,
        defender_name=exported.defender_name,
        set_number=1,
        sets_total=2,
        left_server=True,
    )
    assert left != render_board(  # "Out of time"
        exported.game,
        attacker_name=exported.attacker_name,
        defender_name=exported.defender_name,
        set_number=1,
        sets_total=2,
    )
    return left


async def test_no_set_starts_with_a_player_who_left(table: Harness) -> None:
    """bob leaves before alice's winning move in set 1: set 2 is not started with him; it is
    alice's without a move and she wins the match 2–0 (she made the move: nobody is pinged)."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN[:-1]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    await table.standin.remove_member(table.bob)
    over = await table.move(table.alice, ATTACKERS_WIN[-1])
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert f"{alice} wins the set." in over.content
    assert (
        f"{bob} has left the server, so set 2 is not played: {alice} wins it without a move."
        in over.content
    )
    assert f"**Match over:** {alice} wins the match 2–0." in over.content
    assert "Set 2 begins" not in over.content
    assert over.allowed_user_ids() == set()
    await timers_checked(table)  # nor does the outbox post set 2 later
    assert not any("Set 2" in m.content for m in table.public_messages())


async def test_a_set_starts_when_both_players_are_still_there(table: Harness) -> None:
    """The near miss: with both players in the server, set 2 begins after set 1."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    second = await table.wait_board(lambda m: "Set 2 begins" in m.content)
    assert f"<@{table.bob.id}>, your move as the attackers" in second.content


async def test_an_opponent_who_left_loses_at_the_reminder_of_the_player_to_move(
    table: Harness,
) -> None:
    """bob leaves while carol is to move: at carol's half-time reminder he loses the set (she
    is not reminded to play someone gone, nor left to lose on time to him), set 2 is not
    played, and carol wins the match."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(minutes=31))
    over = await table.wait_board(lambda m: "left the server" in m.content)
    bob, carol = f"<@{table.bob.id}>", f"<@{table.carol.id}>"
    assert over.content.splitlines() == [
        "**Set 1 of 2 is over** before any move. The attackers win: the defenders left the server.",
        f"{carol} wins the set.",
        f"It is not rated: {bob} never moved in it.",
        f"Set 2 is not played: {carol} wins it without a move.",
        f"**Match over:** {carol} wins the match 2–0.",
    ]
    assert over.allowed_user_ids() == {table.carol.id}  # bob, gone, is not pinged
    table.advance(timedelta(minutes=30))
    await timers_checked(table)
    shown = [m.content for m in table.public_messages()]
    assert not any("reminder" in text or "out of time" in text.lower() for text in shown), shown


async def test_discord_in_trouble_never_ends_a_game(table: Harness) -> None:
    """When Discord cannot say whether bob is a member (500), he is taken to be: he is
    reminded as usual and his set goes on."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    asked = table.standin.fail_rest(
        500, seconds=60, matching=lambda method, path: method == "GET" and "/members/" in path
    )
    table.advance(timedelta(minutes=31))
    reminder = await table.standin.wait_for_message(
        table.channel, lambda m: "reminder" in m.content
    )
    assert asked.hits >= 1
    assert reminder.pinged_user_ids() == {table.bob.id}
    assert not any("left the server" in m.content for m in table.public_messages())


async def test_a_player_who_left_in_german(discord_standin: DiscordStandin, tmp_path: Path) -> None:
    """The same in a German server: the players read why the set and the match ended."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.reply_text(table.admin, "settings", {"language": "de"})
        await bob_leaves_before_his_reminder(table)
        over = await table.wait_board(lambda m: "Server verlassen" in m.content)
        assert over.content.splitlines() == bob_left_lines(table, german=True)
        [picture] = over.attachments
        assert "carol (Angreifer) gewinnt: Die Verteidiger haben den Server verlassen." in (
            picture.description or ""
        )


async def test_a_departure_not_stored_now_holds_back_no_other_reminder(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob has left carol's game; ending his set meets a busy database once (as another program
    holding the write lock would make it): alice's reminder in #second is posted all the same,
    and bob's set ends at the next check. (One failure used to stop that check's reminders.)"""
    second = table.standin.add_channel(table.guild, "second")
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    asked = await table.reply_text(
        table.alice, "challenge", {"opponent": table.admin, "time": 60}, channel=second
    )
    await table.standin.click(asked, f"challenge:accept:{challenge_id(asked)}", table.admin)
    await table.wait_board(channel=second)
    await table.standin.remove_member(table.bob)
    assert table.bot is not None
    games = table.bot.services.games
    forfeit = games.forfeit
    failures: list[int] = []

    async def busy_once(set_id: int, player_id: int, *, walkover: bool = False) -> SetEnd:
        if not failures:
            failures.append(set_id)
            raise DatabaseBusy("the database is busy")
        return await forfeit(set_id, player_id, walkover=walkover)

    monkeypatch.setattr(games, "forfeit", busy_once)
    table.advance(timedelta(minutes=31))
    reminder = await table.standin.wait_for_message(second, lambda m: "reminder" in m.content)
    assert reminder.allowed_user_ids() == {table.alice.id}
    assert failures
    table.advance(timedelta(seconds=30))
    over = await table.wait_board(lambda m: "left the server" in m.content)
    assert "Set 2 is not played" in over.content


async def test_a_walkover_not_stored_now_does_not_unsay_the_move(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob has left before alice's winning move in set 1, and ending set 2 for him meets a busy
    database: her move, which was stored, is answered with its board (not "could not be
    saved"), and set 2 begins, to be ended at bob's reminder."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN[:-1]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    await table.standin.remove_member(table.bob)
    assert table.bot is not None
    games = table.bot.services.games

    async def busy(set_id: int, player_id: int, *, walkover: bool = False) -> SetEnd:
        raise DatabaseBusy("the database is busy")

    monkeypatch.setattr(games, "forfeit", busy)
    over = await table.move(table.alice, ATTACKERS_WIN[-1])
    assert not over.ephemeral, over.content
    assert f"<@{table.alice.id}> wins the set." in over.content
    assert "Set 2 starts with sides swapped" in over.content


async def one_set_each_then_alice_leaves(
    table: Harness, channel: FakeChannel | None = None
) -> None:
    """alice wins set 1 in 5 moves; in set 2 bob moves, alice leaves, and her half-time
    reminder finds her gone: bob wins set 2 in 1 move, the match 1–1."""
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await (await table.slash(who, "move", {"move": text}, channel=channel)).wait_original()
    await table.wait_board(lambda m: "Set 2 begins" in m.content, channel=channel)
    await (await table.slash(table.bob, "move", {"move": "d1-b1"}, channel=channel)).wait_original()
    await table.standin.remove_member(table.alice)
    table.advance(timedelta(minutes=31))


async def test_a_match_won_because_a_player_left_says_so(table: Harness) -> None:
    """At one set each, bob won the match because alice left the server in set 2, not
    by "winning his set in fewer moves": the match's result says so."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    await one_set_each_then_alice_leaves(table)
    over = await table.wait_board(lambda m: "Match over" in m.content)
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert f"{bob} wins the set." in over.content.splitlines()
    assert over.content.splitlines()[-1] == (
        f"**Match over:** {bob} wins the match 1–1, with one set each, by forfeit: {alice} "
        "left the server."
    ), over.content
    assert "fewer moves" not in over.content


async def test_a_thread_line_says_the_match_was_won_by_forfeit(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The same in a thread: the challenge line in the parent channel says bob won by
    forfeit, alice having left, not "on the tiebreak"."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        line = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "time": 60})
        await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
        assert line.thread is not None
        await table.wait_board(channel=line.thread)
        await one_set_each_then_alice_leaves(table, line.thread)
        await table.standin.wait_until(lambda: "forfeit" in line.content, timeout=10)
        assert "**bob** won the match 1–1 by forfeit: **alice** left the server." in line.content
        assert "tiebreak" not in line.content


async def end_posted_late(table: Harness) -> StoredMessage:
    """bob leaves carol's two-set match (an hour per move) while the bot may not post in the
    channel: his set ends at his reminder, its post is refused, and once the bot may post
    again the outbox posts it late. Returns that post."""
    await table.challenge_accepted(table.carol, table.bob, time=60)
    await table.move(table.carol, "d1-b1")
    await table.standin.remove_member(table.bob)
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    table.advance(timedelta(minutes=31))
    assert table.bot is not None
    games = table.bot.services.games

    async def over() -> bool:
        return await games.in_channel(table.channel.id) is None

    await eventually(over, True)
    earlier = {m.id for m in table.public_messages()}
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    return await table.wait_board(lambda m: m.id not in earlier)


async def test_a_set_end_posted_late_says_the_player_left_and_the_match_is_over(
    table: Harness,
) -> None:
    """The end of bob's set, posted late by the outbox, reads as the live post would: he left
    the server (not "ran out of time"), set 2 is not played, and carol wins the match."""
    late = await end_posted_late(table)
    assert late.content.splitlines() == bob_left_lines(table)
    assert late.allowed_user_ids() == {table.carol.id}  # as the live post: she may be away
    assert late.button("Rematch")
    [picture] = late.attachments  # as the live board: "Set 1 of 2", "Defenders left the server"
    assert picture.data == await board_of_set_1(table)
    assert "carol (attackers) wins: the defenders left the server." in (  # and alt text
        picture.description or ""
    )


async def test_a_set_end_posted_late_in_german(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The same late post in a German server."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await table.reply_text(table.admin, "settings", {"language": "de"})
        late = await end_posted_late(table)
        assert late.content.splitlines() == bob_left_lines(table, german=True)


async def test_export_records_who_left_and_the_set_not_played(table: Harness) -> None:
    """/export of a match bob left: each set is recorded as lost on time, as OpenTafl knows it,
    with a tag naming the side that left, and reads back to the same result; set 2, never
    played, is said to be not played because bob had left (not that it "has no moves")."""
    await bob_leaves_before_his_reminder(table)
    await table.wait_board(lambda m: "left the server" in m.content)
    message = await (await table.slash(table.carol, "export")).wait_followup()
    first, second, gif = message.attachments
    one, two = first.data.decode(), second.data.decode()
    assert "[left-server:defenders]\n[result:1]\n[termination:timeout]\n" in one
    assert "[left-server:attackers]\n[result:-1]\n[termination:timeout]\n" in two
    assert read_record(one).outcome == Outcome(Side.ATTACKERS, Reason.TIMEOUT)
    assert read_record(two).outcome == Outcome(Side.DEFENDERS, Reason.TIMEOUT)
    assert read_tags(two)["left-server"] == "attackers"
    assert message.content.endswith(
        "\nSet 2 was not played: **bob** had left the server, so it has no replay."
    ), message.content
    *_, last = ImageSequence.Iterator(Image.open(io.BytesIO(gif.data)))
    assert last.convert("RGB").tobytes() == (  # set 1's replay ends saying bob left
        Image.open(io.BytesIO(await board_of_set_1(table))).convert("RGB").tobytes()
    )


async def test_a_set_2_that_began_and_was_lost_by_leaving_is_no_walkover(table: Harness) -> None:
    """While I may not post in #games, bob runs out of time in set 1, set 2 begins with bob
    to move, he leaves the server, and his reminder ends set 2 at move 0. Posted late, set 1's
    end says set 2 started (not that it "is not played"), set 2's end says bob left, and
    /export says set 2 has no moves (not that it was not played)."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    await table.move(table.alice, "d1-b1")
    await table.standin.set_overwrite(table.channel, table.me, deny=SEND_MESSAGES)
    assert table.bot is not None
    games = table.bot.services.games

    async def set_number() -> int | None:
        playing = await games.in_channel(table.channel.id)
        return None if playing is None else playing.set_number

    table.advance(timedelta(minutes=61))  # bob's reminder, then his time runs out
    await eventually(set_number, 2)
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(minutes=31))  # his reminder in set 2 finds him gone
    await eventually(set_number, None)
    earlier = {m.id for m in table.public_messages()}
    await table.standin.set_overwrite(table.channel, table.me)
    table.advance(timedelta(seconds=30))  # the outbox's turn
    one, two = [
        (
            await table.wait_board(
                lambda m, n=n: m.id not in earlier and f"Set {n} of 2" in m.content
            )
        ).content
        for n in (1, 2)
    ]
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert one.splitlines() == [
        "**Set 1 of 2 is over** after 1 move. The attackers win: the defenders ran out of time.",
        f"{alice} wins the set.",
        f"It is not rated: {bob} never moved in it.",
        f"Set 2 starts with sides swapped: {bob} attacks, {alice} defends.",
    ]
    assert two.splitlines()[:3] == [
        "**Set 2 of 2 is over** before any move. The defenders win: the attackers left the server.",
        f"{alice} wins the set.",
        f"It is not rated: {bob} never moved in it.",
    ]
    message = await (await table.slash(table.alice, "export")).wait_followup()
    assert message.content.endswith("\nSet 2 has no moves, so it has no replay."), message.content


async def test_the_analysis_of_a_set_lost_by_leaving_says_so(table: Harness) -> None:
    """/analyse of a set bob lost by leaving the server says he left, as its end did and
    /export does, where it said he ran out of time (the set is recorded as lost on time)."""
    await table.challenge_accepted(table.carol, table.bob, time=60, sets=1)
    await table.move(table.carol, "d1-b1")
    await table.move(table.bob, "c4-c2")
    await table.standin.remove_member(table.bob)
    table.advance(timedelta(minutes=31))  # carol's reminder finds bob gone
    await table.wait_board(lambda m: "left the server" in m.content)
    review = await (await table.slash(table.alice, "analyse")).wait_original(
        lambda m: bool(m.attachments), timeout=60
    )
    assert "The attackers win: the defenders left the server." in review.content, review.content
    assert "ran out of time" not in review.content
