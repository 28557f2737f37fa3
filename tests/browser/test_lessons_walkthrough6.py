"""Walk-through of lessons 3 and 8 in real JupyterLab, read as a Chinese self-learner would, checked in English.

What a file-level test cannot see: where a widget's parts sit on the page (the prose tells the learner where to look),
and what a worked solution prints once its button is pressed. These tests open the lessons in the session's
JupyterLab, run them all and read the page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import coursekit.exercises  # noqa: F401  (registers the solution button's label in the catalog)

from .test_lessons_walkthrough2 import _message, _norm, _press_and_read, _solution_button
from .test_lessons_walkthrough3 import _cell_with


@pytest.mark.parametrize(
    ("notebook", "prose", "wrong", "accepted"),
    [
        ("zh/03_gates.ipynb", "控件正下方的网格", ("左边的网格", "消息框下方的网格"), "ZeRO-3、TP、PP"),
        ("en/03_gates.ipynb", "In the grid right under the controls", ("grid below the message",), "ZeRO-3, TP, PP"),
    ],
)
def test_lesson3_prose_places_the_widgets_table_and_grid_where_they_are(
    open_lesson: Any, notebook: str, prose: str, wrong: tuple[str, ...], accepted: str
) -> None:
    # Section 7 said the grid is on the left (zh), then below the message box; the widget now shows its controls,
    # then the grid, then the message box holding the table of reasons (so controls and grid share one screen).
    page = open_lesson(notebook).page
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    table = widget.locator(".ck-message table").first
    figure = widget.locator(".ck-figure").first
    table_box, figure_box = table.bounding_box(), figure.bounding_box()
    assert table_box and figure_box
    assert figure_box["y"] + figure_box["height"] <= table_box["y"], (table_box, figure_box)
    intro = _cell_with(page, prose)
    assert not any(phrase in intro for phrase in wrong), intro
    # the summary line names the accepted candidates as the language enumerates them
    assert f"{accepted}。" in _message(widget) or f"{accepted}." in _message(widget), _message(widget)


@pytest.mark.parametrize(
    ("notebook", "runs", "growth"),
    [
        (
            "zh/08_lab.ipynb",
            ("运行 X（关闭重叠", "运行 Y（输入延迟：每步 20 ms）", "运行 Z（慢 rank：rank 1 的计算 × 3）"),
            re.compile(r"^P = 2：计算 \+[\d.]+ ms，暴露的通信", re.M),
        ),
        (
            "en/08_lab.ipynb",
            ("run X: no overlap", "run Y: input delay: 20 ms per step", "run Z: slow rank: rank 1 computes × 3"),
            re.compile(r"^P = 2: compute \+[\d.]+ ms, exposed", re.M),
        ),
    ],
)
def test_lesson8_straggler_solution_names_the_faults_in_words(
    open_lesson: Any, notebook: str, runs: tuple[str, ...], growth: re.Pattern[str]
) -> None:
    # Exercise 8.9's worked solution printed the dict {'X': 'no_overlap', 'Y': 'input_delay', 'Z': 'slow_rank'}:
    # internal scenario keys the lesson never introduced. It now names each run's fault as section 6.2 does.
    page = open_lesson(notebook).page
    button, cell = _solution_button(page, "lab.straggler_run")
    shown = _press_and_read(page, button, cell, re.compile(re.escape(runs[-1])))
    for run in runs:
        assert run in shown, shown[-500:]
    assert not re.search(r"slow_rank|input_delay|no_overlap", shown.split("verify(")[-1]), shown[-500:]
    # Section 6.4's growth lines ran "P = 2: 计算 +10.8 ms, 暴露的通信 ..." with ASCII punctuation in zh.
    growth_cell = _cell_with(page, "efficiency_table_view(points")
    assert growth.search(growth_cell), growth_cell


@pytest.mark.parametrize("notebook", ["zh/01_capacity.ipynb", "en/01_capacity.ipynb"])
def test_lesson1_zero_stage_readout_shows_each_stage_whole(open_lesson: Any, notebook: str) -> None:
    # The ZeRO stage slider's readout cut its label off: "3 (+ parameters shard" and "3（再切分参数，类 FSDF", and in
    # English already at the start, "0 (plain DP, nothing sh". Each stage's label must fit the readout.
    page = open_lesson(notebook).page
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    handle = widget.locator(".ck-main .noUi-handle").first
    readout = widget.locator(".ck-main .widget-readout").first
    handle.focus()
    handle.press("Home")
    shown = []
    for stage in range(4):
        page.wait_for_timeout(300)
        text = _norm(readout.inner_text())
        assert text.startswith(str(stage)), (stage, text)
        widths = readout.evaluate("(el) => [el.scrollWidth, el.clientWidth]")
        assert widths[0] <= widths[1], f"stage {stage}: {text!r} is cut off ({widths})"
        shown.append(text)
        handle.press("ArrowRight")
    assert len(set(shown)) == 4, shown
