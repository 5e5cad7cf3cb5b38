"""Replays: an animated GIF with one frame per position, ending on the result."""

from __future__ import annotations

import io

from PIL import Image, ImageSequence

from engine import Game, Side
from renderer import render_board, render_replay

MOVES = ["d2-c2", "d3-d2", "c2-c3", "e4-e2", "f4-f2"]


def count(gif: bytes) -> int:
    """How many frames a GIF has."""
    return sum(1 for _ in ImageSequence.Iterator(Image.open(io.BytesIO(gif))))


def frames(gif: bytes) -> list[Image.Image]:
    """Every frame of a GIF, composed as a viewer shows it, in RGB."""
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    return [frame.convert("RGB") for frame in ImageSequence.Iterator(image)]


def test_one_frame_per_position() -> None:
    """A game of five moves gives six frames: the start and one after each move."""
    assert count(render_replay(Game.from_moves(MOVES))) == 6


def test_a_game_without_moves_is_one_frame() -> None:
    """Before any move the replay is the starting position alone."""
    assert count(render_replay(Game())) == 1


def test_last_frame_is_held_longer() -> None:
    """The final position stays up longer than the others before the loop restarts."""
    image = Image.open(io.BytesIO(render_replay(Game.from_moves(MOVES))))
    durations = [frame.info["duration"] for frame in ImageSequence.Iterator(image)]
    assert durations[-1] > max(durations[:-1])


def test_frames_are_the_board_pictures_of_each_position() -> None:
    """Each frame shows exactly what render_board draws after that many moves."""
    game = Game.from_moves(MOVES)
    shown = frames(render_replay(game, attacker_name="Aoife"))
    for ply in (0, 2, 5):
        board = Game.from_moves(MOVES[:ply])
        expected = Image.open(io.BytesIO(render_board(board, attacker_name="Aoife")))
        assert shown[ply].tobytes() == expected.convert("RGB").tobytes(), ply


def test_last_frame_shows_a_resignation() -> None:
    """A game that ended by resignation ends on the picture with the result."""
    game = Game.from_moves(MOVES)
    game.resign(Side.ATTACKERS)
    last = frames(render_replay(game))[-1]
    expected = Image.open(io.BytesIO(render_board(game))).convert("RGB")
    assert last.tobytes() == expected.tobytes()


def test_replay_is_deterministic() -> None:
    """The same game gives the same GIF bytes."""
    game = Game.from_moves(MOVES)
    assert render_replay(game) == render_replay(game)


def test_last_frame_says_a_player_left_the_server() -> None:
    """A game lost on time by a player who had left the server ends on the picture that
    says so, as the board posted at its end does (not "Out of time")."""
    game = Game.from_moves(MOVES)
    game.time_out(Side.DEFENDERS)
    last = frames(render_replay(game, left_server=True))[-1]
    expected = Image.open(io.BytesIO(render_board(game, left_server=True))).convert("RGB")
    out_of_time = Image.open(io.BytesIO(render_board(game))).convert("RGB")
    assert last.tobytes() == expected.tobytes() != out_of_time.tobytes()
