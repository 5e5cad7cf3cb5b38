"""What players type and read: move spellings, options that do not apply, ruleset names."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine import Game, Move
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def test_moves_may_be_written_with_to_dashes_or_a_destination(table: Harness) -> None:
    """'d1 to b1', 'c4–c2' (en dash) and 'b5' (one piece can go there) are all played."""
    await table.challenge_accepted(table.alice, table.bob)
    for who, text, played in (
        (table.alice, "d1 to b1", "d1-b1"),
        (table.bob, "c4–c2", "c4-c2"),
        (table.alice, "b4>b5", "b4-b5"),
    ):
        reply = await table.move(who, text)
        assert not reply.ephemeral, reply.content
        assert f"played {played}" in reply.content
    reply = await table.move(table.bob, "b4")
    assert "played d4-b4" in reply.content


async def test_an_ambiguous_destination_lists_the_candidates(table: Harness) -> None:
    """'b2' at the start: two attackers can go there; the refusal names both moves."""
    await table.challenge_accepted(table.alice, table.bob)
    reply = await table.move(table.alice, "b2")
    assert reply.ephemeral
    assert reply.content == "2 of the attackers can move to b2: write d2-b2 or b4-b2."


EXAMPLE_MOVE = re.compile(r"`/move ([a-g][1-7]-[a-g][1-7])`")
"""The example move in /help and /rules, as a player would copy it."""


async def test_the_example_move_a_newcomer_is_shown_is_a_legal_first_move(
    table: Harness,
) -> None:
    """/help, /rules and the not-a-move refusal give one example move (/move's option, one text
    for every board, gives the form), and the attackers play it (and /help's destination alone)
    at the start: `d1-d3` was refused, as d2 is in the way."""
    [example] = EXAMPLE_MOVE.findall((await table.reply_text(table.alice, "help")).content)
    assert EXAMPLE_MOVE.findall((await table.reply_text(table.alice, "rules")).content) == [example]
    [move] = [c for c in table.standin.synced_commands() if c["name"] == "move"]
    description = move["options"][0]["description"]  # one text for every board: no square
    assert description == "Your move: the piece's square, a dash, then the square it goes to"
    await table.challenge_accepted(table.alice, table.bob)
    refused = await table.move(table.alice, "hello")
    assert refused.content.endswith(f"like {example}.")
    [alone] = re.findall(
        r"just `([a-g][1-7])`", (await table.reply_text(table.bob, "help")).content
    )
    assert Game().parse_move(alone) == Move.parse(example)
    reply = await table.move(table.alice, example)
    assert not reply.ephemeral, reply.content
    assert f"played {example}" in reply.content


async def test_a_level_against_a_member_is_refused(table: Harness) -> None:
    """level only makes sense against the computer: challenging bob with it is refused."""
    reply = await table.reply_text(table.alice, "challenge", {"opponent": table.bob, "level": 4})
    assert reply.ephemeral
    assert reply.content == (
        "A level is only for games against me: leave it out when you challenge a member."
    )
    assert table.public_messages() == []


async def test_ruleset_choices_name_the_board_size_once(table: Harness) -> None:
    """The synced /challenge offers 'Tablut (9x9)', not 'Tablut (9x9) (9x9)'."""
    [command] = [c for c in table.standin.synced_commands() if c["name"] == "challenge"]
    [ruleset] = [o for o in command["options"] if o["name"] == "ruleset"]
    names = [choice["name"] for choice in ruleset["choices"]]
    assert "Tablut (9x9)" in names
    assert "Brandubh (World Tafl Federation) · 7x7" in names
    assert all(name.count("x") <= 2 for name in names)


async def test_a_no_show_set_is_a_win_but_unrated(table: Harness) -> None:
    """bob resigns before his first move: alice wins the set, which the announcement and
    /stats call unrated (bob never moved); the leaderboard is empty."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    ask = await table.reply_text(table.bob, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    over = await table.wait_board(lambda m: "resigned" in m.content)
    unrated = f"<@{table.alice.id}> wins the game.\nIt is not rated: <@{table.bob.id}> never moved"
    assert unrated in over.content
    stats = await table.reply_text(table.alice, "stats", {"player": table.bob})
    recent = next(f for f in stats.embeds[0]["fields"] if f["name"] == "Recent games")
    assert recent["value"] == (
        "Lost as defenders vs alice in 1 move (resigned; unrated: bob never moved) · game 1"
    )
    board = await table.reply_text(table.alice, "leaderboard")
    assert board.embeds[0]["title"] == "Brandubh (World Tafl Federation) leaderboard — Tafl Club"
    assert board.embeds[0]["description"].startswith("No rated games of Brandubh")


async def test_the_leaderboard_of_another_ruleset_names_it(table: Harness) -> None:
    """/leaderboard ruleset:hnefatafl shows the 11x11 pool, titled so."""
    board = await table.reply_text(table.alice, "leaderboard", {"ruleset": "hnefatafl"})
    assert board.embeds[0]["title"] == "Hnefatafl (11x11) leaderboard — Tafl Club"


ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


async def test_export_gives_the_whole_match(table: Harness) -> None:
    """After set 1 and a move of set 2, /export gives one record file per set (OpenTafl opens
    one game a file) and a replay per set; /export game:<set 1> gives set 1 alone while set 2
    is played."""
    await table.challenge_accepted(table.alice, table.bob)
    for ply, text in enumerate(ATTACKERS_WIN):
        await table.move(table.alice if ply % 2 == 0 else table.bob, text)
    await table.move(table.bob, "d1-b1")
    exported = await table.reply_text(table.carol, "export")
    match = exported.attachments[0].filename.split("-")[1]
    assert [a.filename for a in exported.attachments] == [
        f"match-{match}-set-1.txt",
        f"match-{match}-set-2.txt",
        f"match-{match}-set-1.gif",
        f"match-{match}-set-2.gif",
    ]
    first, second = (a.data.decode() for a in exported.attachments[:2])
    assert "[set:1/2]" in first
    assert "[set:2/2]" in second
    assert first.count("[variant:") == second.count("[variant:") == 1
    set_id = int(first.split("[game-id:")[1].split("]")[0])
    # By number, from anywhere in the server, only the finished sets: set 2 is still played.
    by_id = await table.reply_text(table.carol, "export", {"game": set_id})
    assert [a.filename for a in by_id.attachments] == [
        f"match-{match}-set-1.txt",
        f"match-{match}-set-1.gif",
    ]
    assert by_id.attachments[0].data.decode() == first


async def test_export_by_id_refuses_a_game_in_progress_or_unknown(table: Harness) -> None:
    """A set still being played, or a number that is no game here, is refused with a sentence."""
    await table.challenge_accepted(table.alice, table.bob)
    exported = await table.reply_text(table.carol, "export")
    record = exported.attachments[0].data.decode()
    set_id = int(record.split("[game-id:")[1].split("]")[0])
    playing = await table.reply_text(table.carol, "export", {"game": set_id})
    assert playing.content == f"Game {set_id} is still being played: export it after."
    unknown = await table.reply_text(table.carol, "export", {"game": 999999})
    assert unknown.content == "There is no game 999999 in this server."


async def test_the_computer_is_named_with_its_level(table: Harness) -> None:
    """Boards and records call the computer by the bot's name and level, never by a number."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 2})
    reply = await table.move(table.alice, "d1-b1")
    await table.standin.wait_until(lambda: bool(reply.attachments), timeout=10)
    assert "**Brandubh (level 2)** (defenders) played" in reply.content
    exported = await table.reply_text(table.alice, "export")
    assert "[defenders:Brandubh (level 2)]" in exported.attachments[0].data.decode()


@pytest.mark.parametrize(
    ("language", "record"),
    [
        ("es", "Ganadas: 1, perdidas: 0"),
        ("pt_BR", "Vitórias: 1, derrotas: 0"),
        ("fr", "Victoires : 1, défaites : 0"),
        ("de", "1 gewonnen, 0 verloren"),
    ],
)
async def test_a_record_of_one_win_reads_right_in_every_language(
    table: Harness, language: str, record: str
) -> None:
    """alice captures the king: her /stats record in a server speaking Spanish, Portuguese,
    French or German has no plural after a count of one."""
    await table.reply_text(table.admin, "settings", {"language": language})
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    for ply, move in enumerate(["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]):
        await table.move(table.alice if ply % 2 == 0 else table.bob, move)
    stats = await table.reply_text(table.carol, "stats", {"player": table.alice})
    fields = stats.embeds[0]["fields"]
    separator = " ;" if language == "fr" else ";"  # French sets a space before a semicolon
    assert any(field["value"].startswith(record + separator) for field in fields), fields
