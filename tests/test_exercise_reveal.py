"""The show-on-request buttons: what Run All leaves on screen holds no answer; pressing shows it."""

from __future__ import annotations

from typing import Any

import pytest

import coursekit
from coursekit import exercises
from coursekit.exercises import _RevealButton, offer_solution, reveal, verify


def test_the_solution_offer_names_show_solution_and_not_the_result() -> None:
    coursekit.set_language("en")
    pressed: list[str] = []
    button = _RevealButton("Show", coursekit.exercises.tr("exercises.solution_offer", id="q2.tp_calls"), lambda: None)
    bundle = button._repr_mimebundle_()
    assert (
        bundle["text/plain"]
        == 'The worked solution is put away. To see it, press the button or run show_solution("q2.tp_calls").'
    )
    assert "1152" not in str(bundle)
    assert pressed == []


def test_pressing_the_button_calls_what_it_reveals() -> None:
    pytest.importorskip("ipywidgets")
    shown: list[str] = []
    button = _RevealButton("Show", "put away", lambda: shown.append("table"))
    button.widget.children[0].click()  # ipywidgets.Button.click fires the on_click handlers
    assert shown == ["table"]


def test_reveal_outside_a_notebook_shows_nothing_and_refuses_a_non_function() -> None:
    shown: list[str] = []
    reveal(lambda: shown.append("table"))
    assert shown == []
    with pytest.raises(TypeError, match="show = 'the table': must be a function to call later, not str"):
        reveal("the table")  # type: ignore[arg-type]


def test_verify_offers_the_solution_only_in_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    offered: list[tuple[str, Any]] = []
    monkeypatch.setattr(exercises, "offer_solution", lambda eid, reveal=None, label=None: offered.append((eid, reveal)))
    verify("q2.tp_calls", 1152)
    assert offered == []  # plain Python: nothing shown
    monkeypatch.setattr(exercises, "_in_kernel", lambda: True)
    table = lambda: None  # noqa: E731
    verify("q2.tp_calls", 1152, reveal=table)
    assert offered == [("q2.tp_calls", table)]
    with pytest.raises(AssertionError, match=r"q2\.tp_calls: incorrect"):
        verify("q2.tp_calls", 1150, reveal=table)
    assert len(offered) == 1  # a wrong solution offers nothing


def test_offer_solution_refuses_an_unknown_exercise() -> None:
    with pytest.raises(ValueError, match="no exercise"):
        offer_solution("q2.no_such_exercise")
