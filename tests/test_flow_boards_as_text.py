"""Boards shown as text where I may not attach files: the alt text fits one message."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import discord
import pytest

from bot.alike_names import NamesToldApart, told_apart
from bot.flow.posts import (
    CUT_NAMES,
    MESSAGE_LIMIT,
    BoardPost,
    board_picture,
    board_post,
    describe_move,
    final_board_mark,
    final_picture,
    pictures_as_text,
    set_end_text,
)
from bot.i18n import Language, languages
from bot.services.domain import ActiveGame, RatingChange, SetEnd
from engine import RULESETS, Game, MoveRecord, Side
from renderer import ALT_TEXT_LIMIT

LONGEST_NAME = "_*" * 16
"""A 32-character display name (Discord's longest) that escaping doubles."""

LONG_USERNAMES = ("_a" * 16, "_b" * 16)
"""Two 32-character usernames (Discord's longest) that escaping makes half as long again."""


def told_apart_names(active: ActiveGame) -> NamesToldApart:
    """``active``'s players, both shown :data:`LONGEST_NAME`, told apart by
    :data:`LONG_USERNAMES`, as a game's names are (:meth:`GameFlow.names_for`)."""
    usernames = dict(zip((active.attacker_id, active.defender_id), LONG_USERNAMES, strict=True))
    shown = {active.attacker_id: LONGEST_NAME, active.defender_id: LONGEST_NAME}
    return NamesToldApart(told_apart(shown, usernames), usernames)


def set_two(ruleset: str) -> ActiveGame:
    """Set 2 of 2 in ``ruleset``, a few moves in."""
    game = Game(ruleset)
    for _ in range(3):
        game.play(next(iter(game.legal_moves())))
    now = datetime(2026, 11, 27, tzinfo=UTC)
    return ActiveGame(
        set_id=1,
        match_id=1,
        guild_id=1,
        channel_id=1,
        set_number=2,
        sets_total=2,
        ruleset=ruleset,
        attacker_id=10**18,
        defender_id=10**18 + 1,
        time_per_move=timedelta(days=1),
        deadline=now,
        reminder_at=now,
        started_at=now,
        game=game,
    )


def set_one_resigned(ruleset: str, rated: tuple[int, ...] = ()) -> tuple[MoveRecord, SetEnd]:
    """Set 1 of 3 in ``ruleset`` (a 13-digit game number) resigned by a defender who left the
    server after one move, set 2 next, its ratings those of ``rated`` (else its players'): its
    last move and its end."""
    following = set_two(ruleset)
    ended = replace(following, set_id=10**12, set_number=1, sets_total=3, game=Game(ruleset))
    last = ended.game.play(next(iter(ended.game.legal_moves())))
    outcome = ended.game.resign(Side.DEFENDERS)
    changes = tuple(RatingChange(p, 1500.0, 2999.5, 350.0, 30.0) for p in rated or ended.player_ids)
    end = SetEnd(
        ended,
        outcome,
        winner_id=ended.attacker_id,
        loser_id=ended.defender_id,
        moves=1,
        next_game=following,
        rating_changes=changes,
        left_server=True,
    )
    return last, end


async def post_of(active: ActiveGame, lang: Language, name: str = LONGEST_NAME) -> BoardPost:
    """The board post of ``active`` after its last move, both players called ``name``."""
    last = active.game.last_record
    assert last is not None
    names = NamesToldApart({active.attacker_id: name, active.defender_id: name}, {})
    headline = describe_move(last, name, lang)
    return await board_post(active, names, lang, headline=headline)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
async def test_two_boards_as_text_fit_one_message_in_every_preset_and_language(
    ruleset: str,
) -> None:
    """A set's last board and the next set's first, shown as text in one answer (the longest
    case, at a set change), keep both alt texts and stay within Discord's 2000 characters,
    15x15 included, with the longest names (escaping doubles them)."""
    active = set_two(ruleset)
    for lang in languages():
        post = await post_of(active, lang)
        files = [post.file(), post.file("set-2.png")]
        shown = pictures_as_text(f"{post.content}\n{post.content}", list(files), lang)
        assert len(shown) <= MESSAGE_LIMIT, (lang.tag, len(shown))
        assert shown.count(f"\n> {files[0].text}") == 2


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
async def test_a_final_board_as_text_keeps_its_game_number_in_every_preset_and_language(
    ruleset: str,
) -> None:
    """The longest text a final board is shown in (a late board at a set change, made as the
    outbox makes it): the set's end told (a member who left the server, ratings, the next
    set), its final board, the next set's first board, the longest names, a 13-digit game
    number. It stays within Discord's 2000 characters, 15x15 included, so the final board's
    text keeps the " · game N" the outbox knows it by after a restart: it is never replaced
    by the line saying the board is too long (which would drop that number)."""
    last, end = set_one_resigned(ruleset, rated=(1, 2))
    ended, following = end.game, end.next_game
    assert following is not None
    for lang in languages():
        names = NamesToldApart(
            {ended.attacker_id: LONGEST_NAME, ended.defender_id: LONGEST_NAME}, {}
        )
        png, alt = board_picture(
            ended.game, LONGEST_NAME, LONGEST_NAME, 1, 3, lang, left_server=True
        )
        opening = await board_post(following, names, lang, headline="**Set 2 begins.**")
        content = "\n".join(
            [
                describe_move(last, LONGEST_NAME, lang),
                set_end_text(end, names, lang),
                opening.content,
            ]
        )
        files = [
            BoardPost("", png, alt, None).file(final_picture(ended.set_id)),
            opening.file("set-2.png"),
        ]
        shown = pictures_as_text(content, list(files), lang)
        assert len(shown) <= MESSAGE_LIMIT - 300, (lang.tag, len(shown))
        assert f"\n> {files[0].text}{final_board_mark(ended.set_id, lang)}\n" in shown


async def test_names_in_a_board_shown_as_text_are_escaped() -> None:
    """A player's display name in the text standing for the picture is inert, as everywhere
    in my messages: no mention, no Markdown (the alt text itself keeps the name as is)."""
    post = await post_of(set_two("brandubh"), languages()[0], name="<@123456789012345678> **bold**")
    shown = pictures_as_text(post.content, [post.file()], languages()[0])
    alt_line = shown.split("\n> ", 1)[1]
    assert "<@123456789012345678> **bold**" in post.alt_text
    assert "<@123456789012345678>" not in alt_line
    assert "\\*\\*bold\\*\\*" in alt_line


def test_a_board_too_long_as_text_says_so_and_points_to_board() -> None:
    """Were the alt texts too long for one message, one line says so and names /board."""
    lang = languages()[0]
    long = discord.File(io.BytesIO(b""), filename="board.png", description="x" * ALT_TEXT_LIMIT)
    shown = pictures_as_text("A move was played.", [long, long], lang)
    assert shown.startswith("A move was played.\nThe board is too long to show as text here: ")
    assert "/board" in shown
    assert "xxx" not in shown


def test_a_board_without_a_text_of_its_own_shows_its_alt_text_escaped() -> None:
    """A board made from a bare alt text (as the outbox makes a late one) shows it inert in
    place of the picture: the names in it ping nobody and start no Markdown."""
    post = BoardPost("", b"", "<@123456789012345678> **bold** to move.", None)
    shown = pictures_as_text("A move was played.", [post.file()], languages()[0])
    assert "<@123456789012345678>" not in shown
    assert "\\*\\*bold\\*\\*" in shown


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
async def test_a_final_board_as_text_with_names_told_apart_keeps_its_game_number(
    ruleset: str,
) -> None:
    """The final board at a set change shown as text (the set's end, its final board, the next
    set's first), two players shown alike by the longest name told apart by the longest
    usernames, fits Discord's 2000 characters in every language and preset, 15x15 included:
    past the limit the usernames are left out, and the final board keeps its " · game N"."""
    last, end = set_one_resigned(ruleset)
    ended, following = end.game, end.next_game
    assert following is not None
    names = told_apart_names(ended)
    for lang in languages():
        final = await board_post(ended, names, lang, left_server=True)
        opening = await board_post(following, names, lang, headline="**Set 2 begins.**")
        content = "\n".join(
            [
                describe_move(last, names[ended.attacker_id], lang),
                set_end_text(end, names, lang),
                opening.content,
            ]
        )
        files = [final.file(final_picture(ended.set_id)), opening.file("set-2.png")]
        shown = pictures_as_text(content, list(files), lang)
        assert len(shown) <= MESSAGE_LIMIT, (lang.tag, len(shown))
        assert final_board_mark(ended.set_id, lang) + "\n" in shown, lang.tag
        assert f"<@{ended.attacker_id}>" in shown


async def test_names_told_apart_stay_where_the_board_fits_as_text() -> None:
    """A board that fits as text keeps the usernames telling two names alike apart, in its
    text and in the mentions above it (pinned: it did before; the shorter forms must not
    take them where there is room)."""
    active = set_two("brandubh")
    names = told_apart_names(active)
    lang = languages()[0]
    post = await board_post(active, names, lang, headline="A move.")
    shown = pictures_as_text(post.content, [post.file()], lang)
    tag = " (@" + LONG_USERNAMES[1].replace("_", "\\_") + ")"  # the defenders', to move
    assert f"<@{active.defender_id}>{tag}" in shown
    assert f"\\*{tag} (" in shown.split("\n> ", 1)[1]


async def test_names_of_a_board_as_text_are_cut_before_it_is_given_up() -> None:
    """Where a board would not fit as text even without the usernames, its names are cut
    ("_*_*…") before it is replaced by the line saying it is too long."""
    active = set_two("brandubh")
    lang = languages()[0]
    post = await board_post(active, told_apart_names(active), lang)
    cut_text = post.file().shorter[-1]
    content = "x" * (MESSAGE_LIMIT - len(cut_text) - 3)
    shown = pictures_as_text(content, [post.file()], lang)
    assert shown == f"{content}\n> {cut_text}"
    assert "…" in cut_text
    assert "(@" not in cut_text
    assert LONGEST_NAME[: CUT_NAMES - 1].replace("_", "\\_").replace("*", "\\*") in cut_text
