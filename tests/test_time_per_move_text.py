"""How a time per move reads in challenges, /games and /settings (bot/views/challenge.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.i18n import language
from bot.views.challenge import time_per_move_text


@pytest.mark.parametrize(
    ("per_move", "english", "german"),
    [
        (timedelta(weeks=1), "1 week", "1 Woche"),
        (timedelta(weeks=2), "2 weeks", "2 Wochen"),
        (timedelta(days=3), "3 days", "3 Tage"),
        (timedelta(days=1), "1 day", "1 Tag"),
        (timedelta(hours=36), "36 h", "36 h"),
        (timedelta(hours=12), "12 h", "12 h"),
        (timedelta(minutes=5), "5 min", "5 min"),
    ],
)
def test_whole_days_and_weeks_read_as_the_options_name_them(
    per_move: timedelta, english: str, german: str
) -> None:
    """A week per move reads "1 week" (the option's name), not "168 h"; times that are not
    whole days keep hours or minutes."""
    assert time_per_move_text(per_move) == english
    assert time_per_move_text(per_move, language("de")) == german
