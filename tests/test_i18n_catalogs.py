"""The message catalogs: complete, current, faithful to the English placeholders, and compiled."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from bot.i18n.language import DOMAIN, LOCALES_DIR, catalog_tags, language_for
from bot.i18n.slash import COMMAND_NAME, OPTION_NAME
from bot.rules_page import page_name
from engine.rules import RULESETS

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("pt_BR", "es", "fr", "de")
"""The languages issue 13 asks for (adding one is adding a catalog; the tests find it)."""

Key = tuple[str | None, str]


def _key(message: Message) -> Key:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    context: object = message.context
    if isinstance(context, bytes):  # Babel's read_mo leaves contexts undecoded
        context = context.decode()
    return None if context is None else str(context), str(msgid)


def _messages(catalog: Catalog) -> Iterator[Message]:
    return (message for message in catalog if message.id)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory, monkeypatch_module: None) -> Catalog:
    """The messages the source holds today, extracted as README's command does."""
    output = tmp_path_factory.mktemp("pot") / "messages.pot"
    CommandLineInterface().run(  # type: ignore[no-untyped-call]
        ["pybabel", "-q", "extract", "-F", "pyproject.toml", "-o", str(output), "."]
    )
    with output.open("rb") as file:
        return read_po(file)


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[None]:
    """Extraction runs from the project root (the mapping's paths are relative to it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        yield


def _po(tag: str) -> Catalog:
    with (LOCALES_DIR / tag / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as file:
        return read_po(file, locale=tag)


def _forms(message: Message) -> tuple[str, ...]:
    """The translation's forms (one, or one per plural form)."""
    forms = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return tuple(str(form) for form in forms)


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def test_every_language_is_shipped() -> None:
    """Portuguese, Spanish, French and German catalogs are compiled into the package."""
    assert set(LANGUAGES) <= set(catalog_tags())


def test_the_template_is_current(extracted: Catalog) -> None:
    """messages.pot holds exactly what the source marks for translation (re-extract if not)."""
    with (LOCALES_DIR / "messages.pot").open("rb") as file:
        template = read_po(file)
    assert {_key(m) for m in _messages(template)} == {_key(m) for m in _messages(extracted)}


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_message_is_translated(tag: str, extracted: Catalog) -> None:
    """No message is missing, stale (no longer in the source), fuzzy or left empty."""
    po = _po(tag)
    wanted = {_key(m) for m in _messages(extracted)}
    have = {_key(m) for m in _messages(po)}
    assert sorted(wanted - have, key=str) == [], f"missing from {tag}: run pybabel update"
    assert sorted(have - wanted, key=str) == [], f"stale in {tag}: run pybabel update"
    assert not po.obsolete, f"obsolete entries left in {tag}"
    fuzzy = [_key(m) for m in _messages(po) if m.fuzzy]
    assert fuzzy == [], f"fuzzy in {tag}"
    empty = [_key(m) for m in _messages(po) if not all(_forms(m))]
    assert empty == [], f"untranslated in {tag}"


@pytest.mark.parametrize("tag", LANGUAGES)
def test_placeholders_match_the_english(tag: str) -> None:
    """Every translation uses exactly the English {placeholders} (a typo would crash a reply);
    a plural form may leave out {count}, as English "one move" does."""
    wrong = []
    for message in _messages(_po(tag)):
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        english = set().union(*(_placeholders(str(one)) for one in ids))
        plural = len(ids) > 1
        for form in _forms(message):
            used = _placeholders(form)
            if plural:
                used |= {"count"} & english
            if used != english:
                wrong.append((ids[0], form))
    assert wrong == []


def _names(catalog: Catalog, context: str) -> set[str]:
    """The command or option names of a catalog (``context``), in English and translated."""
    names = set()
    for message in _messages(catalog):
        if _key(message)[0] == context:
            names.add(str(message.id))
            names.update(form for form in _forms(message) if form)
    return names


def _spelled(text: str, commands: set[str], options: set[str]) -> list[str]:
    """The commands and options ``text`` writes out itself: ``/games``, `` `everywhere` ``,
    ``open_challenge_role``."""
    found = [name for name in re.findall(r"(?<![\w<])/(\w+)", text) if name in commands]
    found += [name for name in re.findall(r"`([^`:]+)[`:]", text) if name in options]
    found += [name for name in re.findall(r"\w+_\w+", text) if name in options]
    return found


@pytest.mark.parametrize("tag", LANGUAGES)
def test_no_message_spells_a_command_or_an_option(tag: str) -> None:
    """A message names a command or option through a placeholder (``command("games")``,
    ``option("everywhere")``), which the reader's language fills in with the names their Discord
    shows; one typed into a message id or a translation would be English for some readers, or
    stale once a name's translation changes."""
    po = _po(tag)
    commands = _names(po, COMMAND_NAME)
    options = _names(po, OPTION_NAME)
    spelled = []
    for message in _messages(po):
        if _key(message)[0] is not None:
            continue  # the names themselves
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        for text in (*(str(one) for one in ids), *_forms(message)):
            if "`/" in text or _spelled(text, commands, options):
                spelled.append(text)
    assert spelled == []


BUTTONS = ("Move", "Accept", "Decline", "Withdraw", "Rematch", "Resign", "Takeback", "Solve")
"""Button labels a message may name in bold (``**Move**``) for the reader to press."""


@pytest.mark.parametrize("tag", LANGUAGES)
def test_a_button_named_in_a_message_is_the_button_the_reader_sees(tag: str) -> None:
    """A message that tells the reader to press **Move** names it as their language labels the
    button under the board, not a translator's other word for it."""
    po = _po(tag)
    labels = {label: str(po[label].string) for label in BUTTONS if po.get(label) is not None}
    assert set(labels) == set(BUTTONS)
    named = 0
    wrong = []
    for message in _messages(po):
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        for english, label in labels.items():
            if any(f"**{english}**" in str(one) for one in ids):
                named += 1
                wrong += [form for form in _forms(message) if f"**{label}**" not in form]
    assert named >= 3
    assert wrong == []


@pytest.mark.parametrize("tag", LANGUAGES)
def test_no_translation_is_left_fuzzy(tag: str) -> None:
    """pybabel marks a message fuzzy when its English changes shape (a singular gaining a
    plural); compile then leaves it out silently and the reader gets English."""
    fuzzy = [_key(message) for message in _messages(_po(tag)) if message.fuzzy]
    assert fuzzy == []


@pytest.mark.parametrize("tag", LANGUAGES)
def test_compiled_catalog_matches_its_source(tag: str) -> None:
    """The shipped .mo says what the .po says (run pybabel compile after editing a .po)."""
    po = _po(tag)
    with (LOCALES_DIR / tag / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as file:
        mo = read_mo(file)
    assert {_key(m): _forms(m) for m in _messages(mo)} == {
        _key(m): _forms(m) for m in _messages(po)
    }
    assert mo.plural_forms == po.plural_forms


def test_discord_locales_find_their_catalog() -> None:
    """pt-BR, es-ES, es-419, fr and de each get their language; others get English."""
    assert language_for("pt-BR").tag == "pt_BR"
    assert language_for("es-ES").tag == "es"
    assert language_for("es-419").tag == "es"
    assert language_for("fr").tag == "fr"
    assert language_for("de").tag == "de"
    assert language_for("en-GB").tag == "en"
    assert language_for("ja").tag == "en"


def test_plural_forms_follow_each_language() -> None:
    """French and Portuguese say 0 in the singular, German and Spanish in the plural."""
    seconds = re.compile(r"\b0 (\w+)")

    def unit(tag: str) -> str:
        text = language_for(tag).n_(
            "Slow down a little: try again in {count} second.",
            "Slow down a little: try again in {count} seconds.",
            0,
        )
        found = seconds.search(text)
        assert found is not None, text
        return found.group(1)

    assert unit("fr") == "seconde"
    assert unit("pt-BR") == "segundo"
    assert unit("de") == "Sekunden"
    assert unit("es-ES") == "segundos"


@pytest.mark.parametrize("tag", LANGUAGES)
def test_the_rules_page_exists_in_every_language(tag: str) -> None:
    """docs/rules.<language>.md is there with every section of the English page (§1–§11), and
    the bot ships it for /rules (its link in bot/rules_pages/, which the build copies)."""
    english = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    page = ROOT / "docs" / f"rules.{tag.replace('_', '-')}.md"
    assert page_name(tag) == page.name, f"bot/rules_pages/{page.name} is missing"
    text = page.read_text(encoding="utf-8")
    sections = [f"§{number}" for number in range(1, 12)]
    assert all(section in english for section in sections)
    assert [section for section in sections if section not in text] == []
    assert text.count("```") == english.count("```"), "every diagram is kept"


_UNELIDED = re.compile(r"(?:^|[\s'(])(au|du|de|le|la|ce|que) [*_« ]*$", re.IGNORECASE)
"""A French word that elides or contracts before a vowel, ending the text before a name (its
bold, italics or quotation marks read through: "de **{ruleset}**" is "de Ard Rí" too)."""


def test_french_names_every_ruleset_with_its_elision() -> None:
    """No French sentence puts "au", "de" or "le" before a ruleset's name that begins with a
    vowel ("au Ard Rí", "de Ard Rí"), nor before a list of rulesets ("les parties de
    {rulesets}"): each reads right for every ruleset."""
    catalog = _po("fr")
    titles = []
    for ruleset in RULESETS.values():
        found = catalog.get(ruleset.title)
        titles.append(str(found.string) if found is not None and found.string else ruleset.title)
    assert any(title[0] in "AEIOUY" for title in titles), "a ruleset that begins with a vowel"
    wrong = []
    for message in _messages(catalog):
        for form in _forms(message):
            for before in re.split(r"\{rulesets?\}", form)[:-1]:
                word = _UNELIDED.search(before)
                if word is not None:
                    wrong += [f"{word.group(1)} {t}" for t in titles if t[0] in "AEIOUY"]
    assert wrong == []


_NAMES = re.compile(
    r"\{(player|players|name|names|asker|challenger|opponent|first|second|winner|other"
    r"|attacker|defender|attackers|defenders)\}"
)
"""The placeholders a member's name fills, any of which may begin with a vowel ("alice")."""


def test_french_puts_no_eliding_word_before_a_players_name() -> None:
    """No French sentence puts "de", "le" or "que" before a member's name: "la pendule de
    alice" should read "d'alice", so each sentence is worded to need no elision."""
    wrong = [
        f"{word.group(0).strip()} {{{name}}}: {form!r}"
        for message in _messages(_po("fr"))
        for form in _forms(message)
        for before, name in zip(_NAMES.split(form)[::2], _NAMES.findall(form), strict=False)
        if (word := _UNELIDED.search(before)) is not None
    ]
    assert wrong == []
