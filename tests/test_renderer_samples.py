"""The README's sample pictures: regenerating them leaves unchanged pictures alone."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from engine import Game
from renderer import render_board
from renderer.samples import same_pixels


def test_a_picture_with_the_same_pixels_is_the_same_whatever_its_bytes(tmp_path: Path) -> None:
    """Re-encoded with other settings, a board is still the same picture; a moved piece is not."""
    picture = render_board(Game())
    with Image.open(io.BytesIO(picture)) as image:
        other_bytes = io.BytesIO()
        image.save(other_bytes, format="PNG", compress_level=1)
    path = tmp_path / "start.png"
    path.write_bytes(other_bytes.getvalue())
    assert other_bytes.getvalue() != picture
    assert same_pixels(path, picture)
    assert not same_pixels(path, render_board(Game.from_moves(["d2-c2"])))
    assert not same_pixels(tmp_path / "missing.png", picture)
