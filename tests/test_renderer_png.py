"""The PNG encoder of board pictures (renderer.png): valid files, the same pixels as Pillow's
own encoding, bytes that never depend on its cache of compressed bands."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

from engine import Game
from renderer import drawing, fixed_palette, png, render_board
from renderer.scene import Players, scene_of

CAPTURE = ["f4-f6", "d5-g5", "d6-c6", "d3-b3", "b4-b6", "g5-g6", "c6-d6", "e4-e7", "g4-f4"]


def palette_picture(moves: list[str], name: str = "Aoife") -> Image.Image:
    """A board after ``moves`` as the renderer maps it to its palette, before encoding."""
    game = Game.from_moves(moves)
    scene = scene_of(game, Players(name, "Brian", 1, 2))
    return fixed_palette.to_palette(drawing.compose(scene, 560), game.ruleset)


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The PNG's chunks (kind, data), after checking the signature and every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    found, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(body, zlib.crc32(kind))
        found.append((kind, body))
        at += 12 + length
    return found


def test_the_file_decodes_to_the_pixels_and_palette_pillow_would_write() -> None:
    for ply in (0, 3, len(CAPTURE)):
        picture = palette_picture(CAPTURE[:ply])
        ours = Image.open(io.BytesIO(fixed_palette.png_bytes(picture)))
        out = io.BytesIO()
        picture.save(out, "PNG", compress_level=3)
        pillows = Image.open(io.BytesIO(out.getvalue()))
        assert (ours.format, ours.mode, ours.size) == ("PNG", "P", picture.size)
        assert ours.tobytes() == pillows.tobytes() == picture.tobytes()
        assert ours.getpalette() == pillows.getpalette()


def test_the_image_data_is_one_zlib_stream_with_its_checksum() -> None:
    """zlib itself checks the Adler-32 the bands' checksums were combined into."""
    picture = palette_picture(CAPTURE)
    found = chunks(fixed_palette.png_bytes(picture))
    assert [kind for kind, _ in found] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    width, height, depth, colour, *_ = struct.unpack(">IIBBBBB", found[0][1])
    assert (width, height, depth, colour) == (*picture.size, 8, 3)
    rows = zlib.decompress(found[2][1])  # raises on a wrong checksum or a broken stream
    pixels = picture.tobytes()
    expected = b"".join(b"\x00" + pixels[y * width : (y + 1) * width] for y in range(height))
    assert rows == expected


def test_the_bytes_never_depend_on_what_the_cache_holds() -> None:
    picture = palette_picture(CAPTURE[:5])
    png.forget_bands()
    cold = fixed_palette.png_bytes(picture)
    for ply in range(len(CAPTURE)):  # other pictures share many of its bands
        fixed_palette.png_bytes(palette_picture(CAPTURE[:ply], name="Niamh"))
    assert fixed_palette.png_bytes(picture) == cold
    assert render_board(Game.from_moves(CAPTURE)) == render_board(Game.from_moves(CAPTURE))


def test_a_band_met_before_is_not_compressed_again() -> None:
    png.forget_bands()
    before = palette_picture(CAPTURE[:-1])
    after = palette_picture(CAPTURE)
    fixed_palette.png_bytes(before)
    held = len(png._bands.found)
    fixed_palette.png_bytes(before)
    assert len(png._bands.found) == held
    fixed_palette.png_bytes(after)  # one move on: the ranks it did not touch are found
    added = len(png._bands.found) - held
    assert 0 < added < held


def test_the_cache_keeps_to_its_limit_dropping_the_oldest_bands() -> None:
    bands = png._Bands(limit=1000)
    for n in range(20):
        bands.put(bytes([n]) * 300, (b"x" * 10, n))
    assert bands.held <= 1000
    assert bands.get(bytes([19]) * 300) == (b"x" * 10, 19)
    assert bands.get(bytes([0]) * 300) is None


def test_pictures_that_are_not_plain_palette_pictures_go_to_pillow() -> None:
    rgb = Image.new("RGB", (40, 30), (10, 20, 30))
    assert png.palette_png(rgb) is None
    assert (
        Image.open(io.BytesIO(fixed_palette.png_bytes(rgb))).convert("RGB").tobytes()
        == rgb.tobytes()
    )
    clear = Image.new("P", (40, 30), 0)
    clear.putpalette([0, 0, 0] * 256)
    clear.info["transparency"] = 0
    assert png.palette_png(clear) is None
