"""Lesson 9 widget's caches (coursekit.widgets.workbench): what a learner sees never comes from a stale entry.

The widget keeps plans by control values and verdicts by plan and language. Whatever it takes from them must be what a
widget built afresh for the same settings shows: the verdict (its table and messages) and the figure's data.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pytest

import coursekit
from coursekit.planner import search
from coursekit.widgets import workbench
from coursekit.widgets.workbench import WorkbenchWidget


def _shown(w: WorkbenchWidget, titles: bool = True) -> tuple[Any, ...]:
    """What the learner sees: the verdict and, for each visible chart, its limits, title (unless ``titles`` is
    False), tick labels, bars, texts and lines."""
    charts: list[Any] = []
    for ax in w.figure.axes:
        if not ax.get_visible():
            charts.append(None)
            continue
        charts.append(
            (
                tuple(ax.get_xlim()),
                tuple(ax.get_ylim()),
                ax.get_title() if titles else None,
                tuple(t.get_text() for t in ax.get_yticklabels()),
                tuple((p.get_x(), p.get_y(), p.get_width(), p.get_height(), p.get_visible()) for p in ax.patches),
                tuple((t.get_text(), t.get_visible()) for t in ax.texts),
                tuple((tuple(np.asarray(ln.get_xdata())), tuple(np.asarray(ln.get_ydata()))) for ln in ax.lines),
            )
        )
    return w.status, w.verdict, w.message, w.message_html.value, tuple(charts)


def _fresh(values: dict[str, Any], language: str, titles: bool = True) -> tuple[Any, ...]:
    """What a widget built now shows for ``values`` in ``language``, with the planner's own cache emptied too."""
    coursekit.set_language(language)
    search._gated_spaces.clear()
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["mode"].value = values["mode"]  # first: switching the mode sets the batch and sequence
        for name, value in values.items():
            w.controls[name].value = value
    assert w.values() == values
    return _shown(w, titles)


@pytest.fixture
def english() -> Any:
    coursekit.set_language("en")
    yield
    coursekit.set_language("en")


@pytest.mark.parametrize(("control", "value"), [("lora", 16), ("nodes", 8), ("mfu", 0.4), ("mode", "serving")])
def test_a_control_changed_and_back_shows_a_fresh_widgets_output(english: None, control: str, value: Any) -> None:
    w = WorkbenchWidget()
    start = w.values()
    first = _shown(w)
    w.controls[control].value = value
    assert _shown(w) == _fresh(w.values(), "en")
    coursekit.set_language("en")
    w.controls[control].value = start[control]
    assert w.values() == start
    assert _shown(w) == first == _fresh(start, "en")


def test_serving_curve_follows_the_plan_shown(english: None) -> None:
    """The best layout's curve is kept for the plan it was worked out for: another plan, and the first one again,
    show their own (chart and verdict)."""
    w = WorkbenchWidget()
    w.controls["mode"].value = "serving"
    first = _shown(w)
    w.controls["model"].value = "llama3-8b"  # another best layout, another curve
    assert _shown(w)[4] != first[4]
    assert _shown(w) == _fresh(w.values(), "en")
    w.controls["model"].value = "llama3-70b"
    assert _shown(w) == first == _fresh(w.values(), "en")


def test_switching_the_language_and_back_shows_a_fresh_widgets_output(english: None) -> None:
    """The verdict and the charts' data; the charts' titles keep the language the widget was built in (a lesson
    sets the language first), so they are left out of the comparison with a widget built in the other one."""
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["lora"].value = 32
        w.controls["nodes"].value = 8
    values = w.values()
    english_view = _shown(w)
    coursekit.set_language("zh")
    w.redraw()
    chinese_view = _shown(w, titles=False)
    assert chinese_view[2] != english_view[2] and "个组合" in chinese_view[2]  # the verdict is kept per language
    assert chinese_view == _fresh(values, "zh", titles=False)
    coursekit.set_language("en")
    w.redraw()
    assert _shown(w) == english_view == _fresh(values, "en")


def test_a_verdict_kept_for_a_freed_plan_is_not_shown_for_another_plan(english: None) -> None:
    """The verdicts are kept by the plan's id; a later plan may get a freed plan's id, and must get its own verdict."""
    w = WorkbenchWidget()
    result, verdict = w.result, w.message

    class Freed:
        pass

    gone = Freed()
    w._verdicts[(id(result), "en")] = (weakref.ref(gone), "a verdict on another plan")
    del gone
    assert w.describe(result) == verdict


def test_the_verdict_cache_is_bounded(english: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workbench, "VERDICT_CACHE_SIZE", 2)
    w = WorkbenchWidget()
    for nodes in (8, 4, 16, 8):
        w.controls["nodes"].value = nodes
        assert len(w._verdicts) <= 2
    assert _shown(w) == _fresh(w.values(), "en")
