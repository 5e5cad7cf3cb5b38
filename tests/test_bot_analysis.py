"""/analyse through the Discord stand-in: the review of a finished set, stored, never mid-game."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.config import Settings
from bot.flow.uploads import MESSAGE_OVERHEAD
from bot.services import Services
from tests.bot_harness import Harness, board_thread_game, eventually, running_bot
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeMember
from tests.foreign_lock import foreign_write_lock
from tests.held_engine import HeldEngine
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

KING_WALKS_INTO_CAPTURE = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""The defenders' d4-b4 (move 4) lets b1-b3 capture the king at once."""

KING_ESCAPES_ON_11X11 = ["f2-i2", "f4-e4", "k8-i8", "f5-f2", "d11-d9", "f6-f3", "i8-i3", "f3-a3"]
"""Hnefatafl (11x11): the attackers' d11-d9 (move 5) lets the king reach the edge in two moves
(f6-f3, then f3-a3)."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh server with alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def play(
    table: Harness, moves: list[str], attacker: FakeMember, defender: FakeMember
) -> None:
    """Play ``moves`` with /move, attacker first; each must be accepted."""
    for ply, text in enumerate(moves):
        reply = await table.move(attacker if ply % 2 == 0 else defender, text)
        assert not reply.ephemeral, reply.content


def _finished(message: Any) -> bool:
    return bool(message.attachments)


async def test_analysis_marks_the_blunder_with_graph_and_replay(table: Harness) -> None:
    """The king's walk into capture is the defenders' blunder; a graph and a GIF come with it."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    record = await table.slash(table.carol, "analyse")
    reply = await record.wait_original(_finished, timeout=60)
    assert not reply.ephemeral
    assert "move 4, d4-b4: blunder" in reply.content.lower()
    assert "allowed a loss in 1" in reply.content
    assert reply.edit_count >= 2, "the progress was never shown"
    graph, replay = reply.attachments
    with Image.open(io.BytesIO(graph.data)) as picture:
        assert picture.format == "PNG"
    with Image.open(io.BytesIO(replay.data)) as animation:
        assert animation.format == "GIF"
        # One frame per position and one more before each marked move.
        assert getattr(animation, "n_frames", 1) > len(KING_WALKS_INTO_CAPTURE) + 1


async def test_second_analysis_is_read_not_searched(table: Harness) -> None:
    """Asking again answers from the stored analysis: no search, no progress shown."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    first = await (await table.slash(table.alice, "analyse")).wait_original(_finished, timeout=60)
    assert table.bot is not None
    searches: list[object] = []
    run = table.bot.engine.run

    async def counted(function: Any, *args: Any, first: bool = False) -> Any:
        searches.append(function)
        return await run(function, *args, first=first)

    table.bot.engine.run = counted  # type: ignore[method-assign]
    again = await (await table.slash(table.bob, "analyse")).wait_original(_finished, timeout=10)
    assert searches == []
    assert again.content == first.content
    assert again.edit_count < first.edit_count, "progress was shown again"


async def test_a_replay_past_the_upload_limit_is_left_out(table: Harness) -> None:
    """Where the server's upload limit leaves room for the graph alone, the review comes with
    the graph and says why the replay is missing."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    first = await (await table.slash(table.alice, "analyse")).wait_original(_finished, timeout=60)
    graph, _replay = first.attachments
    table.guild.attachment_size_limit = MESSAGE_OVERHEAD + len(graph.data) + 1000
    again = await (await table.slash(table.bob, "analyse")).wait_original(_finished, timeout=10)
    [shown] = again.attachments
    assert shown.data == graph.data
    assert again.content == (
        first.content + "\nThe annotated replay is too large to post here; the moves above say "
        "what it would show."
    )


async def test_a_side_that_never_moved_is_not_praised(table: Harness) -> None:
    """bob resigns before his first move: the review says he made no move, not "well played"."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await table.move(table.alice, "d1-b1")
    ask = await table.reply_text(table.bob, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    reply = await (await table.slash(table.carol, "analyse")).wait_original(_finished, timeout=60)
    bob_line = next(line for line in reply.content.splitlines() if line.startswith("**bob**"))
    after = reply.content.split(bob_line + "\n", 1)[1]
    assert after.startswith("- No move made.")


async def test_a_hnefatafl_game_is_analysed_on_its_own_curve(table: Harness) -> None:
    """An 11x11 set the king won by escaping: the attackers' move that let him out is their
    blunder with a better move, and the graph and the replay of the big board come with it."""
    await table.challenge_accepted(table.alice, table.bob, sets=1, ruleset="hnefatafl")
    await play(table, KING_ESCAPES_ON_11X11, table.alice, table.bob)
    reply = await (await table.slash(table.carol, "analyse")).wait_original(_finished, timeout=60)
    assert not reply.ephemeral
    assert "The defenders win: the king escaped. 8 moves were played." in reply.content
    alice_lines = reply.content.split("**alice** (attackers): ", 1)[1].splitlines()
    assert alice_lines[0] == "1 blunder, 0 mistakes, 0 inaccuracies."
    assert alice_lines[1].startswith("- Move 5, d11-d9: blunder (allowed a loss in 2 moves; −")
    assert " %); better " in alice_lines[1]
    graph, replay = reply.attachments
    with Image.open(io.BytesIO(graph.data)) as picture:
        assert picture.format == "PNG"
    with Image.open(io.BytesIO(replay.data)) as animation:
        assert animation.format == "GIF"
        assert getattr(animation, "n_frames", 1) > len(KING_ESCAPES_ON_11X11) + 1


async def test_a_resigned_tablut_game_is_analysed(table: Harness) -> None:
    """A Tablut set resigned after one move is analysed like any other (it was refused while
    only brandubh's win chances were measured)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1, ruleset="tablut")
    await table.move(table.alice, "d1-d2")
    ask = await table.reply_text(table.bob, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    await table.wait_board(lambda m: "resigned" in m.content)
    reply = await (await table.slash(table.carol, "analyse")).wait_original(_finished, timeout=60)
    assert not reply.ephemeral
    assert reply.content.startswith("**Analysis of game 1**: alice (attackers) vs bob (defenders).")
    assert len(reply.attachments) == 2


async def test_a_game_of_a_ruleset_without_a_curve_is_not_analysed(table: Harness) -> None:
    """A finished 13x13 game (its engine games fitted no curve): /analyse says in one private
    sentence that its winning chances are not measured, and which rulesets can be analysed."""
    await table.challenge_accepted(table.alice, table.bob, sets=1, ruleset="hnefatafl-13")
    await table.move(table.alice, "e1-e2")
    ask = await table.reply_text(table.bob, "resign")
    await table.standin.click(ask, ask.custom_ids()[0], table.bob)
    await table.wait_board(lambda m: "resigned" in m.content)
    reply = await table.reply_text(table.carol, "analyse")
    assert reply.ephemeral
    assert reply.content == (
        "Game 1 was played with Hnefatafl (13x13), whose winning chances I have not measured: "
        "I can analyse games of Brandubh (World Tafl Federation), Brandubh (classic castle "
        "rules), Brandubh (historical hnefatafl rules), Tablut (9x9), Hnefatafl "
        "(11x11), Hnefatafl (15x15)."
    )


async def test_analysis_refused_while_the_game_is_played(table: Harness) -> None:
    """Mid-game /analyse is refused in one private sentence, so it cannot be used to cheat."""
    await table.challenge_accepted(table.alice, table.bob)
    await play(table, ["d1-b1", "c4-c2"], table.alice, table.bob)
    reply = await table.reply_text(table.alice, "analyse")
    assert reply.ephemeral
    assert "still being played" in reply.content


async def test_analysis_refused_for_a_set_of_a_match_in_progress(table: Harness) -> None:
    """Set 1 cannot be analysed by its number while set 2 of the match is being played."""
    await table.challenge_accepted(table.alice, table.bob, sets=2)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    assert table.bot is not None
    [first] = [g for g in await table.bot.services.games.active()]
    reply = await table.reply_text(table.alice, "analyse", {"game": first.set_id - 1})
    assert reply.ephemeral
    assert "match is still being played (set 2)" in reply.content


async def test_the_review_is_in_the_servers_language(table: Harness) -> None:
    """In a server set to French, the public review and its picture texts are French."""
    await table.reply_text(table.admin, "settings", {"language": "fr"})
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    record = await table.slash(table.carol, "analyse")
    reply = await record.wait_original(lambda m: bool(m.attachments), timeout=60)
    assert reply.content.startswith("**Analyse de la partie ")
    # French spacing before a colon, in the lines put together from several sentences too.
    assert re.match(r"\*\*Analyse de la partie \d+\*\* : ", reply.content), reply.content
    assert f"**{table.alice.name}** (attaquants) : " in reply.content, reply.content
    assert "Coup 4, d4-b4 : gaffe (" in reply.content
    assert "a permis une défaite en 1 coup" in reply.content
    assert "Les attaquants gagnent : le roi a été pris." in reply.content
    graph, replay = reply.attachments
    assert graph.description is not None
    assert "la chance de gain des attaquants" in graph.description
    # The graph names the marked move; the better one is the replay's to show.
    assert "coup 4 d4-b4 gaffe" in graph.description, graph.description
    assert "mieux valait" not in graph.description, graph.description
    assert replay.description is not None
    assert replay.description.startswith("Une animation de la partie ")


async def test_the_replays_alt_text_gives_the_marked_moves_and_the_better_ones(
    table: Harness,
) -> None:
    """A screen reader cannot see the replay's arrows: its alt text names each marked move, its
    judgement and the better move, then the result and the moves in order, in French here."""
    await table.reply_text(table.admin, "settings", {"language": "fr"})
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    record = await table.slash(table.carol, "analyse")
    reply = await record.wait_original(lambda m: bool(m.attachments), timeout=60)
    _, replay = reply.attachments
    alt = replay.description or ""
    assert "qui s'arrête avant chaque coup marqué pour montrer le meilleur : " in alt, alt
    assert re.search(r"coup 4 d4-b4 gaffe, mieux valait [a-g][1-7]-[a-g][1-7]", alt), alt
    assert "flèche" not in alt
    assert alt.endswith("Coups : " + ", ".join(KING_WALKS_INTO_CAPTURE) + "."), alt


async def test_an_analysis_cut_short_by_a_restart_says_so(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot restarts while carol's analysis runs: her reply says it was interrupted and to
    run /analyse again, instead of staying at "Analysing… %" (and nothing is logged as an
    unretrieved error)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    assert table.bot is not None
    run = table.bot.engine.run
    searching = asyncio.Event()

    async def held(function: Any, *args: Any) -> Any:  # a search that outlasts the restart
        searching.set()
        await asyncio.sleep(30)
        return await run(function, *args)

    monkeypatch.setattr(table.bot.engine, "run", held)
    record = await table.slash(table.carol, "analyse")
    await asyncio.wait_for(searching.wait(), timeout=10)
    await table.restart()
    reply = await record.wait_original(lambda m: "interrupted" in m.content, timeout=10)
    assert reply.content == (
        f"The analysis of game 1 was interrupted by a restart: run {table.mention('analyse')} "
        "again."
    )


async def test_a_review_whose_progress_was_deleted_is_posted_anew(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moderator deletes carol's "Analysing game 1…" while the engine works: the review is
    posted in a message of its own, with its graph and replay, instead of lost to an apology."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse")
    await engine.started()
    table.standin.delete_message(await record.wait_original())
    engine.let_go()
    review = await table.standin.wait_for_message(
        table.channel, lambda m: m.content.startswith("**Analysis of game 1**"), timeout=60
    )
    assert not review.ephemeral
    assert "move 4, d4-b4: blunder" in review.content.lower()
    assert len(review.attachments) == 2


async def test_a_review_ready_after_the_answers_15_minutes_is_still_shown(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine was so busy that carol's review is ready past the 15 minutes Discord lets an
    answer be edited: her "Analysing game 1…" message becomes the review all the same (it
    stayed at its last percentage, the review lost to an error nobody saw)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse")
    await engine.started()
    shown = await record.wait_original(lambda m: m.content.startswith("Analysing game 1"))
    later = datetime.now(UTC) + timedelta(minutes=16)
    table.standin.world.token_clock = lambda: later
    engine.let_go()
    review = await record.wait_original(_finished, timeout=60)
    assert review is shown
    assert review.content.startswith("**Analysis of game 1**: ")
    assert len(review.attachments) == 2


async def test_a_review_the_busy_database_could_not_keep_is_shown_all_the_same(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holds the database's write lock past my wait when carol's analysis is
    done: the review is shown all the same (it was lost, the reply left at its last
    percentage, and she was told a game could not be saved)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse")
    await engine.started()
    async with foreign_write_lock(table.db_path, 20):
        engine.let_go()
        review = await record.wait_original(_finished, timeout=18)
    assert not review.ephemeral
    assert review.content.startswith("**Analysis of game 1**: ")
    assert "move 4, d4-b4: blunder" in review.content.lower()


async def test_a_shared_review_ready_after_the_answers_15_minutes_replaces_both_replies(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob asks for game 1 while carol's analysis of it runs (he shares it, and sees no
    progress), and the busy engine makes it ready past the 15 minutes: his "thinking" reply
    becomes the review, as hers does (his review was posted as a message of its own, his
    reply left thinking for good)."""
    await table.challenge_accepted(table.alice, table.bob, sets=1)
    await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    carols = await table.slash(table.carol, "analyse")
    await engine.started()
    await carols.wait_original(lambda m: m.content.startswith("Analysing game 1"))
    bobs = await table.slash(table.bob, "analyse")
    await table.standin.wait_until(lambda: bobs.original is not None, timeout=10)
    thinking = bobs.original
    assert thinking is not None
    later = datetime.now(UTC) + timedelta(minutes=16)
    table.standin.world.token_clock = lambda: later
    engine.let_go()
    await carols.wait_original(_finished, timeout=60)
    review = await bobs.wait_original(_finished, timeout=60)
    assert review is thinking
    assert review.content.startswith("**Analysis of game 1**: ")
    reviews = [m for m in table.public_messages() if m.content.startswith("**Analysis of")]
    assert len(reviews) == 2, [m.content for m in reviews]


async def test_a_review_ready_after_i_archived_its_thread_is_still_shown(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol asks for the review in the finished match's thread, and the busy engine makes it
    ready after I archived the thread (ten minutes after the match's end): her "Analysing
    game 1…" reply becomes the review all the same (Discord refused the edit in the archived
    thread, and the review was lost)."""
    assert table.bot is not None
    await table.bot.services.settings.change(table.guild.id, threads=True)
    _, thread = await board_thread_game(table, opening=KING_WALKS_INTO_CAPTURE)
    engine = HeldEngine(table, monkeypatch)
    record = await table.slash(table.carol, "analyse", channel=thread)
    await engine.started()
    shown = await record.wait_original(lambda m: m.content.startswith("Analysing game 1"))
    table.advance(timedelta(minutes=11))
    await table.standin.wait_until(lambda: thread.archived, timeout=10)
    engine.let_go()
    review = await record.wait_original(_finished, timeout=60)
    assert review is shown
    assert review.content.startswith("**Analysis of game 1**: ")
    assert len(review.attachments) == 2


async def test_an_analysis_claim_a_killed_bot_left_refuses_nobody_after_a_restart(
    table: Harness,
) -> None:
    """The bot dies (killed: nothing releases it) while alice's analysis of game 1 holds her
    claim: started again, it runs her /analyse of game 2 at once, not "still running" for up
    to 15 minutes."""
    for _ in range(2):
        await table.challenge_accepted(table.alice, table.bob, sets=1)
        await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    assert table.bot is not None
    assert await table.bot.services.analyses.claim(table.alice.id, 1) is None
    await table.restart()
    record = await table.slash(table.alice, "analyse", {"game": 2})
    answer = await record.wait_original()
    assert not answer.ephemeral, answer.content
    await record.wait_original(_finished, timeout=60)


async def test_a_member_analyses_one_game_at_a_time(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While alice's analysis of game 1 runs, her /analyse of game 2 is refused privately
    (each analysis takes turns of the workers the computer's moves need: one member could
    queue any number); carol's of game 2 runs, and alice's once hers is done."""
    for _ in range(2):
        await table.challenge_accepted(table.alice, table.bob, sets=1)
        await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
    engine = HeldEngine(table, monkeypatch)
    first = await table.slash(table.alice, "analyse", {"game": 1})
    await engine.started()
    refused = await (await table.slash(table.alice, "analyse", {"game": 2})).wait_original()
    assert refused.ephemeral
    assert refused.content == (
        "Your analysis of game 1 is still running: wait for it before asking for another."
    )
    other = await table.slash(table.carol, "analyse", {"game": 2})
    engine.let_go()
    await first.wait_original(_finished, timeout=60)
    await other.wait_original(_finished, timeout=60)
    again = await (await table.slash(table.alice, "analyse", {"game": 2})).wait_original(
        _finished, timeout=60
    )
    assert not again.ephemeral


class SharedHarness(Harness):
    """The bot on a PostgreSQL database that another process (a second shard's) shares."""

    def __init__(self, standin: DiscordStandin, tmp_path: Path, database_url: str) -> None:
        super().__init__(standin, tmp_path / "unused.sqlite3")
        self.database_url = database_url

    def settings(self) -> Settings:
        return replace(super().settings(), database_url=self.database_url)


async def test_a_member_analyses_one_game_at_a_time_across_processes(
    discord_standin: DiscordStandin,
    postgres: PostgresServer | str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """alice's analysis under way in another shard process refuses her /analyse here, and
    hers here refuses her there; once it is done, or after 15 minutes if its process died
    with it, she may ask again. (Each process kept its own: one analysis at a time in each.)"""
    url = await postgres_database(postgres)
    table = SharedHarness(discord_standin, tmp_path, url)
    await table.start()
    elsewhere = await Services.open(url, clock=lambda: table.now)
    try:
        for _ in range(2):
            await table.challenge_accepted(table.alice, table.bob, sets=1)
            await play(table, KING_WALKS_INTO_CAPTURE, table.alice, table.bob)
        alice = table.alice.id
        assert await elsewhere.analyses.claim(alice, 2) is None
        refused = await (await table.slash(table.alice, "analyse", {"game": 1})).wait_original()
        assert refused.ephemeral
        assert refused.content == (
            "Your analysis of game 2 is still running: wait for it before asking for another."
        )
        await elsewhere.analyses.release(alice, 2)
        engine = HeldEngine(table, monkeypatch)
        first = await table.slash(table.alice, "analyse", {"game": 1})
        await engine.started()
        assert await elsewhere.analyses.claim(alice, 2) == 1
        engine.let_go()
        await first.wait_original(_finished, timeout=60)
        # Its claim ends just after the answer (and this one is never released: it dies).
        await eventually(lambda: elsewhere.analyses.claim(alice, 2), None)
        table.advance(timedelta(minutes=15))
        again = await (await table.slash(table.alice, "analyse", {"game": 1})).wait_original(
            _finished, timeout=60
        )
        assert not again.ephemeral
    finally:
        await elsewhere.close()
        await table.stop()
