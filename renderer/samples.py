"""Sample pictures for the README: ``python -m renderer.samples docs/images``.

The games are fixed move lists, so the pictures only change when the drawing (or, for the
analysis, the engine) does; a file whose pixels would not change is left as it is, since the
encoder's bytes may differ between runs and versions of Pillow.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image, ImageSequence

from engine import Game, Side
from engine.analysis import analyse_game
from renderer import render_board, render_replay, render_rules_card
from renderer.graph import MARKS, render_win_chance
from renderer.rating_course import RatedSet, render_rating_course
from renderer.replay import Annotation


def moves(text: str) -> list[str]:
    """The moves of a space-separated list."""
    return text.split()


CAPTURE = moves("f4-f6 d5-g5 d6-c6 d3-b3 b4-b6 g5-g6 c6-d6 e4-e7 g4-f4 e7-f7 f6-f5 c4-c2 d7-e7")
DANGER = moves(
    "d2-f2 e4-e7 d1-d2 c4-c3 f2-g2 d5-c5 g4-g5 c5-e5 d7-c7 d4-d5 a4-a6 c3-b3 a6-a4 b3-b1 f4-c4 "
    "d5-a5"
)
ESCAPED = CAPTURE + moves(
    "g6-f6 a4-a6 b3-b4 f4-f1 b4-b2 d2-f2 f6-f7 f2-d2 f7-f6 f5-c5 f6-f3 e7-e5 b2-b5 e5-f5 c2-c3 "
    "f1-f2 b5-b3 f5-e5 f3-f6 b6-b5 b3-b4 e5-e1 b4-c4 b5-b1 f6-g6 a6-b6 c3-f3 b6-b7 d4-d3 c5-c7 "
    "g6-f6 c7-c6 f3-f4 b1-b4 d3-a3 e1-e4 f4-f3 b7-e7 f6-f7 d6-f6 a3-a1"
)
HNEFATAFL = moves(
    "d11-a11 d6-d5 f10-g10 f8-h8 b6-b5 f4-c4 a4-a3 h8-c8 e11-d11 e7-e9 j6-i6 c8-c6 a8-d8 e9-e11 "
    "b5-b1 e11-e7 f2-h2 d5-d6 h2-g2 e7-c7 h1-j1 d6-d5 a11-c11 d5-d6 k5-j5 c4-e4 e1-e3 g7-j7 "
    "i6-i5 f7-f9 h11-h9 f5-f2 d8-b8 h6-h4 a7-a10 j7-g7 a5-a4 g7-f7 h9-g9 f6-f4 g10-b10 g5-f5 "
    "g1-h1 f9-f8 b1-b3 h4-h2"
)


def samples() -> dict[str, bytes]:
    """File name → bytes of every sample picture."""
    return {
        "start.png": _board(Game(), set_number=1),
        "capture.png": _board(Game.from_moves(CAPTURE)),
        "king-in-danger.png": _board(Game.from_moves(DANGER)),
        # The picker's picture is shown to the player to move alone, without names.
        "move-picker.png": render_board(
            Game.from_moves(CAPTURE), highlight_from="c2", you=Side.DEFENDERS
        ),
        "king-escaped.png": _board(Game.from_moves(ESCAPED), set_number=2),
        "hnefatafl.png": _board(Game.from_moves(HNEFATAFL, ruleset="hnefatafl")),
        "computer-round.png": render_board(
            Game.from_moves(CAPTURE[:4]),
            attacker_name="Aoife",
            defender_name="Brandubh (level 3)",
            mark_earlier=True,
        ),
        "rules-brandubh.png": render_rules_card("brandubh"),
        "replay.gif": render_replay(
            Game.from_moves(ESCAPED), attacker_name="Aoife", defender_name="Brian", width=420
        ),
        **_analysis(),
        "puzzle.png": render_board(
            Game.from_position("/3t3/7/7/t2K1tt/1T3T1/3tT2/7/", to_move=Side.DEFENDERS),
            attacker_name="Opponent",
            defender_name="You",
            you=Side.DEFENDERS,
        ),
        "rating-course.png": render_rating_course(
            RATING_COURSE, title="Rating at Brandubh (World Tafl Federation)"
        ),
    }


RATING_COURSE = [
    RatedSet(rating, n < 9)
    for n, rating in enumerate(
        (
            *(1662, 1598, 1651, 1702, 1671, 1733, 1689, 1741, 1768, 1745, 1779, 1760, 1792),
            *(1771, 1748, 1783, 1810, 1794, 1826, 1807, 1839, 1858, 1834, 1861),
        )
    )
]
"""The /stats picture's sample: a player's first 24 rated sets, the first nine provisional."""


ANALYSIS_NODES = 10_000
"""The samples' analysis budget (the bot's default is higher; this keeps them quick)."""


def _analysis() -> dict[str, bytes]:
    """The /analyse pictures of the capture sample's set (Aoife against Brian)."""
    game = Game.from_moves(ESCAPED)
    review = analyse_game(game, ANALYSIS_NODES)
    marked = sorted(
        review.worst(Side.ATTACKERS) + review.worst(Side.DEFENDERS), key=lambda r: r.ply
    )
    notes = [
        Annotation(
            r.ply,
            r.move,
            r.better,
            f"Move {r.number}: {r.move}{MARKS[r.judgement]}, better {r.better}",
        )
        for r in marked
    ]
    return {
        "analysis-graph.png": render_win_chance(
            review.chances,
            marked,
            attacker_name="Aoife",
            defender_name="Brian",
            title="Game 12: win chance",
        ),
        "analysis-replay.gif": render_replay(
            game, attacker_name="Aoife", defender_name="Brian", width=420, annotations=notes
        ),
    }


def _board(game: Game, *, set_number: int | None = None) -> bytes:
    return render_board(
        game,
        attacker_name="Aoife",
        defender_name="Brian",
        set_number=set_number,
        sets_total=2 if set_number else None,
    )


def main(argv: list[str]) -> int:
    """Write the samples into the folder named by the first argument (default docs/images)."""
    folder = Path(argv[0] if argv else "docs/images")
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in samples().items():
        path = folder / name
        if same_pixels(path, data):
            print(f"{path}: unchanged")
            continue
        path.write_bytes(data)
        print(f"{path}: {len(data) // 1024} KiB")
    return 0


def same_pixels(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds a picture with exactly the pixels of ``data`` (every
    frame of an animation, in order)."""
    if not path.exists():
        return False
    with Image.open(path) as old, Image.open(io.BytesIO(data)) as new:
        old_frames = [(f.size, f.convert("RGBA").tobytes()) for f in ImageSequence.Iterator(old)]
        new_frames = [(f.size, f.convert("RGBA").tobytes()) for f in ImageSequence.Iterator(new)]
    return old_frames == new_frames


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
