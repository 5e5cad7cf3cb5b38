"""The rules page (``docs/rules.md`` and its translations), shipped with the bot for ``/rules``.

``bot/rules_pages/`` holds links to the pages in ``docs/``; building the package copies the
pages themselves, so an installed bot attaches the same text a reader of the repository sees.
"""

from __future__ import annotations

from importlib import resources

PAGES = "rules_pages"


def page_name(tag: str) -> str:
    """The file of the rules page in the language ``tag`` (Babel's: ``pt_BR``, ``de``, ``en``);
    English for a language without its own page."""
    if tag == "en":
        return "rules.md"
    name = f"rules.{tag.replace('_', '-')}.md"
    if resources.files("bot").joinpath(PAGES, name).is_file():
        return name
    return "rules.md"


def rules_page(tag: str) -> bytes:
    """The whole rules page in the language ``tag`` (Markdown, UTF-8)."""
    return resources.files("bot").joinpath(PAGES, page_name(tag)).read_bytes()
