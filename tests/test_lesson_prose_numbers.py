"""Numbers quoted in lesson prose are pinned to what coursekit computes.

Each row: a lesson source, a phrase of its prose, and the coursekit value the phrase quotes.
When the prose or the library changes, this test says which sentence is now wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import coursekit

SRC = Path(__file__).resolve().parents[1] / "notebooks" / "src"


def _percent(value: float) -> str:
    return f"{round(100 * value)}%"


PROSE: list[tuple[str, str, Callable[[], str]]] = [
    ("05_selection_matrix.py", "开销 75%", lambda: "开销 " + _percent(coursekit.bubble_overhead(4, 4))),
    ("05_selection_matrix.py", "overhead of 75%", lambda: "overhead of " + _percent(coursekit.bubble_overhead(4, 4))),
    ("05_selection_matrix.py", "比例就是 43%", lambda: "比例就是 " + _percent(coursekit.bubble_fraction(4, 4))),
    ("05_selection_matrix.py", "it is 43%", lambda: "it is " + _percent(coursekit.bubble_fraction(4, 4))),
    ("05_selection_matrix.py", "比例降到 16%", lambda: "比例降到 " + _percent(coursekit.bubble_fraction(4, 16))),
    ("05_selection_matrix.py", "down to 16%", lambda: "down to " + _percent(coursekit.bubble_fraction(4, 16))),
    ("05_selection_matrix.py", "m = 4 的 43%", lambda: "m = 4 的 " + _percent(coursekit.bubble_fraction(4, 4))),
    ("05_selection_matrix.py", "(43% at m = 4", lambda: f"({_percent(coursekit.bubble_fraction(4, 4))} at m = 4"),
]


@pytest.mark.parametrize(("source", "phrase", "computed"), PROSE)
def test_prose_quotes_the_computed_value(source: str, phrase: str, computed: Callable[[], str]) -> None:
    text = (SRC / source).read_text(encoding="utf-8")
    assert phrase in text, f"{source} no longer says {phrase!r}: update the prose and this table together"
    assert computed() == phrase
