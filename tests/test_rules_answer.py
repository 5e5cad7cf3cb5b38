"""/rules' text answer fits one Discord message for every preset, in every language."""

from __future__ import annotations

import io

import discord
import pytest

from bot.cogs.info import rules_answer
from bot.flow.posts import MESSAGE_LIMIT
from bot.i18n import Language, languages, mentions
from engine import RULESETS, get_ruleset
from renderer import describe_rules_card

CASES = [(language, name) for language in languages() for name in sorted(RULESETS)]


def _case_id(value: object) -> str:
    return value.tag if isinstance(value, Language) else str(value)


@pytest.fixture(autouse=True)
def long_mentions() -> None:
    """Commands named as mentions with 20-digit ids, the longest Discord gives."""
    mentions.learn({"move": 10**19, "board": 10**19})


def _card(language: Language, name: str) -> discord.File:
    description = describe_rules_card(get_ruleset(name), words=language)
    return discord.File(io.BytesIO(b""), filename="rules.png", description=description)


@pytest.mark.parametrize(("language", "name"), CASES, ids=_case_id)
def test_the_rules_with_their_page_attached_fit_one_message(language: Language, name: str) -> None:
    """With the page and the card attached, /rules' text fits Discord's 2000 characters."""
    text = rules_answer(name, language)
    if language.tag == "en":  # other languages name a command by its name in their Discord
        assert "</move:10000000000000000000>" in text
    assert len(text) <= MESSAGE_LIMIT, (language.tag, name, len(text))


@pytest.mark.parametrize(("language", "name"), CASES, ids=_case_id)
def test_the_rules_with_the_cards_text_in_its_place_fit_one_message(
    language: Language, name: str
) -> None:
    """Where I may not attach files, /rules' text with the card's alt text quoted in its
    place and the reason the page is missing fits Discord's 2000 characters, the card's
    squares all there (not cut for a "too long" line)."""
    card = _card(language, name)
    text = rules_answer(name, language, card_as_text=card)
    assert card.description is not None
    assert card.description.split(". ")[1] in text
    assert len(text) <= MESSAGE_LIMIT, (language.tag, name, len(text))
