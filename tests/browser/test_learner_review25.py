"""What the Chinese self-learner of review 25 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review25.py for the Python side of the same fixes):

* lesson 0: the menu bar's "运行" menu holds the item the lesson names ("运行选中单元格上方的所有单元格"), the lesson's
  rendered text names it, and ``answer = gib_to_gb(24)`` typed into exercise 0.1 (a function coursekit.units does
  not have: a NameError) gets a line of help naming it too; ``answer = 二`` gets "写成 answer = 2", not quotes;
  ``answer = 24 * 2^30 / 10^9`` (a TypeError) gets the line with ``**``, and ``answer = 2^30`` (28, no error) is
  told by check() what ``^`` is;
* lesson 9: the first report (``report(top=0)``) ends with the count and "这里一个也不列出", not "前 0 个："; exercise
  9.4 answered ``2.9`` (the growth in percent, two digits) gets the percent slip's hint, not the method hint.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.test_learner_review25 import zh_cn_label

#: 1280 x 720 at 110 % zoom, as tests/browser/test_learner_review23.py measures it.
LAPTOP: dict[str, Any] = {"viewport": (1164, 655), "device_scale_factor": 1.1}


def _run_code_cells_through(lesson: jupyter_browser.LessonPage, last: int) -> None:
    """Run the code cells 0..``last`` one by one, as Shift+Enter does, and check that none failed."""
    kinds = lesson.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.map((c) => c.model.type)")
    for index in range(last + 1):
        if kinds[index] == "code":
            shown = lesson.run_cell(index, timeout_ms=300_000)
            assert "Traceback" not in shown and "Error" not in shown, (index, shown)


def test_lesson_0_names_the_menu_of_the_chinese_ui(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    menu_name, item = zh_cn_label("Run"), zh_cn_label("Run All Above Selected Cell")
    with lesson_page(browser, zh_lab, "zh/00_index.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        # the menu as JupyterLab shows it
        page.locator(".lm-MenuBar-item", has_text=menu_name).first.click()
        items = page.locator(".lm-Menu-itemLabel").all_inner_texts()
        page.keyboard.press("Escape")
        assert item in items, items
        # the lesson's text names it
        text = page.locator(".jp-MarkdownOutput").all_inner_texts()
        assert any(f"“{menu_name} → {item}”" in t for t in text)
        # and so does the line of help under a NameError typed into exercise 0.1
        state = lesson.run_all(timeout_s=300)
        assert state["errors"] == [], state["errors"]
        index = _cell_index(page, 'check("intro.device_gb", answer)')
        shown = _type_first_line(lesson, index, "answer = gib_to_gb(24)")  # a guessed function
        assert "NameError" in shown and f"“{menu_name} → {item}”" in shown
        # a Chinese numeral typed for a number: shown in digits, not "put it in quotes"
        numeral = _type_first_line(lesson, index, "answer = 二")
        assert "'二' 是中文数字" in numeral and "写成 answer = 2。" in numeral and "加引号" not in numeral
        # a power written as the lessons print it: the TypeError gets a line of help (the handler takes TypeError)
        caret = _type_first_line(lesson, index, "answer = 24 * 2^30 / 10^9")
        assert "TypeError" in caret and "改好的一行：answer = 24 * 2**30 / 10**9" in caret
        # all whole numbers: no error, 2^30 is 28; check() reads the cell's line and says so
        silent = _type_first_line(lesson, index, "answer = 2^30")
        assert silent.startswith("还不对。") and "按位异或" in silent and "answer = 2**30" in silent


def test_lesson_9_top_0_report_and_a_two_digit_growth(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/09_workbench.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        report = _cell_index(page, "print(result.report(top=0))")
        _run_code_cells_through(lesson, report - 1)
        # run once: a second run_cell of a cell already run would read its old (or cleared) output
        shown = lesson.run_cell(report, timeout_ms=300_000)
        last = [line for line in shown.splitlines() if line.strip()][-1]
        assert last.startswith("通过的候选：") and "这里一个也不列出" in last and "前 0 个" not in shown
        # exercise 9.4: a growth of 2.92 % typed as 2.9
        exercise = _cell_index(page, 'check("plan.slow_link", answer)')
        typed = _type_first_line(lesson, exercise, "answer = 2.9")
        assert typed.startswith("还不对。") and "这是以百分数写的增长" in typed
        assert _type_first_line(lesson, exercise, "answer = 1.03").startswith("正确。")
