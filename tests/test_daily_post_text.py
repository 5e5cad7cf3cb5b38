"""The daily puzzle post's line of who solved the day before (bot/flow/puzzles.py)."""

from __future__ import annotations

from bot.flow.posts import MESSAGE_LIMIT, pictures_as_text
from bot.flow.puzzles import board_file, daily_text
from bot.i18n import language
from bot.services.daily_puzzle import DailyPost
from bot.services.puzzles import bank
from bot.storage.puzzles import DailyPostRow

GUILD, CHANNEL = 10, 20


def post_solved_by(*solvers: int) -> DailyPost:
    """The post of 2026-03-02, the puzzle of 2026-03-01 solved by ``solvers``."""
    puzzle = bank()[0]
    previous = DailyPostRow(GUILD, "2026-03-01", puzzle.puzzle_id, CHANNEL, 0, 1)
    return DailyPost(GUILD, "2026-03-02", CHANNEL, puzzle, previous, solvers)


def test_solvers_are_named_escaped_and_one_never_named_is_a_player() -> None:
    """Stored names are shown escaped, never as mentions; a solver whose name the bot was
    never told is "a player" in the server's language."""
    text = daily_text(post_solved_by(1, 2), {1: "*alice*"}, language("de"))
    solvers = text.splitlines()[-1]
    assert "**\\*alice\\***" in solvers, solvers
    assert "**ein Spieler**" in solvers, solvers
    assert "<@" not in text


def test_long_names_are_counted_past_what_a_message_holds() -> None:
    """30 solvers with the longest names, all Markdown, would pass Discord's 2,000 characters:
    the first 14 are named, the rest counted, and the post fits with its board as text."""
    solvers = tuple(range(1, 31))
    post = post_solved_by(*solvers)
    english = language("en")
    text = daily_text(post, dict.fromkeys(solvers, "_" * 32), english)
    assert text.endswith(" and 16 more players."), text.splitlines()[-1]
    assert text.splitlines()[-1].count("\\_" * 32) == 14
    board = board_file(post.puzzle, post.puzzle.game(), None, english)
    as_text = pictures_as_text(text, [board], english)
    assert len(as_text) <= MESSAGE_LIMIT
    assert as_text.startswith(f"{text}\n> ")
