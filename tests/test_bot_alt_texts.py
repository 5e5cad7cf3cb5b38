"""What a player with a screen reader hears of /rules and /export: the pictures' alt texts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.i18n.language import language
from engine import Game, Side, parse_square
from renderer import render_board
from tests.bot_harness import Harness, move_button, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import ATTACH_FILES

pytest_plugins = ["tests.discord_standin.fixtures"]

KING_CAPTURED = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def test_the_rules_cards_alt_text_says_where_pieces_and_special_squares_are(
    table: Harness,
) -> None:
    """/rules's picture tells a German reader where the king, every piece, the throne and the
    corners stand, not only that it shows them."""
    table.carol.user.locale = "de"
    rules = await table.reply_text(table.carol, "rules")
    card = rules.attachments[0]
    assert card.filename == "rules.png"
    alt = card.description or ""
    assert "Der König steht auf d4." in alt
    assert "Angreifer (8): d1, d2, a4, b4, f4, g4, d6, d7." in alt
    assert "Verteidiger (4): d3, c4, e4, d5." in alt
    assert "Der Thron ist d4. Die Ecken sind a1, g1, a7 und g7." in alt


async def test_the_rules_as_text_give_the_cards_squares_where_i_may_not_attach_files(
    table: Harness,
) -> None:
    """Without Attach Files, /rules's text quotes the card's description in its place: the
    starting squares are not lost with the picture."""
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    rules = await table.reply_text(table.carol, "rules")
    assert rules.attachments == []
    assert (
        "\n> The starting position of Brandubh (World Tafl Federation), with its special squares. "
        "The king is on d4. Attackers (8): d1, d2, a4, b4, f4, g4, d6, d7. Defenders (4): d3, c4, "
        "e4, d5. The throne is d4. The corners are a1, g1, a7 and g7."
    ) in rules.content
    assert rules.content.endswith("permission in this channel.")


async def test_a_replays_alt_text_gives_the_result_and_the_moves(table: Harness) -> None:
    """/export's replay tells a French server who won, how, and the moves in order."""
    await table.reply_text(table.admin, "settings", {"language": "fr"})
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    for ply, move in enumerate(KING_CAPTURED):
        await table.move(table.alice if ply % 2 == 0 else table.bob, move)
    exported = await table.reply_text(table.carol, "export")
    [replay] = [a for a in exported.attachments if a.filename.endswith(".gif")]
    assert replay.description == (
        "Une animation de la partie 1, une image par coup. alice (attaquants) gagne : le roi a "
        "été pris. 5 coups ont été joués. Coups : d1-b1, c4-c2, b4-b5, d4-b4, b1-b3."
    )


async def test_the_pickers_alt_text_speaks_to_the_player_and_lists_where_the_piece_goes(
    table: Harness,
) -> None:
    """The picker's second step (choices.png), which only the player to move sees, tells a
    German reader it is their move and where the chosen piece can go."""
    table.alice.user.locale = "de"
    board = await table.challenge_accepted(table.alice, table.bob)
    step_two = await table.picked(board, table.alice)
    [choices] = step_two.attachments
    assert choices.filename == "choices.png"
    alt = choices.description or ""
    assert "Du bist am Zug (Angreifer), Zug 1." in alt
    assert "Die Figur auf d1 kann nach b1, c1, e1 und f1 ziehen." in alt


async def test_the_pickers_picture_is_headed_your_move(table: Harness) -> None:
    """choices.png, which only the player to move sees, is headed "Your move" (in German, "Du
    bist am Zug") as its alt text says, not "Attackers to move" as to an onlooker."""
    table.alice.user.locale = "de"
    board = await table.challenge_accepted(table.alice, table.bob)
    opened = await table.standin.click(board, move_button(board), table.alice)
    picker = await opened.wait_original()
    [pieces] = picker.custom_ids()
    step_two = await (
        await table.standin.select(picker, pieces, table.alice, ["d1"])
    ).wait_original()
    [choices] = step_two.attachments
    german = language("de")
    yours = render_board(
        Game(), highlight_from=parse_square("d1"), words=german, you=Side.ATTACKERS
    )
    onlookers = render_board(Game(), highlight_from=parse_square("d1"), words=german)
    assert yours != onlookers
    assert choices.data == yours
