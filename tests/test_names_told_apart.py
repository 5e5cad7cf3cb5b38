"""Two members shown alike ("alex" twice) told apart by their usernames in the public lists:
/leaderboard, /games, /stats' recent games and head-to-head, /puzzle leaderboard."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.alike_names import alike, told_apart
from bot.flow.threads import thread_name
from bot.i18n import ENGLISH, languages
from bot.services.domain import GameInProgress, GamesPage, LeaderboardPage, Standing
from bot.services.puzzle_leaderboard import Period, SolverBoard, SolverStanding
from bot.storage import Database
from bot.views.games import told_apart_games_embed
from bot.views.leaderboard import leaderboard_embed
from bot.views.puzzle_board import solvers_embed
from engine import RULESETS
from tests.bot_harness import Harness, PostgresHarness, challenge_id, running_bot
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import FakeMember
from tests.older_schemas import step_back
from tests.postgres_server import PostgresServer
from tests.test_bot_puzzles import solve

pytest_plugins = ["tests.discord_standin.fixtures"]

WON = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""A set the challenger (attackers) wins on its fifth move: the king captured."""

ALEX_W = "alex (@alex\\_w)"
ALEX_K = "alex (@alex.k)"
"""The two alexes as a list shows them (a username's ``_`` escaped for Markdown)."""
ALEXES = ("alex_w", "alex.k")
"""Their usernames."""


def test_names_that_read_alike_are_followed_by_the_username() -> None:
    """ "alex", "Alex " and "аlex" (a Cyrillic а) read alike and are followed by the
    username; "bob" is left alone, as is an alike name whose username was never stored."""
    names: dict[int, str | None] = {1: "alex", 2: "Alex ", 3: "\u0430lex", 4: "bob", 5: None}
    assert alike(names) == {1, 2, 3}
    shown = told_apart(names, {1: "alex_w", 2: "alex.k", 4: "bob", 5: "ghost"})
    assert shown == {1: "alex (@alex_w)", 2: "Alex  (@alex.k)", 3: "\u0430lex", 4: "bob", 5: None}


async def alexes_played(table: Harness) -> tuple[FakeMember, FakeMember]:
    """Two members nicknamed "alex" (usernames alex_w and alex.k) play a rated set, won by
    alex_w; each finishes a puzzle; a second set between them is under way."""
    assert table.bot is not None
    first = table.standin.add_member(table.guild, "alex_w", nick="alex")
    second = table.standin.add_member(table.guild, "alex.k", nick="alex")
    await table.challenge_accepted(first, second, sets=1)
    for ply, move in enumerate(WON):
        await table.move(first if ply % 2 == 0 else second, move)
    puzzles = table.bot.services.puzzles
    for solver in (first, second):
        attempt = await puzzles.start(guild_id=table.guild.id, user_id=solver.id)
        await puzzles.record(attempt, (str(attempt.puzzle.solution[0]),), "solved")
    await table.challenge_accepted(second, first, sets=1)
    return first, second


async def lists_tell_alexes_apart(table: Harness) -> None:
    """Each list shows the two alexes by their usernames, and carol, bob and alice as ever."""
    first, second = await alexes_played(table)
    leaderboard = await table.reply_text(table.carol, "leaderboard")
    solvers = await table.reply_text(table.carol, "puzzle leaderboard")
    games = await table.reply_text(table.carol, "games")
    stats = await table.reply_text(first, "stats", {"player": second})
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    shown = {
        "/leaderboard": leaderboard.embeds[0]["description"],
        "/puzzle leaderboard": solvers.embeds[0]["description"],
        "/games": games.embeds[0]["description"],
        "/stats' head to head": fields[f"Head to head with {ALEX_W}"],
    }
    for where, text in shown.items():
        assert ALEX_W in text, f"{where}: {text}"
        assert ALEX_K in text, f"{where}: {text}"
        assert "**alex**" not in text, f"{where}: {text}"
    # /stats of alex.k, asked by alex_w: its title and its game against alex_w.
    assert stats.embeds[0]["title"].startswith(f"{ALEX_K} at "), stats.embeds[0]
    assert f" vs {ALEX_W} in 5 moves" in fields["Recent games"], fields["Recent games"]
    assert f"{ALEX_W} won 1, {ALEX_K} won 0" in shown["/stats' head to head"]
    alone = await table.reply_text(table.alice, "stats", {"player": table.bob})
    assert alone.embeds[0]["title"].startswith("bob at "), alone.embeds[0]


async def test_sqlite_lists_tell_two_alexes_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """On SQLite, /leaderboard, /puzzle leaderboard, /games and /stats show two members
    nicknamed "alex" as "alex (@alex_w)" and "alex (@alex.k)"; unique names stay as they are."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        await lists_tell_alexes_apart(table)


async def test_postgresql_lists_tell_two_alexes_apart(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """The same on PostgreSQL."""
    table = PostgresHarness(discord_standin, tmp_path, await postgres_database(postgres))
    await table.start()
    try:
        await lists_tell_alexes_apart(table)
    finally:
        await table.stop()


async def test_names_stored_before_usernames_list_as_before(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A database of schema 46 (names, no usernames) upgraded: /leaderboard shows both alexes
    as "alex", as before; once alex.k uses the bot again, the list names that one by username
    (the other's is still unknown)."""
    db_path = tmp_path / "bot.sqlite3"
    table = Harness(discord_standin, db_path)
    await table.start()
    try:
        _, second = await alexes_played(table)
    finally:
        await table.stop()
    await step_back(str(db_path), 46)
    database = await Database.open(str(db_path), target_version=46)
    try:
        assert await database.stored_version() == 46
    finally:
        await database.close()
    await table.start()
    try:
        before = await table.reply_text(table.carol, "leaderboard")
        lines = before.embeds[0]["description"].splitlines()
        assert [line.split("** — ")[0] for line in lines] == ["`  1.` **alex", "`  2.` **alex"]
        await table.reply_text(second, "puzzle stats")
        after = await table.reply_text(table.carol, "leaderboard")
        text = after.embeds[0]["description"]
        assert f"**{ALEX_K}**" in text, text
        assert "**alex**" in text, text
    finally:
        await table.stop()


def test_the_longer_names_still_fit_a_page() -> None:
    """Ten 32-character nicknames that read alike, each with a 32-character username, and the
    asker's line below: a /leaderboard and a /puzzle leaderboard page stay within Discord's
    4096 characters of an embed's description."""
    name, username = "_" * 32, "x" * 31 + "_"
    standings = [
        Standing(i, i, name, 9999.0, 350.0, 9999, 9999, 9999, 9999, 9999, username)
        for i in range(1, 12)
    ]
    page = LeaderboardPage(1, 0, 10, 10_000, tuple(standings[:10]), "brandubh", 11, standings[10])
    described = leaderboard_embed(page, "x" * 100).description or ""
    assert described.count("(@") == 11, described
    assert len(described) <= 4096, len(described)
    solvers = [SolverStanding(i, i, name, 9999, 9999, 0, username) for i in range(1, 12)]
    board = SolverBoard(1, Period.ALL_TIME, 11, 0, 10, 10_000, tuple(solvers[:10]), solvers[10])
    described = solvers_embed(board, "x" * 100).description or ""
    assert described.count("(@") == 11, described
    assert len(described) <= 4096, len(described)


async def test_a_page_of_games_between_long_names_told_apart_still_fits(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Ten games between twenty members all nicknamed 32 underscores (usernames as long):
    /games still answers, every player told apart by username, the names cut to fit
    Discord's 4096 characters ("_______… (@…)")."""
    channels = [f"table-{number}" for number in range(10)]
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", channels=channels) as table:
        for number, name in enumerate(channels):
            a, b = (
                table.standin.add_member(table.guild, f"{'_' * 30}{side}{number}", nick="_" * 32)
                for side in "ab"
            )
            asked = await table.reply_text(
                a, "challenge", {"opponent": b}, channel=table.guild.channel(name)
            )
            accepted = await table.standin.click(
                asked, f"challenge:accept:{challenge_id(asked)}", b
            )
            assert accepted.answered
        games = await table.reply_text(table.carol, "games")
        text = games.embeds[0]["description"]
        assert len(text) <= 4096, len(text)
        assert text.count(" (@") == 30, text
        assert "(@" + "\\_" * 30 + "a9)" in text, text


def test_a_page_of_games_told_apart_fits_in_every_language() -> None:
    """Ten games of the second set between twenty players all nicknamed 32 underscores (the
    longest escaped name; usernames as long), with the note that games are left out: in every
    language and ruleset the page fits Discord's 4096 characters, every player still told
    apart by username. Cut to 8 characters alone, French, Spanish and German passed it."""
    ids = range(100, 120)
    shown = {uid: "_" * 32 for uid in ids}
    usernames = {uid: "_" * 30 + f"{uid - 100:02}" for uid in ids}
    for lang in languages():
        for ruleset in RULESETS:
            games = tuple(
                GameInProgress(
                    set_id=n,
                    match_id=n,
                    channel_id=10**18 + n,
                    ruleset=ruleset,
                    set_number=2,
                    sets_total=2,
                    attacker_id=100 + 2 * n,
                    defender_id=101 + 2 * n,
                    ply=998,
                    to_move_id=100 + 2 * n,
                    computer_id=None,
                    computer_level=None,
                )
                for n in range(10)
            )
            embed, _ = told_apart_games_embed(
                GamesPage(1, None, 0, 10, 10, games),
                shown,
                usernames,
                "x" * 100,
                lang,
                unanswered=True,
            )
            text = embed.description or ""
            assert len(text) <= 4096, (lang.tag, ruleset, len(text))
            assert text.count(" (@") == 30, (lang.tag, ruleset, text)
            assert "(@" + "\\_" * 30 + "19)" in text, (lang.tag, ruleset, text)


async def test_all_waiting_challenges_tells_two_alexes_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Five seekers, then two members nicknamed "alex", ask for a game: /games lists the five
    oldest, and its **All waiting challenges** (the rest of that list) tells the alexes apart
    by username as /games does (it named both "alex")."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        seekers = [table.standin.add_member(table.guild, f"seeker{n}") for n in range(5)]
        alexes = [table.standin.add_member(table.guild, name, nick="alex") for name in ALEXES]
        for member in (*seekers, *alexes):
            posted = await table.reply_text(member, "challenge", {"sets": 1})
            assert not posted.ephemeral, posted.content
        listing = await table.reply_text(table.carol, "games")
        [show_all] = listing.custom_ids()
        private = await (await table.standin.click(listing, show_all, table.carol)).wait_original()
        lines = private.embeds[0]["description"].splitlines()
        assert [line.split(" · ")[0] for line in lines[5:]] == [f"**{ALEX_W}**", f"**{ALEX_K}**"]


async def test_the_daily_post_tells_two_alexes_apart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Two members nicknamed "alex" solve the daily puzzle: the next day's post says it was
    solved by "alex (@alex_w)" and "alex (@alex.k)" (it said "alex, alex"), pinging nobody."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as table:
        lobby = table.guild.channel("lobby")
        hour = (table.now + timedelta(hours=1)).hour
        await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": hour})
        table.advance(timedelta(hours=1))
        first = await table.standin.wait_for_message(lobby, lambda m: "Daily puzzle" in m.content)
        for name in ALEXES:
            alex = table.standin.add_member(table.guild, name, nick="alex")
            opened = await table.standin.click(first, first.custom_ids()[0], alex)
            assert "Solved!" in (await solve(table, await opened.wait_original(), alex)).content
        table.advance(timedelta(days=1))
        second = await table.standin.wait_for_message(
            lobby, lambda m: "Daily puzzle" in m.content and m.id != first.id
        )
        solvers = second.content.splitlines()[-1]
        assert f"**{ALEX_W}**" in solvers, solvers
        assert f"**{ALEX_K}**" in solvers, solvers
        assert second.pinged_user_ids() == set()


def test_a_name_cut_at_a_space_has_its_ellipsis_after_its_last_letter() -> None:
    """A name cut where a space falls reads "Bo Bob… (@bo_b)", "Ann Mary…", never with a
    space before the ellipsis: in a page of /games and in a thread's name alike."""
    shown = told_apart({1: "Bo Bob Smith", 2: "bo bob smith"}, {1: "bo_b", 2: "b.bob"}, 8)
    assert shown == {1: "Bo Bob… (@bo_b)", 2: "bo bob… (@b.bob)"}, shown
    for pad in range(3):  # one of three cuts falls on a space
        name = "x" * pad + "Ann Mary Lou " * 8
        for usernames in ((None, None), ("ann_m", "ann.m")):
            thread = thread_name(name, name, "brandubh", ENGLISH, usernames)
            assert " …" not in thread, thread
