"""Sentences as a native reader of each language says them: a count of zero (Portuguese puts 0
in the singular form, where "0 partida vencida" reads wrong), two players facing each other in
a thread's name, a Spanish count of moves that does not repeat itself."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.cogs.standings import game_line, stats_embed
from bot.errors import answers_only_note
from bot.flow.marked_moves import judgement_count
from bot.flow.threads import THREAD_NAME_LIMIT, thread_name
from bot.i18n import language
from bot.services.domain import HeadToHead, PlayerStats
from bot.services.puzzle_leaderboard import SolverStanding
from bot.views.leaderboard import matches_won_text
from bot.views.puzzle_board import solver_line
from engine import RULESETS, Game, Outcome, Reason, Side, get_ruleset
from engine.analysis import Judgement
from renderer import describe_board
from renderer.drawing import headline
from renderer.scene import Players, scene_of
from tests.test_stats_embed import ALICE, lost_on_time

PORTUGUESE = language("pt_BR")


def test_no_match_won_reads_in_the_plural_in_portuguese() -> None:
    """The leaderboard and /stats say "0 partidas vencidas", not "0 partida vencida"; French
    keeps its singular ("0 match gagné"), English its plural."""
    assert matches_won_text(0, PORTUGUESE) == "0 partidas vencidas"
    assert matches_won_text(1, PORTUGUESE) == "1 partida vencida"
    assert matches_won_text(0, language("fr")) == "0 match gagné"
    assert matches_won_text(0) == "0 matches won"


def test_a_head_to_head_without_sets_or_matches_reads_in_the_plural_in_portuguese() -> None:
    """/stats' head to head of a match of sets nobody played, and of a set of a match still
    going on: "(0 sets, 1 partida)", "(1 set, 0 partidas)"."""
    bob = ALICE + 2
    stats = PlayerStats(1, bob, "bob", None, ())
    cases = [
        (HeadToHead(1, (ALICE, bob), 0, (0, 0), 0, 1, (0, 0)), "(0 sets, 1 partida)"),
        (HeadToHead(1, (ALICE, bob), 1, (1, 0), 0, 0, (0, 0)), "(1 set, 0 partidas)"),
    ]
    for head, said in cases:
        embed = stats_embed(stats, head, ALICE, lang=PORTUGUESE)
        [value] = [
            field.value or ""
            for field in embed.fields
            if (field.name or "").startswith("Confronto direto com ")
        ]
        assert said in value, value


def test_a_game_of_no_moves_reads_in_the_plural_in_portuguese() -> None:
    """/stats' line of a set lost before any move: "em 0 lances"."""
    line = game_line(lost_on_time(3), ALICE, "Brandubh", PORTUGUESE)
    assert " em 0 lances " in line, line


def test_a_side_without_blunders_reads_in_the_plural_in_portuguese() -> None:
    """An analysis tallies a side's judgements even when there are none: "0 erros graves"."""
    assert judgement_count(Judgement.BLUNDER, 0, PORTUGUESE) == "0 erros graves"
    assert judgement_count(Judgement.MISTAKE, 0, PORTUGUESE) == "0 erros"
    assert judgement_count(Judgement.INACCURACY, 0, PORTUGUESE) == "0 imprecisões"
    assert judgement_count(Judgement.BLUNDER, 1, PORTUGUESE) == "1 erro grave"


def test_a_board_of_a_game_ended_before_any_move_reads_in_the_plural_in_portuguese() -> None:
    """The caption of a set lost on time before its first move: "0 lances"."""
    players = Players(words=PORTUGUESE)
    scene = replace(
        scene_of(Game(), players), outcome=Outcome(Side.DEFENDERS, Reason.TIMEOUT), ply=0
    )
    _side, _big, small = headline(scene)
    assert "0 lances" in small.split(" · "), small


def test_a_puzzle_solver_with_none_solved_reads_in_the_plural_in_portuguese() -> None:
    """The puzzle leaderboard: "0 de 3 resolvidos", not "0 de 3 resolvido"."""
    row = SolverStanding(rank=4, user_id=ALICE, display_name="ana", solved=0, attempted=3)
    assert solver_line(row, PORTUGUESE).endswith("0 de 3 resolvidos (0 %)")


@pytest.mark.parametrize(
    ("tag", "pair"),
    [
        ("en", "alice vs bob"),
        ("de", "alice gegen bob"),
        ("fr", "alice contre bob"),
        ("es", "alice contra bob"),
        ("pt_BR", "alice x bob"),
    ],
)
def test_a_thread_is_named_in_the_servers_language(tag: str, pair: str) -> None:
    """A game's thread names its players as the server's language pairs them, and stays within
    Discord's 100 characters with the longest names and the longest ruleset title (which,
    unlike a short one, makes the names be cut)."""
    lang = language(tag)
    assert thread_name("alice", "bob", "brandubh", lang).startswith(f"{pair} · ")
    ruleset = max(RULESETS, key=lambda name: len(lang.gettext(get_ruleset(name).title)))
    longest = thread_name("a" * 32, "b" * 32, ruleset, lang)
    assert len(longest) <= THREAD_NAME_LIMIT, longest
    assert "…" in longest, longest


def test_spanish_says_moves_were_made_not_played() -> None:
    """The alt text of a finished board: "Se hicieron 5 jugadas", not "Se jugaron 5 jugadas"."""
    game = Game.from_moves(["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"])
    alt = describe_board(game, words=language("es"))
    assert "Se hicieron 5 jugadas." in alt, alt


def test_a_board_without_names_says_whose_move_it_is_in_portuguese() -> None:
    """An onlooker's alt text of a board whose players are not named reads "Vez dos atacantes"
    (before: "Vez de Atacantes"); with names it stays "Vez de Ana (atacantes)"."""
    game = Game.from_moves(["d1-b1"])
    assert "Vez dos defensores, lance 2." in describe_board(game, words=PORTUGUESE)
    assert "Vez dos atacantes, lance 1." in describe_board(Game(), words=PORTUGUESE)
    named = describe_board(Game(), attacker_name="Ana", defender_name="Bia", words=PORTUGUESE)
    assert "Vez de Ana (atacantes), lance 1." in named


@pytest.mark.parametrize("count", [1, 2])
def test_the_note_where_i_may_only_answer_says_your_opponent_in_portuguese(count: int) -> None:
    """A move played where I may not post on my own warns that "seu oponente" may not be
    reminded, as every other Portuguese sentence names the opponent (before: "o oponente")."""
    missing = ["send_messages", "embed_links"][:count]
    note = answers_only_note(missing, PORTUGUESE)
    assert "aqui: seu oponente pode não receber lembretes da vez dele." in note
