"""A game between two members shown alike ("alex" twice) tells them apart by their usernames
in its own messages: its thread's name, its challenge's line, its boards (text, caption and alt
text), its set's end, the match's result and ratings, its takeback request, /export and
/analyse."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from bot.flow.threads import THREAD_NAME_LIMIT, thread_name
from bot.i18n import Language, languages
from engine import RULESETS, Game
from renderer.drawing import caption_text, layout
from renderer.scene import Players, scene_of
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import FakeChannel, FakeMember
from tests.discord_standin.recorder import StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

WON = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""A set the challenger (attackers) wins on its fifth move: the king captured."""

ALEX_W = "alex (@alex\\_w)"
ALEX_K = "alex (@alex.k)"
"""The two alexes as a message shows them (a username's ``_`` escaped for Markdown)."""


async def alexes_thread(table: Harness) -> tuple[FakeMember, FakeMember, FakeChannel]:
    """alex_w challenges alex.k (both nicknamed "alex") to one set, accepted: its thread."""
    first = table.standin.add_member(table.guild, "alex_w", nick="alex")
    second = table.standin.add_member(table.guild, "alex.k", nick="alex")
    posted = await table.reply_text(first, "challenge", {"opponent": second, "sets": 1})
    pressed = await table.standin.click(posted, f"challenge:accept:{challenge_id(posted)}", second)
    assert pressed.answered
    await table.standin.wait_until(lambda: posted.thread is not None, timeout=10)
    assert posted.thread is not None
    return first, second, posted.thread


def alt_text(board: StoredMessage) -> str:
    """A board's alt text."""
    [picture] = [a for a in board.attachments if a.filename.endswith(".png")]
    assert picture.description is not None
    return picture.description


async def test_a_game_between_two_alexes_reads_apart_everywhere(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Every message of a game between two members nicknamed "alex" names each "alex
    (@alex_w)" or "alex (@alex.k)", never "alex" alone."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as table:
        first, second, thread = await alexes_thread(table)
        assert thread.name == (
            "alex (@alex_w) vs alex (@alex.k) · Brandubh (World Tafl Federation)"
        ), thread.name
        line = table.thread_line(thread)
        assert line.content.startswith(f"**{ALEX_W}** vs **{ALEX_K}** · "), line.content
        opening = await table.wait_board(channel=thread)
        alt = alt_text(opening)
        assert "board, 7x7. alex (@alex_w) (attackers) to move, move 1." in alt, alt
        # alex.k asks to take back his move; alex_w's answer names her so.
        await table.reply_text(first, "move", {"move": WON[0]}, channel=thread)
        await table.reply_text(second, "move", {"move": WON[1]}, channel=thread)
        asked = await table.reply_text(second, "takeback", channel=thread)
        [decline] = [c for c in asked.custom_ids() if c.endswith(":decline")]
        await table.standin.click(asked, decline, first)
        await table.standin.wait_until(lambda: "declined" in asked.content, timeout=5)
        assert asked.content.startswith(f"{ALEX_W} declined the takeback"), asked.content
        for ply, move in enumerate(WON[2:], start=2):
            who = first if ply % 2 == 0 else second
            last = await table.reply_text(who, "move", {"move": move}, channel=thread)
        assert last.content.startswith(f"**{ALEX_W}** (attackers) played b1-b3"), last.content
        for text in (last.content, line.content):
            assert "**alex**" not in text, text
            assert "alex 1500" not in text, text
        assert (
            f"Ratings: {ALEX_W} 1500? → 1662? (+162), {ALEX_K} 1500? → 1338? (−162)."
            in last.content
        ), last.content
        await table.standin.wait_until(lambda: " won. " in line.content, timeout=5)
        assert f"**{ALEX_W}** won." in line.content, line.content
        exported = await (await table.slash(second, "export", channel=thread)).wait_followup()
        record = exported.attachments[0].data.decode()
        assert "[attackers:alex (@alex_w)]" in record, record
        assert "[defenders:alex (@alex.k)]" in record, record
        review = await (await table.slash(second, "analyse", channel=thread)).wait_original(
            lambda m: bool(m.attachments), timeout=60
        )
        assert f"{ALEX_W} (attackers) vs {ALEX_K} (defenders)." in review.content
        assert f"**{ALEX_K}** (defenders):" in review.content, review.content


@pytest.mark.parametrize("lang", languages(), ids=str)
def test_a_thread_of_two_long_alike_names_keeps_their_usernames(lang: Language) -> None:
    """Two long alike names and long usernames fit a thread's 100 characters in every
    language and ruleset, each username whole: its name is cut first, left out where even a
    letter of it leaves no room."""
    long_name = "Alexandra Konstantinopoulou-Papadimitriou"
    for ruleset in RULESETS:
        name = thread_name(
            long_name,
            long_name,
            ruleset,
            lang,
            ("alexandra_konstantin", "a.papadimitriou"),
        )
        assert len(name) <= THREAD_NAME_LIMIT, name
        assert "@alexandra_konstantin" in name, name
        assert "@a.papadimitriou" in name, name


@pytest.mark.parametrize("lang", languages(), ids=str)
@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Alexandra Konstantinopoulou (@alex_w)", " (@alex_w)"),
        ("Alexandra Konstantinopoulou (@alexandra_konstantin)", "@alexandra_konsta"),
    ],
    ids=["username-kept", "username-alone"],
)
def test_a_caption_at_phone_width_keeps_the_username(lang: Language, name: str, shown: str) -> None:
    """At 360 px a long name told apart is cut before its username, which stays whole; one
    whose username leaves no room for a letter of it is shown as its username ("@…"), and the
    caption's own words ("to move") are never cut."""
    lay = layout(7, 360)
    draw = ImageDraw.Draw(Image.new("RGB", (360, lay.caption)))
    players = Players(attacker_name=name, defender_name="alex (@alex.k)", words=lang)
    _side, big, _small = caption_text(draw, lay, scene_of(Game(), players))
    plain = caption_text(draw, lay, scene_of(Game(), Players(attacker_name="x", words=lang)))[1]
    assert shown in big, big
    assert "Alexandra Konstantinopoulou" not in big, big
    for words_around in plain.split("x", 1):
        assert words_around.strip() in big, (plain, big)


@pytest.mark.parametrize("lang", languages(), ids=str)
def test_a_name_of_its_own_ending_in_a_username_is_cut_as_any(lang: Language) -> None:
    """A member whose own display name ends as a told-apart one does ("… (@alexandra_…)"),
    playing someone named otherwise, is not told apart: at 360 px their name is cut from its
    end as any other, never shown as that username alone (another member's, perhaps)."""
    lay = layout(7, 360)
    draw = ImageDraw.Draw(Image.new("RGB", (360, lay.caption)))
    name = "Bartholomew Fitzgerald (@alexandra_konstantin)"
    players = Players(attacker_name=name, defender_name="carol", words=lang)
    big = caption_text(draw, lay, scene_of(Game(), players))[1]
    assert "Bartholomew" in big, big
    assert "@alexandra" not in big, big
