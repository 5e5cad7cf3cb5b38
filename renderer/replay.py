"""A whole game as an animated GIF: one frame per position, the last held longer."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace

from PIL import Image

from engine import Game, Move
from renderer import drawing, fixed_palette, theme
from renderer.scene import Arrow, Players, Scene, result_sentence, scene_of
from renderer.text import ALT_TEXT_LIMIT
from renderer.words import ENGLISH, Words

FRAME_MS = 900
"""How long each position is shown."""
LAST_FRAME_MS = 4000
"""How long the final position is held before the animation loops."""
NOTE_FRAME_MS = 3000
"""How long an annotated position (the better move as an arrow) is shown."""


@dataclass(frozen=True)
class Annotation:
    """A comment on one move of a replay: the played move and the better one as arrows.

    The replay shows the position before the move once more, with the played move as a red
    arrow, the better move as a green one and ``note`` as the caption's small line.
    """

    ply: int
    """The annotated move's index in the set (from 0)."""
    played: Move
    better: Move | None
    note: str


def replay_scenes(game: Game, players: Players, *, left_server: bool = False) -> list[Scene]:
    """The scene before the first move and after every move; the last carries the result
    (``left_server``: as :func:`render_board`'s)."""
    replay = Game.from_position(game.starting_position, game.starting_side, game.ruleset)
    scenes = [scene_of(replay, players)]
    for record in game.records:
        replay.play(record.move)
        scenes.append(scene_of(replay, players))
    if game.outcome is not None:
        scenes[-1] = scene_of(replay, players, outcome=game.outcome, left_server=left_server)
    return scenes


def describe_replay(
    game: Game,
    *,
    attacker_name: str | None = None,
    defender_name: str | None = None,
    words: Words = ENGLISH,
    left_server: bool = False,
    limit: int = ALT_TEXT_LIMIT,
) -> str:
    """Alt text for :func:`render_replay`'s GIF, at most ``limit`` characters: the result, the
    number of moves and the moves in order (the list cut short with "…" where it would not fit,
    at a move's end)."""
    players = Players(attacker_name, defender_name, words=words)
    parts = []
    if game.outcome is not None:
        final = scene_of(game, players, outcome=game.outcome, left_server=left_server)
        parts.append(result_sentence(final))
    played = len(game.records)
    parts.append(words.n_("{count} move was played.", "{count} moves were played.", played))
    head = " ".join(parts)
    moves = [str(record.move) for record in game.records]
    shown = len(moves)
    while shown > 0:
        listed = moves[:shown] if shown == len(moves) else [*moves[:shown], "…"]
        text = " ".join([head, words._("Moves: {moves}.", moves=", ".join(listed))])
        if len(text) <= limit:
            return text
        shown = max(0, shown - max(1, (len(text) - limit) // 7))
    return head[:limit]


def render_replay(
    game: Game,
    *,
    attacker_name: str | None = None,
    defender_name: str | None = None,
    set_number: int | None = None,
    sets_total: int | None = None,
    width: int | None = None,
    frame_ms: int = FRAME_MS,
    last_frame_ms: int = LAST_FRAME_MS,
    annotations: Sequence[Annotation] = (),
    note_frame_ms: int = NOTE_FRAME_MS,
    words: Words = ENGLISH,
    left_server: bool = False,
) -> bytes:
    """An animated GIF of ``game`` from its start: ``len(game.records) + 1`` frames, looping.

    Every frame is the picture ``render_board`` would draw at that point (last move, captures,
    king marks, caption); the final frame shows the result and is held ``last_frame_ms``. Each
    of ``annotations`` adds a frame before its move: the position with the played and the
    better move as arrows and the note as caption, held ``note_frame_ms``. ``left_server``:
    a game lost on time was lost by a player who had left the server, as the last frame says.
    """
    players = Players(attacker_name, defender_name, set_number, sets_total, words)
    size = width if width is not None else theme.default_width(game.ruleset.size)
    notes = {annotation.ply: annotation for annotation in annotations}
    scenes: list[Scene] = []
    durations: list[int] = []
    for ply, scene in enumerate(replay_scenes(game, players, left_server=left_server)):
        annotation = notes.get(ply)
        if annotation is not None:
            arrows = [Arrow(annotation.played, better=False)]
            if annotation.better is not None:
                arrows.append(Arrow(annotation.better))
            scenes.append(replace(scene, arrows=tuple(arrows), note=annotation.note))
            durations.append(note_frame_ms)
        scenes.append(scene)
        durations.append(frame_ms)
    durations[-1] = last_frame_ms
    frames = [
        fixed_palette.to_palette(drawing.compose(scene, size), game.ruleset) for scene in scenes
    ]
    out = io.BytesIO()
    first: Image.Image = frames[0]
    first.save(
        out,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=True,
        disposal=1,
    )
    return out.getvalue()
