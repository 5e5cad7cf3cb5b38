"""The opening book: its moves are legal, only the strongest levels play them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from engine import Game, Side
from engine.book import BOOK_FILE, book_entries, book_move, parse_book
from engine.search import LEVELS, choose_move


def _book_game(position: str, side: str, ruleset: str) -> Game:
    return Game.from_position(position, to_move=Side(side), ruleset=ruleset)


def test_the_book_is_shipped_and_covers_the_start() -> None:
    """The installed engine has a book with an answer for the brandubh start position."""
    entries = book_entries()
    assert len(entries) > 100
    assert book_move(Game().board) is not None


def test_the_book_is_installed_with_the_engine() -> None:
    """pyproject ships the book file as the engine package's data, and the file is there."""
    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert BOOK_FILE in config["tool"]["setuptools"]["package-data"]["engine"]
    assert (root / "engine" / BOOK_FILE).is_file()


def test_every_book_move_is_legal_in_its_position() -> None:
    """Each entry's move is a legal move of the side to move in the entry's position."""
    for (ruleset, position, side), (move, _, depth) in book_entries().items():
        game = _book_game(position, side, ruleset)
        assert game.is_legal(move), f"{move} in {position} ({side} to move)"
        assert depth >= 4, f"{position} was searched only {depth} plies deep"


def test_the_book_answers_every_first_move_of_the_attackers() -> None:
    """Whatever the attackers open with, levels 4 and 5 find the defenders' reply in the book."""
    start = Game()
    for move in start.legal_moves():
        game = Game.from_moves([str(move)])
        assert book_move(game.board) is not None, f"no book reply to {move}"


@pytest.mark.parametrize("level", [1, 2, 3])
def test_weaker_levels_do_not_use_the_book(level: int) -> None:
    """Levels 1 to 3 search the start position themselves."""
    assert not LEVELS[level].book
    result = choose_move(Game(), level=level, nodes=3000, seed=1)
    assert not result.from_book
    assert result.nodes > 0


@pytest.mark.parametrize("level", [4, 5])
def test_strongest_levels_play_the_book_move(level: int) -> None:
    """Levels 4 and 5 answer a book position at once with the book's move."""
    game = Game()
    entry = book_move(game.board)
    assert entry is not None
    result = choose_move(game, level=level, nodes=3000, seed=1)
    assert result.from_book
    assert result.move.code == entry.move
    assert result.nodes == 0


def test_the_book_can_be_turned_off() -> None:
    """With book=False level 5 searches even a book position."""
    result = choose_move(Game(), level=5, nodes=3000, book=False)
    assert not result.from_book
    assert result.nodes > 0


def test_the_book_knows_positions_not_histories() -> None:
    """A book position set up directly, without the moves that lead to it, finds its entry."""
    played = Game.from_moves(["d2-c2"])
    set_up = Game.from_position(played.position(), to_move=Side.DEFENDERS)
    entry = book_move(played.board)
    assert entry is not None
    assert book_move(set_up.board) == entry


def test_a_damaged_book_line_is_refused() -> None:
    """A book line without its six tab-separated fields is an error naming the line."""
    with pytest.raises(ValueError, match="Line 2 of the opening book has 2 fields"):
        parse_book("# comment\nbrandubh\t/7/\n")
