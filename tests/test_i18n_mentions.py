"""Commands named in messages: in the reader's language, or as Discord's mentions of them."""

from __future__ import annotations

import ast
import gettext
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from discord import app_commands
from discord.ext import commands

from bot.client import COGS
from bot.i18n import ENGLISH, _, command, language_for, mentions, option
from bot.i18n.slash import COMMAND_NAME

GAMES = 1575709311420596249
PUZZLE = 1575709311420596250


def test_a_known_command_becomes_its_mention_for_an_english_reader() -> None:
    """`/games` in a refusal is written </games:id>, which Discord shows as the command."""
    mentions.learn({"games": GAMES})
    text = _("{games_command} lists where the games are.", games_command=command("games"))
    assert ENGLISH.render(text) == f"</games:{GAMES}> lists where the games are."


def test_a_subcommand_is_mentioned_by_its_full_name_with_the_root_commands_id() -> None:
    """`/puzzle play` is </puzzle play:id>, the id being the puzzle command's."""
    mentions.learn({"puzzle play": PUZZLE})
    text = _(
        "No puzzle finished yet: {play_command} gives one.", play_command=command("puzzle play")
    )
    assert ENGLISH.render(text) == f"No puzzle finished yet: </puzzle play:{PUZZLE}> gives one."


def test_a_reader_whose_discord_names_the_command_otherwise_reads_that_name() -> None:
    """Discord shows a mention by the name written in it, never localized: a German reader gets
    `/rätsel spielen`, as their menu lists it, even though the id is known."""
    mentions.learn({"puzzle play": PUZZLE})
    german = language_for("de")
    text = _(
        "No puzzle finished yet: {play_command} gives one.", play_command=command("puzzle play")
    )
    puzzle = german.pgettext(COMMAND_NAME, "puzzle")
    play = german.pgettext(COMMAND_NAME, "play")
    assert (puzzle, play) != ("puzzle", "play")
    assert german.render(text) == f"Noch kein Rätsel beendet: `/{puzzle} {play}` gibt dir eins."


class _SameNames(gettext.NullTranslations):
    """A language whose Discord names every command as English does (and says "Use")."""

    def gettext(self, message: str) -> str:
        return "Nutze {games_command}." if message == "Use {games_command}." else message


def test_a_language_that_names_the_command_as_english_does_gets_the_mention() -> None:
    """Where the localized name is the English one, the mention shows the reader's name."""
    mentions.learn({"games": GAMES})
    text = _("Use {games_command}.", games_command=command("games"))
    assert text.render(_SameNames(), mention=mentions.mention) == f"Nutze </games:{GAMES}>."


def test_a_command_written_with_options_stays_text_in_every_language() -> None:
    """A mention cannot carry options: `/move d1-d3` and `/puzzle daily channel:#somewhere` are
    written as the player would type them, options and example values in their language."""
    mentions.learn({"move": GAMES, "puzzle daily": PUZZLE})
    move = command("move", "d1-d3")
    daily = command("puzzle daily", channel=_("#somewhere"))
    assert ENGLISH.render(_("{a} {b}", a=move, b=daily)) == (
        "`/move d1-d3` `/puzzle daily channel:#somewhere`"
    )
    assert language_for("de").render(_("{a} {b}", a=move, b=daily)) == (
        "`/ziehen d1-d3` `/rätsel täglich kanal:#irgendwo`"
    )


def test_an_option_is_named_as_the_readers_discord_names_it() -> None:
    """`everywhere` is `überall` for a German reader, `partout` for a French one."""
    text = _("Give {everywhere_option} alone.", everywhere_option=option("everywhere"))
    assert str(text) == "Give `everywhere` alone."
    assert "`überall`" in language_for("de").render(text)
    assert "`partout`" in language_for("fr").render(text)


def test_unknown_commands_and_unknown_ids_stay_text() -> None:
    """Only commands whose ids Discord gave are mentioned; with none known none is."""
    mentions.learn({"games": GAMES})
    text = _("Use {leaderboard_command}.", leaderboard_command=command("leaderboard"))
    assert ENGLISH.render(text) == "Use `/leaderboard`."
    mentions.learn({})
    assert ENGLISH.render(_("Use {games_command}.", games_command=command("games"))) == (
        "Use `/games`."
    )


def test_a_plain_string_is_already_said() -> None:
    """A str handed to render comes back as it is (it may be a player's own text)."""
    mentions.learn({"games": GAMES})
    assert ENGLISH.render("I typed `/games`") == "I typed `/games`"


def test_a_name_filled_into_a_sentence_is_never_rewritten() -> None:
    """A player named `/games` stays text: only the commands the bot fills in are named."""
    mentions.learn({"games": GAMES})
    text = _(
        "{player}: {games_command} lists where the games are.",
        player=_("{name} to move", name="`/games`"),
        games_command=command("games"),
    )
    assert ENGLISH.render(text) == f"`/games` to move: </games:{GAMES}> lists where the games are."


ROOT = Path(__file__).resolve().parent.parent


def _tree() -> dict[str, set[str]]:
    """Every slash command of the bot by full name (``puzzle daily``), with its options."""
    found: dict[str, set[str]] = {}

    def walk(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
        if isinstance(command, app_commands.Group):
            for child in command.commands:
                walk(child)
        else:
            found[command.qualified_name] = {p.name for p in command.parameters}

    for name in COGS:
        module = importlib.import_module(name)
        for _name, cog in inspect.getmembers(module, inspect.isclass):
            if issubclass(cog, commands.Cog) and cog.__module__ == name:
                for each in cog.__cog_app_commands__:
                    walk(each)
    return found


def _named() -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Each ``command(...)`` and ``option(...)`` in the bot's source: (where, function, the
    command's or option's name and the options given)."""
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("command", "option"):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            first = node.args[0]
            assert isinstance(first, ast.Constant), f"{where}: name a command literally"
            given = tuple(str(keyword.arg) for keyword in node.keywords)
            yield where, node.func.id, (str(first.value), *given)


def test_every_command_and_option_a_message_names_exists() -> None:
    """A message cannot name a command or an option the bot does not have (a typo would show
    the reader a command that is not in their menu)."""
    tree = _tree()
    options = set().union(*tree.values())
    named = list(_named())
    assert len(named) > 20
    for where, function, (name, *given) in named:
        if function == "option":
            assert name in options, where
        else:
            assert name in tree, where
            assert set(given) <= tree[name], where
