"""The one mark the engine puts on its sentences: ``N_`` (gettext's name for a no-op marker).

The engine says everything in English and stays free of any translation machinery; its
sentences (refusals, ruleset titles and summaries) are marked with ``N_`` so that the bot's
message catalogs extract them and can say them in other languages (README, "Languages").
"""

from __future__ import annotations


def N_(sentence: str) -> str:
    """Mark ``sentence`` for translation; returns it unchanged."""
    return sentence


__all__ = ["N_"]
