"""What the Chinese self-learner of review 27 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review27.py for the Python side of the same fixes):

* lesson 2: the listing of each strategy's traffic names each collective in Chinese before its code name
  ("全收集（all_gather），每步 288 次"); exercise 2.1 answered 0.25 and then 0.250 is told about 1024 against 1000,
  not to add digits; exercise 2.2 answered ``'账本 B'`` is right;
* lesson 3: exercise 3.3 typed ``answer = (1 2 4 8 16)`` gets the line fixed with its commas, and that line is right;
  3.2 typed ``answer = {TP, EP, PP, Replica}`` is shown with every option quoted, and ``answer = 'TP, EP'`` is shown
  as the set ``{'TP', 'EP'}``; each line of help fits the notebook's visible height with the cell's code;
* lesson 5: exercise 5.1's state typed ``'13 GiB'`` in its dict is told "写成 1: 13", not ``answer = 13``;
* lesson 9: exercise 9.3 typed ``answer = 2400亿`` is told 亿 is 10^8 and what that is in billions, not
  ``answer = 2400``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP, _run_code_cells_through


def _cell_fits(page: Any, index: int) -> None:
    """The cell ``index`` (its code and the line of help under it) fits the notebook's visible height."""
    sizes = page.evaluate(
        """(i) => { const panel = window.jupyterapp.shell.currentWidget;
             const cell = panel.content.widgets[i].node.getBoundingClientRect();
             const view = panel.content.node.getBoundingClientRect();
             return [cell.height, view.height]; }""",
        index,
    )
    assert sizes[0] <= sizes[1], sizes


def test_lesson_2_listing_and_exercises(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/02_communication.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        state = lesson.run_all(timeout_s=300)
        assert state["errors"] == [], state["errors"]
        listing = _cell_index(page, "for label_, (entries, _, _) in traffic.items():")
        shown = page.evaluate(
            """(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].node
                 .querySelector('.jp-OutputArea').innerText""",
            listing,
        )
        lines = [line.strip() for line in shown.splitlines() if "，每步 " in line]
        assert len(lines) == 14, shown
        assert "ZeRO-3   全收集（all_gather），每步 288 次".split() == lines[3].split()
        assert not any(" x " in line or line.endswith(("x", "X")) for line in lines)
        # 2.1: 10 us x 25 GiB/s in MiB with 1000 for 1024, then with one more digit as the old hint asked
        crossover = _cell_index(page, 'check("q2.crossover_mib", answer)')
        for typed in ("answer = 0.25", "answer = 0.250"):
            slip = _type_first_line(lesson, crossover, typed)
            assert slip.startswith("还不对。") and "二进制单位之间差 1024 倍，不是 1000 倍" in slip
        assert _type_first_line(lesson, crossover, "answer = 0.256").startswith("正确。")
        # 2.2: the ledger named as the lesson names it
        bound = _cell_index(page, 'check("q2.latency_bound", answer)')
        assert _type_first_line(lesson, bound, "answer = '账本 B'").startswith("正确。")


def test_lesson_3_tuples_and_sets_typed_as_a_newcomer(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/03_gates.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        first = _cell_index(page, 'check("q3.first_gate", answer)')
        _run_code_cells_through(lesson, first - 1)
        # 3.3: the tuple without commas
        degrees = _cell_index(page, 'check("q3.dp_degrees", answer)')
        spaced = _type_first_line(lesson, degrees, "answer = (1 2 4 8 16)")
        assert "SyntaxError" in spaced and "括号里的各项之间缺少逗号" in spaced
        assert "改好的一行：answer = (1, 2, 4, 8, 16)" in spaced
        _cell_fits(page, degrees)
        assert _type_first_line(lesson, degrees, "answer = (1, 2, 4, 8, 16)").startswith("正确。")
        # 3.2: the set's options without quotes, then the set typed as text
        accepted = _cell_index(page, 'check("q3.accepted", answer)')
        bare = _type_first_line(lesson, accepted, "answer = {TP, EP, PP, Replica}")
        assert "NameError" in bare and "answer = {'TP', 'EP', 'PP', 'Replica'}" in bare
        _cell_fits(page, accepted)
        text = _type_first_line(lesson, accepted, "answer = 'TP, EP'")
        assert text.startswith("无法检查。") and "写成 answer = {'TP', 'EP'}。" in text
        assert _type_first_line(lesson, accepted, "answer = {'TP', 'EP', 'PP', 'Replica'}").startswith("正确。")


def test_lesson_9_active_parameters_in_yi(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/09_workbench.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        state = lesson.run_all(timeout_s=600)
        assert state["errors"] == [], state["errors"]
        active = _cell_index(page, 'check("plan.moe_active", answer)')
        yi = _type_first_line(lesson, active, "answer = 2400亿")
        assert "SyntaxError" in yi and "'亿' 不是单位，是数量级 10^8" in yi and "按十亿 (B) 计是 240）" in yi
        help_line = yi.split("SyntaxError", 1)[1]  # under Python's echo of the typed line
        assert "answer = 2400" not in help_line
        _cell_fits(page, active)
        assert _type_first_line(lesson, active, "answer = 240").startswith("正确。")


def test_lesson_5_an_entry_told_as_an_entry(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/05_selection_matrix.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        cases = _cell_index(page, "my_state_gib = {1: ..., 2: ..., 3: ...}")
        _run_code_cells_through(lesson, cases - 1)
        shown = _type_first_line(lesson, cases, "my_state_gib = {1: '13 GiB', 2: ..., 3: ...}")
        first = shown.splitlines()[0]
        assert first.startswith("案例 1，训练状态：无法检查。1: '13 GiB'") and first.endswith("：1: 13。"), shown
        assert "answer" not in shown
        right = _type_first_line(lesson, cases, "my_state_gib = {1: 13, 2: ..., 3: ...}")
        assert right.splitlines()[0].startswith("案例 1，训练状态：正确。")
