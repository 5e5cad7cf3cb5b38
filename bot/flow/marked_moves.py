"""The moves an analysis marks (each side's costliest) and the words for them: the counts of
each judgement, a marked move's caption on the replay and its line in the review."""

from __future__ import annotations

from bot.i18n import ENGLISH, Language
from engine import Side
from engine.analysis import GameReview, Judgement, MoveReview
from renderer.graph import MARKS

MARKED_PER_SIDE = 3
"""How many of each side's moves the review lists and the pictures mark: the costliest."""


def marked_moves(review: GameReview) -> list[MoveReview]:
    """The moves the pictures mark: each side's three costliest, in the order played."""
    marked = review.worst(Side.ATTACKERS, MARKED_PER_SIDE) + review.worst(
        Side.DEFENDERS, MARKED_PER_SIDE
    )
    return sorted(marked, key=lambda each: each.ply)


def judgement_count(judgement: Judgement, count: int, lang: Language = ENGLISH) -> str:
    """A side's count of one marked judgement: ``2 blunders``, ``0 blunders`` a message of its
    own (Portuguese says 0 in the singular form, where a count of none reads in the plural)."""
    if count == 0:
        return _no_judgement(judgement, lang)
    if judgement is Judgement.BLUNDER:
        return lang.n_("{count} blunder", "{count} blunders", count)
    if judgement is Judgement.MISTAKE:
        return lang.n_("{count} mistake", "{count} mistakes", count)
    return lang.n_("{count} inaccuracy", "{count} inaccuracies", count)


def _no_judgement(judgement: Judgement, lang: Language) -> str:
    """None of one marked judgement: ``0 blunders``."""
    if judgement is Judgement.BLUNDER:
        # Translators: a side's count of none, as your language says zero ("0 erros graves"),
        # not the singular form "{count} blunder" would give.
        return lang._("0 blunders")
    if judgement is Judgement.MISTAKE:
        return lang._("0 mistakes")
    return lang._("0 inaccuracies")


def listed(items: list[str], lang: Language) -> str:
    """``items`` one after another, parted by a semicolon as ``lang`` writes one."""
    # Translators: what parts the notes of a move, or the marked moves, in a list ("; " in
    # English; French sets a space before it: " ; ").
    return lang._("; ").join(items)


def annotation_note(each: MoveReview, lang: Language = ENGLISH) -> str:
    """The replay's caption before a marked move: ``Move 14: d4-d6??, better c4-c2``."""
    played = f"{each.move}{MARKS[each.judgement]}"
    if each.better is None:
        return lang._("Move {number}: {move}", number=each.number, move=played)
    return lang._(
        "Move {number}: {move}, better {better}",
        number=each.number,
        move=played,
        better=str(each.better),
    )


def describe_move_review(each: MoveReview, lang: Language = ENGLISH) -> str:
    """``Move 14, d4-d6: blunder (allowed a loss in 2 moves; −35 %); better c4-c2``: why the
    move is judged so first (a forced win or loss judges a move whose chance given away is
    small: "blunder (allowed a loss in 3 moves; −3 %)"), the chance it gave away last."""
    notes: list[str] = []
    if each.missed_win_in is not None:
        notes.append(
            lang.n_(
                "missed a win in {count} move", "missed a win in {count} moves", each.missed_win_in
            )
        )
    if each.allowed_loss_in is not None:
        notes.append(
            lang.n_(
                "allowed a loss in {count} move",
                "allowed a loss in {count} moves",
                each.allowed_loss_in,
            )
        )
    notes.append(f"−{round(each.lost * 100)} %")
    judgement = lang.gettext(each.judgement.label)
    if each.better is None:
        return lang._(
            "Move {number}, {move}: {judgement} ({notes})",
            number=each.number,
            move=str(each.move),
            judgement=judgement,
            notes=listed(notes, lang),
        )
    return lang._(
        "Move {number}, {move}: {judgement} ({notes}); better {better}",
        number=each.number,
        move=str(each.move),
        judgement=judgement,
        notes=listed(notes, lang),
        better=str(each.better),
    )
