"""/stats' picture of a player's rating over their rated sets: the read on both backends, the
picture, and /stats attaching it (with alt text) from two rated sets on."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from bot.i18n import language
from bot.services import Services
from bot.storage import Database, Dialect, ratings
from renderer import theme
from renderer.graph import HEIGHT, PLOT_LINE, WIDTH
from renderer.rating_course import (
    RatedSet,
    describe_rating_course,
    render_rating_course,
    set_labels,
)
from tests.bot_harness import Harness, running_bot
from tests.conftest import ALICE, BOB, CHANNEL, GUILD
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import ATTACH_FILES
from tests.discord_standin.recorder import StoredMessage
from tests.test_bot_features import ATTACKERS_WIN, play
from tests.test_services_match import resign_after, start

pytest_plugins = ["tests.discord_standin.fixtures"]

COURSE = [RatedSet(1500 + 40 * (n % 7) - 3 * n, n < 12) for n in range(100)]
"""A hundred sets: twelve provisional, then established, up and down."""


async def test_stats_carry_the_rating_after_each_rated_set(
    services: Services, database: str
) -> None:
    """After two rated sets, Alice's stats hold her rating after each, oldest first (the last
    her current rating), provisional; the read takes the last ``limit`` and counts them all."""
    await start(services)
    await resign_after(services, CHANNEL, 2, BOB)
    await resign_after(services, CHANNEL, 2, ALICE)
    stats = await services.standings.player_stats(GUILD, ALICE)
    assert stats.standing is not None
    assert stats.rated_sets == 2
    assert len(stats.course) == 2
    assert stats.course[0].rating > 1500  # she won the first set
    assert stats.course[1].rating == stats.standing.rating < stats.course[0].rating
    assert all(point.provisional for point in stats.course)
    other = await services.standings.player_stats(GUILD, ALICE, ruleset="tablut")
    assert (other.course, other.rated_sets) == ((), 0)
    db = await Database.open(database)
    try:
        async with db.snapshot() as connection:
            played, last = await ratings.course(connection, GUILD, "brandubh", ALICE, 1)
    finally:
        await db.close()
    assert played == 2
    assert [rating for rating, _ in last] == [stats.standing.rating]


async def test_the_course_is_read_from_its_index(database: str) -> None:
    """The read goes straight to the player's rows of the pool, newest first: no scan of the
    server's history, no sort on SQLite (PostgreSQL told not to scan a table where an index
    would serve)."""
    params = (GUILD, "brandubh", ALICE, 100)
    db = await Database.open(database)
    try:
        async with db.transaction() as connection:
            if connection.dialect is Dialect.SQLITE:
                plan = await connection.fetch_all(f"EXPLAIN QUERY PLAN {ratings.COURSE}", params)
                lines = "\n".join(str(row[3]) for row in plan)
                assert "USING INDEX rating_history_course" in lines, lines
                assert "TEMP B-TREE" not in lines, lines
            else:
                await connection.execute("SET LOCAL enable_seqscan = off")
                plan = await connection.fetch_all(f"EXPLAIN {ratings.COURSE}", params)
                lines = "\n".join(str(row[0]) for row in plan)
                assert "rating_history_course" in lines, lines
                assert "Seq Scan" not in lines, lines
    finally:
        await db.close()


def test_the_picture_is_a_png_of_the_graphs_size() -> None:
    """A hundred sets draw a PNG of the win-chance graph's size (and a phone's width when
    asked), small enough to send with every /stats."""
    picture = render_rating_course(COURSE, title="Rating at Brandubh", first_set=5)
    with Image.open(io.BytesIO(picture)) as image:
        assert image.size == (WIDTH, HEIGHT)
    assert len(picture) < 40_000
    with Image.open(io.BytesIO(render_rating_course(COURSE, width=360))) as image:
        assert image.size == (360, round(HEIGHT * 360 / WIDTH))
    with pytest.raises(ValueError, match="at least one rated set"):
        render_rating_course([])


def test_the_alt_text_tells_the_course_in_one_line() -> None:
    """From the first rating to the last, over how many sets (the last of more), the highest."""
    two = [RatedSet(1612.4, True), RatedSet(1540.6, True)]
    assert (
        describe_rating_course(two) == "Rating from 1612 to 1541 over 2 rated sets, highest 1612."
    )
    assert describe_rating_course(COURSE, first_set=5) == (
        "Rating from 1500 to 1243 over the last 100 rated sets, highest 1722."
    )
    german = describe_rating_course(two, words=language("de"))
    assert german == "Wertung von 1612 auf 1541 über 2 gewertete Sätze, Höchstwert 1612."


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def one_set_won(table: Harness) -> None:
    """alice beats bob in a one-set match."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, ATTACKERS_WIN, table.alice, table.bob)


def course_picture(stats: StoredMessage) -> tuple[Image.Image, str]:
    """The rating picture /stats attached, and its alt text; the embed shows it."""
    [embed] = stats.embeds
    [attachment] = stats.attachments
    assert embed["image"]["url"] == f"attachment://{attachment.filename}"
    with Image.open(io.BytesIO(attachment.data)) as image:
        image.load()
        return image, attachment.description or ""


async def test_stats_show_the_rating_course_from_two_rated_sets(table: Harness) -> None:
    """After one rated set /stats has no picture; after two it shows the rating's course,
    with alt text that tells it."""
    await one_set_won(table)
    first = await table.reply_text(table.alice, "stats")
    assert first.attachments == []
    assert "image" not in first.embeds[0]
    await one_set_won(table)
    stats = await table.reply_text(table.bob, "stats", {"player": table.alice})
    image, alt = course_picture(stats)
    assert image.format == "PNG"
    assert image.size == (WIDTH, HEIGHT)
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    last = fields["Rating"].rstrip("?")
    assert alt.startswith("Rating from ")
    assert alt.endswith(f" to {last} over 2 rated sets, highest {last}."), alt


async def test_stats_go_without_the_picture_where_i_may_not_attach_files(
    table: Harness,
) -> None:
    """Without Attach Files in the channel, /stats answers with its embed alone (as it did
    before it had a picture: this pins that the picture does not make it fail there)."""
    await one_set_won(table)
    await one_set_won(table)
    await table.standin.set_overwrite(table.channel, table.me, deny=ATTACH_FILES)
    stats = await table.reply_text(table.alice, "stats")
    assert stats.attachments == []
    assert "image" not in stats.embeds[0]
    assert stats.embeds[0]["fields"][0]["name"] == "Rating"


def test_the_current_ratings_tag_covers_no_point_of_a_falling_course() -> None:
    """A course that fell to its last point runs through the place above it: the tag moves
    where the line does not pass (no line colour just around it)."""
    falling = [RatedSet(1500 + 15 * n, n < 5) for n in range(20)]
    falling += [RatedSet(1700 - 30 * n, False) for n in range(1, 5)]
    with Image.open(io.BytesIO(render_rating_course(falling))) as picture:
        image = picture.convert("RGB")
    left, right, top, bottom = plot_box(image)
    inside = [
        (x, y)
        for x in range(left + 1, right)
        for y in range(top + 1, bottom)
        if near(image, x, y, FRAME)
    ]
    # The tag's inside, and a ring 3 to 7 pixels out from it (past its outline), short of the
    # last point's own dot at the plot's right edge: the line crosses it if it runs under.
    x0, x1 = min(x for x, _ in inside), max(x for x, _ in inside)
    y0, y1 = min(y for _, y in inside), max(y for _, y in inside)
    ring = [
        (x, y)
        for x in range(max(left + 1, x0 - 7), min(right - 8, x1 + 8))
        for y in range(max(top + 1, y0 - 7), min(bottom, y1 + 8))
        if not (x0 - 3 < x < x1 + 3 and y0 - 3 < y < y1 + 3)
    ]
    assert ring
    assert not [p for p in ring if near(image, *p, LINE)]


def test_past_a_hundred_sets_the_axis_reads_round_numbers_and_the_last_set() -> None:
    """The last 100 of 136 rated sets are numbered 37, 60, 80, 100, 120 and 136 along the
    bottom (before, 37, 57, 77, 97, 117: the last set never written)."""
    assert set_labels(37, 100) == [37, 60, 80, 100, 120, 136]


def test_the_lowest_rating_on_a_round_number_sits_clear_of_the_bottom_edge() -> None:
    """A course whose lowest rating is 1500, a grid line's number: its dots are drawn whole,
    clear of the plot's bottom edge (before, half of each sat under the frame)."""
    course = [RatedSet(1500 + 20 * (n % 11), False) for n in range(22)]
    with Image.open(io.BytesIO(render_rating_course(course))) as picture:
        image = picture.convert("RGB")
    left, right, _top, bottom = plot_box(image)
    near_edge = [
        (x, y)
        for x in range(left + 1, right)
        for y in range(bottom - 4, bottom + 1)
        if near(image, x, y, LINE)
    ]
    assert not near_edge


PLOT, FRAME, LINE = (64, 47, 36), theme.FRAME, PLOT_LINE


def plot_box(image: Image.Image) -> tuple[int, int, int, int]:
    """The plot's left, right, top and bottom: the outermost pixels of its colour across the
    middle and down it that begin or end a run of it (the legend's hollow dot, a label's
    edge, have a pixel or two of it too)."""

    def ends(run: list[bool]) -> tuple[int, int]:
        held = [at for at in range(len(run) - 4) if all(run[at : at + 5])]
        return min(held), max(held) + 4

    left, right = ends([near(image, x, HEIGHT // 2, PLOT) for x in range(WIDTH)])
    top, bottom = ends([near(image, WIDTH // 2, y, PLOT) for y in range(HEIGHT)])
    return left, right, top, bottom


def near(image: Image.Image, x: int, y: int, colour: tuple[int, int, int]) -> bool:
    """Whether the pixel is (about) that colour."""
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return sum(abs(int(a) - b) for a, b in zip(pixel, colour, strict=False)) < 24
