"""Pictures fitted under a message's upload limit: drawn smaller, then left out."""

from __future__ import annotations

from bot.flow.uploads import MESSAGE_OVERHEAD, SMALL_WIDTH, Draw, fit_pictures, picture_budget


def drawing(own: int, small: int, drawn: list[int | None]) -> Draw:
    """A picture of ``own`` bytes at its own width and ``small`` at SMALL_WIDTH."""

    def draw(width: int | None) -> bytes:
        drawn.append(width)
        return bytes(own if width is None else small)

    return draw


def test_pictures_that_fit_are_drawn_once_at_their_own_width() -> None:
    """Together under the budget: each is drawn once, as it is."""
    drawn: list[int | None] = []
    pictures = fit_pictures([drawing(40, 20, drawn), drawing(50, 25, drawn)], 90)
    assert [len(p or b"") for p in pictures] == [40, 50]
    assert drawn == [None, None]


def test_the_largest_is_drawn_smaller_first() -> None:
    """Over the budget: the largest is drawn again smaller, and that is enough."""
    drawn: list[int | None] = []
    pictures = fit_pictures([drawing(40, 20, drawn), drawing(50, 25, drawn)], 70)
    assert [len(p or b"") for p in pictures] == [40, 25]
    assert drawn == [None, None, SMALL_WIDTH]


def test_what_cannot_fit_even_small_is_left_out_largest_first() -> None:
    """Still over the budget with every picture small: the largest are left out."""
    drawn: list[int | None] = []
    pictures = fit_pictures([drawing(40, 20, drawn), drawing(50, 30, drawn)], 25)
    assert [None if p is None else len(p) for p in pictures] == [20, None]


def test_the_budget_leaves_room_for_the_message_and_its_other_files() -> None:
    """The pictures' budget is the limit less the message's overhead and the other files."""
    assert picture_budget(1_000_000, b"x" * 300) == 1_000_000 - MESSAGE_OVERHEAD - 300
