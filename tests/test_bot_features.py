"""The rest of what players and admins do: picker, confirmations, timers, records, stats, admin."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import pytest
from PIL import Image

from bot.cogs.info import rules_text
from bot.flow.uploads import MESSAGE_OVERHEAD, SMALL_WIDTH
from bot.i18n import language
from bot.views.picker import ACTION_ROWS, chunks
from engine import RULESETS, Game, Outcome, Reason, read_record, read_tags
from renderer import render_replay
from tests.bot_harness import Harness, challenge_id, move_button, running_bot
from tests.discord_standin import DiscordStandin, FakeMember
from tests.discord_standin.model import VIEW_CHANNEL

pytest_plugins = ["tests.discord_standin.fixtures"]

ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
SHUFFLE = ["a4-a5", "e4-e5", "a5-a4", "e5-e4", "a4-a5", "e4-e5", "a5-a4"]
"""After these, the defenders' e5-e4 would bring the start position back a third time."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def play(
    table: Harness, moves: list[str], attacker: FakeMember, defender: FakeMember
) -> None:
    """Play ``moves`` with /move, attacker first; each must be accepted."""
    for ply, text in enumerate(moves):
        reply = await table.move(attacker if ply % 2 == 0 else defender, text)
        assert not reply.ephemeral, reply.content


async def test_picker_offers_pieces_then_destinations(table: Harness) -> None:
    """The Move button lists the attackers that can move, then where the chosen one can go."""
    board = await table.challenge_accepted(table.alice, table.bob)
    opened = await table.standin.click(board, move_button(board), table.alice)
    picker = await opened.wait_original()
    [pieces] = picker.custom_ids()
    offered = [o["value"] for o in picker.component(pieces)["options"]]  # type: ignore[index]
    assert sorted(offered) == ["a4", "b4", "d1", "d2", "d6", "d7", "f4", "g4"]
    chosen = await table.standin.select(picker, pieces, table.alice, ["d1"])
    step_two = await chosen.wait_original()
    [where] = step_two.custom_ids()
    options = [o["value"] for o in step_two.component(where)["options"]]  # type: ignore[index]
    assert options == ["d1-b1", "d1-c1", "d1-e1", "d1-f1"]
    assert step_two.attachments
    assert step_two.attachments[0].data.startswith(b"\x89PNG")


async def test_a_picker_split_over_two_selects_says_which_squares_each_holds(
    table: Harness,
) -> None:
    """On 15x15 the attackers' 28 movable pieces need two selects of at most 25: each names
    the first and last square it lists, so a player finds o11 without opening both."""
    board = await table.challenge_accepted(table.alice, table.bob, ruleset="hnefatafl-15")
    opened = await table.standin.click(board, move_button(board), table.alice)
    picker = await opened.wait_original()
    selects = [picker.component(c) for c in picker.custom_ids()]
    first, more = [select for select in selects if select is not None]
    assert len(first["options"]) == 25
    for select, words in ((first, "Choose a piece"), (more, "More pieces")):
        squares = [o["value"] for o in select["options"]]
        assert select["placeholder"] == f"{words} ({squares[0]}–{squares[-1]})"


def test_a_picker_holds_five_selects_alone_or_four_beside_a_button() -> None:
    """130 options fill a message's 5 action rows with selects of 25 (a game's picker, selects
    alone), or 4 where a button takes the last row (a puzzle's Give up)."""
    options = [discord.SelectOption(label=f"o{n}") for n in range(130)]
    assert [len(part) for part in chunks(options)] == [25] * 5
    assert [len(part) for part in chunks(options, rows=ACTION_ROWS - 1)] == [25] * 4


async def test_move_button_refuses_the_player_not_to_move(table: Harness) -> None:
    """bob pressing Move on alice's turn is told whose turn it is; no picker opens."""
    board = await table.challenge_accepted(table.alice, table.bob)
    opened = await table.standin.click(board, move_button(board), table.bob)
    answer = await opened.wait_original()
    assert answer.ephemeral
    assert "not your turn" in answer.content.lower()
    assert answer.custom_ids() == []


async def test_third_repetition_needs_confirmation(table: Harness) -> None:
    """The losing repetition is only played after the warning's button is pressed."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, SHUFFLE, table.alice, table.bob)
    warning = await table.move(table.bob, "e5-e4")
    assert warning.ephemeral
    assert "third time" in warning.content
    [confirm] = warning.custom_ids()
    await table.standin.click(warning, confirm, table.bob)
    board = await table.wait_board(lambda m: "repeated a position for the third time" in m.content)
    assert "played e5-e4" in board.content


async def test_resign_asks_first_and_set_two_follows(table: Harness) -> None:
    """/resign only warns; confirming ends set 1 and set 2 starts with sides swapped."""
    await table.challenge_accepted(table.alice, table.bob)
    asked = await table.reply_text(table.alice, "resign")
    assert asked.ephemeral
    assert "Resign set 1?" in asked.content
    [confirm] = asked.custom_ids()
    await table.standin.click(asked, confirm, table.alice)
    over = await table.wait_board(lambda m: "resigned" in m.content)
    assert f"<@{table.bob.id}> wins the set" in over.content
    second = await table.wait_board(lambda m: "Set 2 begins" in m.content)
    assert f"<@{table.bob.id}>, your move as the attackers" in second.content


async def test_a_match_of_one_set_speaks_of_one_game(table: Harness) -> None:
    """A one-set match is one game: its board says no "set 1 of 1", /resign asks to resign the
    game, and its end says who won the game without a second "match over" line."""
    board = await table.challenge_accepted(table.alice, table.bob, sets=1)
    [picture] = board.attachments
    assert "set 1" not in (picture.description or "").lower()
    asked = await table.reply_text(table.alice, "resign")
    assert asked.content == "Resign the game? You lose it."
    await table.standin.click(asked, asked.button("Resign the game")["custom_id"], table.alice)
    over = await table.wait_board(lambda m: "resigned" in m.content)
    assert f"<@{table.bob.id}> wins the game." in over.content
    assert "Match" not in over.content
    assert asked.content == "You resigned the game."


async def test_a_one_set_match_aborted_says_the_game_was(table: Harness) -> None:
    """/abort of a one-set match: the game is aborted, no result, unrated — no match talk."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    aborted = await table.abort(table.admin)
    assert "**Game aborted:** it has no result and is unrated." in aborted.content
    assert "Match" not in aborted.content


async def test_reminder_at_half_time_then_loss_on_time(table: Harness) -> None:
    """With an hour per move: a reminder after 30 minutes, the set lost after 60."""
    await table.challenge_accepted(table.alice, table.bob, time=60)
    table.advance(timedelta(minutes=31))
    reminder = await table.standin.wait_for_message(
        table.channel, lambda m: "reminder" in m.content
    )
    assert f"<@{table.alice.id}>" in reminder.content
    table.advance(timedelta(minutes=30))
    over = await table.wait_board(lambda m: "ran out of time" in m.content)
    assert f"<@{table.bob.id}> wins the set" in over.content


async def test_export_gives_the_record_and_a_replay(table: Harness) -> None:
    """/export attaches an OpenTafl record that reads back and an animated GIF."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ["d1-b1", "d3-a3"], table.alice, table.bob)
    record = await table.slash(table.carol, "export")
    message = await record.wait_followup()
    text, gif = message.attachments
    assert [str(r.move) for r in read_record(text.data.decode()).records] == ["d1-b1", "d3-a3"]
    with Image.open(io.BytesIO(gif.data)) as replay:
        assert replay.format == "GIF"
        assert getattr(replay, "n_frames", 1) == 3


async def test_export_of_a_one_set_match_names_its_files_for_the_game(table: Harness) -> None:
    """A one-set match's /export heading says "Game N", and its files are game-N.txt and
    game-N.gif (they were match-M-set-1: a set and a match the heading never spoke of)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, ["d1-b1", "d3-a3"], table.alice, table.bob)
    message = await (await table.slash(table.carol, "export")).wait_followup()
    text, gif = message.attachments
    game = read_tags(text.data.decode())["game-id"]
    assert message.content == f"Game {game} in OpenTafl notation."
    assert [text.filename, gif.filename] == [f"game-{game}.txt", f"game-{game}.gif"]


async def test_export_past_the_upload_limit_draws_the_replay_smaller(table: Harness) -> None:
    """Where the server's upload limit would refuse the replay at its own size, /export posts
    it drawn at a phone's width instead."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ["d1-b1", "d3-a3"], table.alice, table.bob)
    game = read_record((await export_text(table)).decode())
    small = render_replay(game, width=SMALL_WIDTH)
    assert len(render_replay(game)) > len(small) + 2000
    table.guild.attachment_size_limit = MESSAGE_OVERHEAD + len(small) + 2000
    message = await (await table.slash(table.carol, "export")).wait_followup()
    _text, gif = message.attachments
    with Image.open(io.BytesIO(gif.data)) as replay:
        assert replay.width == SMALL_WIDTH


async def test_export_past_the_upload_limit_leaves_the_replay_out(table: Harness) -> None:
    """Where even a small replay would pass the server's upload limit, /export posts the
    record alone and says why the replay is missing."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ["d1-b1", "d3-a3"], table.alice, table.bob)
    table.guild.attachment_size_limit = MESSAGE_OVERHEAD + 1000
    message = await (await table.slash(table.carol, "export")).wait_followup()
    [text] = message.attachments
    assert text.filename.endswith(".txt")
    assert message.content.endswith(
        "The replay of set 1 is too large to post here; the record has every move."
    )


async def test_export_of_an_aborted_match_gives_files_opentafl_opens(table: Harness) -> None:
    """alice wins set 1, then the admin aborts the match before set 2's first move: /export
    gives one OpenTafl record a set (rules tag, YYYY.MM.DD date, result ? for the aborted
    set), set 1's replay labelled "set 1 of 2", and for set 2 a line instead of a replay."""
    started = table.now
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    await table.wait_board(lambda m: "Set 2" in m.content)
    await table.abort(table.admin)
    message = await (await table.slash(table.carol, "export")).wait_followup()
    match = message.attachments[0].filename.split("-")[1]
    first, second, gif = message.attachments
    assert [first.filename, second.filename, gif.filename] == [
        f"match-{match}-set-1.txt",
        f"match-{match}-set-2.txt",
        f"match-{match}-set-1.gif",
    ]
    one, two = first.data.decode(), second.data.decode()
    date = started.strftime("%Y.%m.%d")
    rules = "[rules:dim:7 esc:c ka:y ks:c tfr:l cenhe:tT kbt:2 dbt:n dca:n start:"
    assert one.startswith(
        f"[variant:brandubh]\n[attackers:alice]\n[defenders:bob]\n[set:1/2]\n[date:{date}]\n"
    )
    assert f"[result:1]\n[termination:king_captured]\n{rules}" in one
    assert one.endswith("]\n\n1. d1-b1 c4-c2\n2. b4-b5 d4-b4\n3. b1-b3xb4\n")
    assert "[attackers:bob]\n[defenders:alice]\n[set:2/2]\n" in two
    assert f"[result:?]\n[termination:aborted]\n{rules}" in two
    assert two.endswith("]\n\n")
    set_one, set_two = read_record(one), read_record(two)
    assert [str(r.move) for r in set_one.records] == ATTACKERS_WIN
    assert set_two.outcome == Outcome(None, Reason.ABORTED)
    assert set_two.ply == 0
    assert message.content.endswith("\nSet 2 has no moves, so it has no replay.")
    labelled = render_replay(
        set_one, attacker_name="alice", defender_name="bob", set_number=1, sets_total=2
    )
    assert gif.data == labelled
    assert gif.data != render_replay(set_one, attacker_name="alice", defender_name="bob")


async def test_export_of_a_game_aborted_before_its_first_move_has_no_replay(
    table: Harness,
) -> None:
    """A one-set match aborted at once: /export gives its record alone and says in one line,
    speaking of the game (not a set), that there is no replay."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.abort(table.admin)
    message = await (await table.slash(table.carol, "export")).wait_followup()
    [record] = message.attachments
    game = read_tags(record.data.decode())["game-id"]
    assert record.filename == f"game-{game}.txt"
    assert message.content == (
        f"Game {game} in OpenTafl notation.\nThe game has no moves, so it has no replay."
    )


async def export_text(table: Harness) -> bytes:
    """The OpenTafl record /export attaches for this channel's match."""
    message = await (await table.slash(table.carol, "export")).wait_followup()
    return message.attachments[0].data


async def test_export_refusals_are_private(table: Harness) -> None:
    """/export of a set still being played, or where there is no game, is refused to the one
    who asked alone (it was posted for the whole channel to see)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    assert table.bot is not None
    [active] = await table.bot.services.games.active()
    refused = await table.reply_text(table.carol, "export", {"game": active.set_id})
    assert refused.ephemeral
    assert refused.content == f"Game {active.set_id} is still being played: export it after."
    side = table.guild.channel("side")
    refused = await table.reply_text(table.carol, "export", channel=side)
    assert refused.ephemeral
    assert refused.content.startswith("There is no game to export in this channel")


async def test_a_private_channels_game_is_exported_and_analysed_only_there(
    table: Harness,
) -> None:
    """alice and bob played in #side, which @everyone cannot see: carol's /export game:N and
    /analyse game:N in #games are refused (they posted the record, replay and review for all
    to see); inside #side they work."""
    side = table.guild.channel("side")
    await table.standin.set_overwrite(side, table.guild, deny=VIEW_CHANNEL)
    for member in (table.alice, table.bob, table.me):
        await table.standin.set_overwrite(side, member, allow=VIEW_CHANNEL)
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob, "sets": 1}, channel=side
    )
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    await table.wait_board(channel=side)
    assert table.bot is not None
    [active] = await table.bot.services.games.active()
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        moved = await table.reply_text(who, "move", {"move": text}, channel=side)
        assert not moved.ephemeral, moved.content
    for command in ("export", "analyse"):
        refused = await table.reply_text(table.carol, command, {"game": active.set_id})
        assert refused.ephemeral
        assert refused.content == (
            f"Game {active.set_id} was played in a channel not everyone here can see: ask for "
            "it there."
        )
    exported = await table.slash(table.alice, "export", {"game": active.set_id}, channel=side)
    assert (await exported.wait_followup()).attachments


async def test_rules_explain_with_a_picture(table: Harness) -> None:
    """/rules answers privately with the corner-escape goal and a rules picture."""
    rules = await table.reply_text(table.carol, "rules")
    assert rules.ephemeral
    assert "corner" in rules.content
    assert rules.attachments[0].data.startswith(b"\x89PNG")


async def test_rules_of_a_ruleset_asked_for(table: Harness) -> None:
    """/rules ruleset:tablut explains Tablut (the edge escape), whatever the server plays."""
    rules = await table.reply_text(table.carol, "rules", {"ruleset": "tablut"})
    assert rules.ephemeral
    assert rules.content.startswith("**Tablut (9x9)**")
    assert "Tablut" in (rules.attachments[0].description or "")


DOCS = Path(__file__).resolve().parent.parent / "docs"


async def test_rules_attach_the_full_rules_page_in_the_readers_language(table: Harness) -> None:
    """/rules attaches docs/rules.md itself, and a Portuguese reader gets docs/rules.pt-BR.md."""
    rules = await table.reply_text(table.carol, "rules")
    page = rules.attachments[1]
    assert page.filename == "rules.md"
    assert page.data == (DOCS / "rules.md").read_bytes()
    assert "attached rules page" in rules.content
    table.carol.user.locale = "pt-BR"
    rules = await table.reply_text(table.carol, "rules")
    page = rules.attachments[1]
    assert page.filename == "rules.pt-BR.md"
    assert page.data == (DOCS / "rules.pt-BR.md").read_bytes()
    assert "página de regras anexada" in rules.content


async def test_stats_show_rating_and_head_to_head(table: Harness) -> None:
    """After alice beats bob in a one-set match, bob's /stats on alice shows both."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    stats = await table.reply_text(table.bob, "stats", {"player": table.alice})
    [embed] = stats.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert float(fields["Rating"].rstrip("?")) > 1500
    assert fields["Head to head with bob"].startswith("bob won 0, alice won 1")


async def test_stats_of_a_player_who_left_show_their_record(table: Harness) -> None:
    """bob, beaten by alice, leaves the server: he is still on /leaderboard, and /stats of
    him shows his record under his stored name, saying he left — not a refusal."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    await table.standin.remove_member(table.bob)
    board = await table.reply_text(table.alice, "leaderboard")
    assert "**bob**" in board.embeds[0]["description"]
    stats = await table.reply_text(table.alice, "stats", {"player": table.bob.user})
    assert not stats.ephemeral
    [embed] = stats.embeds
    assert embed["title"] == "bob at Brandubh (World Tafl Federation)"
    assert embed["description"] == "**bob** has left this server."
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert float(fields["Rating"].rstrip("?")) < 1500
    assert fields["Head to head with alice"].startswith("alice won 1, bob won 0")


async def test_players_are_named_even_when_their_names_were_not_kept(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's keeping of names fails (a busy database, say): the challenge and its accept
    store the players' names with them all the same, so /leaderboard and /stats name them,
    never by a user id."""
    assert table.bot is not None

    async def kept_nothing(user: object) -> None:
        return None

    monkeypatch.setattr(table.bot, "remember", kept_nothing)
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    board = await table.reply_text(table.carol, "leaderboard")
    rows = board.embeds[0]["description"].splitlines()
    assert [row.split("**")[1] for row in rows] == ["alice", "bob"], rows
    stats = await table.reply_text(table.carol, "stats", {"player": table.bob})
    assert stats.embeds[0]["title"] == "bob at Brandubh (World Tafl Federation)"


async def test_stats_name_players_by_the_names_discord_gave_with_the_command(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot has not stored carol's and dave's names yet (its keeping of names still waits
    on a busy database, say): carol's /stats and her /stats of dave name them by the names
    Discord gave with the command, not as "a player"."""
    assert table.bot is not None

    async def kept_nothing(user: object) -> None:
        return None

    monkeypatch.setattr(table.bot, "remember", kept_nothing)
    dave = table.standin.add_member(table.guild, "dave")
    mine = await table.reply_text(table.carol, "stats")
    assert mine.embeds[0]["title"] == "carol at Brandubh (World Tafl Federation)"
    theirs = await table.reply_text(table.carol, "stats", {"player": dave})
    assert theirs.embeds[0]["title"] == "dave at Brandubh (World Tafl Federation)"


async def test_abort_is_for_admins_and_frees_the_channel(table: Harness) -> None:
    """A member cannot /abort; an admin can, and the channel takes a new challenge."""
    await table.challenge_accepted(table.alice, table.bob)
    refused = await table.reply_text(table.alice, "abort")
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    aborted = await table.abort(table.admin)
    assert "aborted" in aborted.content
    assert not aborted.ephemeral
    again = await table.reply_text(table.carol, "challenge", {"opponent": table.bob})
    assert challenge_id(again)


async def test_abort_asks_first_and_changes_nothing_until_confirmed(table: Harness) -> None:
    """/abort only asks, privately, naming the match; the game goes on until the admin presses
    the button, which then says what was done."""
    await table.challenge_accepted(table.alice, table.bob)
    asked = await table.reply_text(table.admin, "abort")
    assert asked.ephemeral
    assert asked.content.startswith("Abort the match of **alice** against **bob** (game ")
    assert asked.content.endswith(
        "set 1 of 2)? It ends without a match result, and this set is unrated."
    )
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(table.channel.id) is not None
    await table.standin.click(asked, asked.button("Abort the match")["custom_id"], table.admin)
    board = await table.wait_board(lambda m: "aborted the match" in m.content)
    assert "Match aborted" in board.content
    assert asked.content == "You aborted the match."
    assert await table.bot.services.games.in_channel(table.channel.id) is None


async def test_abort_names_the_players_in_set_one_order_in_set_two(table: Harness) -> None:
    """In set 2 (bob attacks) /abort and its post name alice and bob in set 1's order, as
    the question for set 1 does, not the other way round."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    await table.wait_board(lambda m: "Set 2 begins" in m.content)
    asked = await table.reply_text(table.admin, "abort")
    assert asked.content.startswith("Abort the match of **alice** against **bob** (game ")
    assert "set 2 of 2)?" in asked.content
    await table.standin.click(asked, asked.button("Abort the match")["custom_id"], table.admin)
    board = await table.wait_board(lambda m: "aborted the match" in m.content)
    alice, bob = f"<@{table.alice.id}>", f"<@{table.bob.id}>"
    assert board.content.startswith(f"<@{table.admin.id}> aborted the match of {alice} and {bob}.")


async def test_an_abort_confirmed_after_its_set_ended_says_so(table: Harness) -> None:
    """The admin asks to abort set 1, alice wins it before the press: the press aborts nothing
    and says to ask again, since the match goes on in set 2."""
    await table.challenge_accepted(table.alice, table.bob)
    asked = await table.reply_text(table.admin, "abort")
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    await table.wait_board(lambda m: "Set 2" in m.content)
    pressed = await table.standin.click(asked, asked.custom_ids()[0], table.admin)
    refusal = await pressed.wait_original()
    assert refusal.ephemeral
    assert refusal.content.startswith("That set is over: if its match goes on, ask ")
    assert table.bot is not None
    assert await table.bot.services.games.in_channel(table.channel.id) is not None


@pytest.mark.parametrize("sets", [1, 2])
async def test_an_abort_confirmed_after_its_match_ended_says_so(table: Harness, sets: int) -> None:
    """The admin asks to abort alice and bob's match, and bob resigns its last set before the
    press: the press aborts nothing and says the game (a one-set match) or the match is over,
    not that a set is over and to ask again "if its match goes on" (it cannot: it is over)."""
    await table.challenge_accepted(table.alice, table.bob, sets=sets)
    if sets == 2:
        await play(table, ATTACKERS_WIN, table.alice, table.bob)
        await table.wait_board(lambda m: "Set 2" in m.content)
    asked = await table.reply_text(table.admin, "abort")
    resign = await table.reply_text(table.bob, "resign")
    [confirm] = [c for c in resign.custom_ids() if c.startswith("resign:")]
    await table.standin.click(resign, confirm, table.bob)
    await table.wait_board(lambda m: "resigned" in m.content and "wins the" in m.content)
    pressed = await table.standin.click(asked, asked.custom_ids()[0], table.admin)
    refusal = await pressed.wait_original()
    assert refusal.ephemeral
    assert refusal.content == ("That game is over." if sets == 1 else "That match is over.")
    assert not any(" aborted the " in m.content for m in table.public_messages())


async def test_abort_by_number_refuses_a_game_not_in_progress(table: Harness) -> None:
    """/abort game:999 names the number it could not find, and changes nothing."""
    await table.challenge_accepted(table.alice, table.bob)
    refused = await table.reply_text(table.admin, "abort", {"game": 999})
    assert refused.ephemeral
    assert refused.content == "There is no game 999 in progress in this server."
    assert refused.custom_ids() == []


async def test_aborting_set_two_does_not_deny_set_ones_rating_change(table: Harness) -> None:
    """After a rated set 1, aborting set 2 says only the aborted set is unrated."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)
    aborted = await table.abort(table.admin)
    assert "Match aborted" in aborted.content
    assert "without rating changes" not in aborted.content
    assert "aborted set is unrated" in aborted.content


def test_rules_name_the_board_size_once() -> None:
    """The /rules heading does not repeat a size the ruleset's title already gives."""
    heading = rules_text("tablut").splitlines()[0]
    assert heading.count("9x9") == 1, heading


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_rules_give_an_example_move_the_attackers_may_open_with(name: str) -> None:
    """/rules' example `/move` is a legal first move of its own ruleset: on 15x15 there is
    no piece on d1, so "d1-c1" would only be refused."""
    [example] = re.findall(r"`/move (\S+)`", rules_text(name))
    assert Game(name).is_legal(example), (name, example)


THIRD = {"en": "third", "de": "dritten", "fr": "troisième", "es": "tercera", "pt_BR": "terceira"}
"""How each language's /rules says "the third time" a position repeats."""


@pytest.mark.parametrize("tag", sorted(THIRD))
def test_rules_tell_the_repetition_rule_once(tag: str) -> None:
    """/rules says once that a third repetition loses: the basics say it, no summary again."""
    for name in RULESETS:
        text = rules_text(name, language(tag))
        assert text.lower().count(THIRD[tag]) == 1, (name, text)


async def test_settings_limit_games_to_allowed_channels(table: Harness) -> None:
    """After an admin allows only #lobby, a challenge in #games is refused naming #lobby."""
    lobby = table.guild.channel("lobby")
    saved = await table.reply_text(table.admin, "settings", {"allow": lobby, "time": 60})
    assert saved.ephemeral
    assert "Settings saved" in saved.content
    assert "1 h" in saved.content
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert refused.ephemeral
    assert f"<#{lobby.id}>" in refused.content
    allowed = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob}, channel=lobby
    )
    assert "1 h per move" in allowed.content


async def test_settings_refuse_channel_options_that_contradict_or_do_the_opposite(
    table: Harness,
) -> None:
    """Channel options that contradict each other, or would do the opposite of what they say,
    are refused in one sentence, and one that would change nothing says so; nothing changes
    (disallowing the only allowed channel opened every channel; the others were silently
    ignored)."""
    lobby, games = table.guild.channel("lobby"), table.channel
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    cases: list[tuple[dict[str, Any], str]] = [
        (
            {"disallow": lobby},
            f"<#{lobby.id}> is the only channel games are allowed in: allow another first, or "
            "give `everywhere` to allow every channel.",
        ),
        ({"allow": games, "disallow": games}, "Allow a channel or disallow it, not both at once."),
        (
            {"allow": games, "everywhere": True},
            "Give `everywhere` alone to allow every channel, not with `allow` or `disallow`.",
        ),
        (
            {"disallow": games},
            f"<#{games.id}> is not one of the channels games are allowed in: nothing changed.",
        ),
    ]
    for options, sentence in cases:
        refused = await table.reply_text(table.admin, "settings", options)
        assert refused.ephemeral
        assert refused.content == sentence
    assert table.bot is not None
    settings = await table.bot.services.settings.get(table.guild.id)
    assert settings.allowed_channel_ids == {lobby.id}
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert reply.ephemeral  # #games is still not allowed


async def test_leaderboard_pages_with_buttons(table: Harness) -> None:
    """With twelve rated players, Next shows players 11 and 12."""
    players = [table.standin.add_member(table.guild, f"p{n}") for n in range(12)]
    for n in range(6):
        table.standin.add_channel(table.guild, f"t{n}")
    for n in range(6):
        channel = table.guild.channel(f"t{n}")
        winner, loser = players[2 * n], players[2 * n + 1]
        reply = await table.reply_text(
            winner, "challenge", {"opponent": loser, "sets": 1}, channel=channel
        )
        await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", loser)
        for ply, text in enumerate(ATTACKERS_WIN):
            who = winner if ply % 2 == 0 else loser
            record = await table.slash(who, "move", {"move": text}, channel=channel)
            answer = await record.wait_original()
            assert not answer.ephemeral, answer.content
    board = await table.reply_text(table.carol, "leaderboard")
    assert board.embeds[0]["footer"]["text"].startswith("Players 1–10 of 12 · A ? marks")
    next_id = next(c for c in board.custom_ids() if ":next" in c)
    await table.standin.click(board, next_id, table.carol)
    assert board.embeds[0]["footer"]["text"].startswith("Players 11–12 of 12 · ")
