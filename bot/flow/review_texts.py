"""The words of an analysis: the review's text, and the alt text of its graph and replay
(which a screen reader reads instead of the pictures)."""

from __future__ import annotations

from bot.flow.marked_moves import (
    MARKED_PER_SIDE,
    describe_move_review,
    judgement_count,
    listed,
    marked_moves,
)
from bot.flow.posts import outcome_text, side_name
from bot.i18n import ENGLISH, Language
from bot.names import escaped
from bot.services.analysis import SetToAnalyse
from engine import Side
from engine.analysis import GameReview, MoveReview
from renderer import ALT_TEXT_LIMIT
from renderer.graph import MARKS
from renderer.replay import describe_replay


def review_text(chosen: SetToAnalyse, review: GameReview, lang: Language = ENGLISH) -> str:
    """The reply: which set, how it ended, and each side's biggest mistakes with better moves."""
    game = chosen.game
    names = {
        Side.ATTACKERS: escaped(chosen.attacker_name or lang._("Attackers")),
        Side.DEFENDERS: escaped(chosen.defender_name or lang._("Defenders")),
    }
    if chosen.sets_total > 1:
        title = lang._(
            "**Analysis of game {game}**, set {number} of {total}",
            game=chosen.set_id,
            number=chosen.set_number,
            total=chosen.sets_total,
        )
    else:
        title = lang._("**Analysis of game {game}**", game=chosen.set_id)
    sentences = [
        lang._(
            "{attackers} (attackers) vs {defenders} (defenders).",
            attackers=names[Side.ATTACKERS],
            defenders=names[Side.DEFENDERS],
        )
    ]
    if chosen.outcome is not None:
        left_server = chosen.left_by is not None
        sentences.append(lang.render(outcome_text(chosen.outcome, left_server=left_server)))
    sentences.append(lang.n_("{count} move was played.", "{count} moves were played.", game.ply))
    lines = [lang._("{title}: {summary}", title=title, summary=" ".join(sentences))]
    for side in (Side.ATTACKERS, Side.DEFENDERS):
        worst = review.worst(side, MARKED_PER_SIDE)
        counts = review.counts(side)
        tally = ", ".join(
            judgement_count(judgement, counts[judgement], lang)
            for judgement in sorted(MARKS, reverse=True)
        )
        lines.append(
            lang._(
                "**{player}** ({side}): {tally}.",
                player=names[side],
                side=side_name(side, lang),
                tally=tally,
            )
        )
        if not any(each.side is side for each in review.moves):
            no_move = lang._("No move made.")
            lines.append(f"- {no_move}")
        elif not worst:
            well_played = lang._("No move gave away more than a tenth of a win: well played.")
            lines.append(f"- {well_played}")
        for each in worst:
            lines.append(f"- {describe_move_review(each, lang)}")
    lines.append(
        lang._(
            "The graph shows the attackers' chance of winning after each move; the replay "
            "shows, before each marked move, the move played (red) and the better move (green)."
        )
    )
    return "\n".join(lines)


def graph_alt_text(chosen: SetToAnalyse, review: GameReview, lang: Language = ENGLISH) -> str:
    """Alt text of the graph: the chance at the start, the end and the marked turns."""
    start = round(review.chances[0] * 100)
    end = round(review.chances[-1] * 100)
    marked = listed(
        [_marked_in_words(each, lang, with_better=False) for each in marked_moves(review)], lang
    )
    text = lang._(
        "Game {game}: the attackers' chance of winning, {start} % at the start and {end} % at "
        "the end.",
        game=chosen.set_id,
        start=start,
        end=end,
    )
    if marked:
        text += " " + lang._("Marked: {moves}.", moves=marked)
    return text[:1024]


def replay_alt_text(chosen: SetToAnalyse, review: GameReview, lang: Language = ENGLISH) -> str:
    """Alt text of the annotated replay, which a screen reader cannot see the arrows of: each
    marked move with its judgement and the better move, then the result and the moves in order
    (cut with "…" to fit Discord's 1024 characters)."""
    marked = [_marked_in_words(each, lang) for each in marked_moves(review)]
    if marked:
        head = lang._(
            "A replay of game {game}, stopping before each marked move to show the better one: "
            "{moves}.",
            game=chosen.set_id,
            moves=listed(marked, lang),
        )
    else:
        head = lang._("A replay of game {game}.", game=chosen.set_id)
    moves = describe_replay(
        chosen.game,
        attacker_name=chosen.attacker_name or None,
        defender_name=chosen.defender_name or None,
        words=lang,
        left_server=chosen.left_by is not None,
        limit=ALT_TEXT_LIMIT - len(head) - 1,  # six marked moves at most leave room
    )
    return f"{head} {moves}"[:ALT_TEXT_LIMIT]


def _marked_in_words(each: MoveReview, lang: Language, *, with_better: bool = True) -> str:
    """``move 14 d4-d6 blunder, better c4-c2``: a marked move as words, for the alt texts (the
    graph's without the better move: ``move 14 d4-d6 blunder``)."""
    judgement = lang.gettext(each.judgement.label)
    if each.better is None or not with_better:
        return lang._(
            "move {number} {move} {judgement}",
            number=each.number,
            move=str(each.move),
            judgement=judgement,
        )
    return lang._(
        "move {number} {move} {judgement}, better {better}",
        number=each.number,
        move=str(each.move),
        judgement=judgement,
        better=str(each.better),
    )
