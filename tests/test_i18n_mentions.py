"""Commands named in messages become Discord's command mentions once their ids are known."""

from __future__ import annotations

from bot.i18n import ENGLISH, _, language_for, mentions

GAMES = 1575709311420596249
PUZZLE = 1575709311420596250


def test_a_known_command_in_backticks_becomes_its_mention() -> None:
    """`/games` in a refusal is written </games:id>, which Discord shows as the command."""
    mentions.learn({"games": GAMES})
    text = _("There is no game in progress in this channel: `/games` lists where the games are.")
    assert ENGLISH.render(text) == (
        f"There is no game in progress in this channel: </games:{GAMES}> lists where the games are."
    )


def test_a_subcommand_is_mentioned_by_its_full_name_with_the_root_commands_id() -> None:
    """`/puzzle play` is </puzzle play:id>, the id being the puzzle command's."""
    mentions.learn({"puzzle play": PUZZLE})
    rendered = language_for("de").render(_("No puzzle finished yet: `/puzzle play` gives one."))
    assert rendered == f"Noch kein Rätsel beendet: </puzzle play:{PUZZLE}> gibt dir eins."


def test_a_command_written_with_options_stays_text() -> None:
    """A mention cannot carry options: `/move d1-d3` is left as the player would type it."""
    mentions.learn({"move": GAMES})
    assert mentions.link("Play with `/move` (for example `/move d1-d3`).") == (
        f"Play with </move:{GAMES}> (for example `/move d1-d3`)."
    )


def test_unknown_commands_and_unknown_ids_stay_text() -> None:
    """Only commands whose ids Discord gave are mentioned; with none known nothing changes."""
    mentions.learn({"games": GAMES})
    assert mentions.link("Use `/leaderboard`.") == "Use `/leaderboard`."
    mentions.learn({})
    assert mentions.link("Use `/games`.") == "Use `/games`."


def test_a_plain_string_is_already_said() -> None:
    """A str handed to render comes back as it is (it may be a player's own text)."""
    mentions.learn({"games": GAMES})
    assert ENGLISH.render("I typed `/games`") == "I typed `/games`"


def test_a_name_filled_into_a_sentence_is_never_rewritten() -> None:
    """A player named `/games` stays text: only the catalog's sentence names commands."""
    mentions.learn({"games": GAMES})
    text = _(
        "{player}: `/games` lists where the games are.",
        player=_("{name} to move", name="`/games`"),
    )
    assert ENGLISH.render(text) == f"`/games` to move: </games:{GAMES}> lists where the games are."
