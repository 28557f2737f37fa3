"""What the Chinese self-learner of review 29 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review29.py for the Python side of the same fixes), in the
exercise cells of lesson 1:

* exercise 1.1 answered right, then typed again as ``answer == 26.19`` (two equals signs) or ``answer: 26.19``: the
  cell says that no line gave answer its value and shows ``answer = 26.19``, not a verdict on the answer left from
  before; the full-width space of a Chinese input method after the number gets a line of help naming U+3000;
* exercise 1.2 answered ``answer = ~2`` ("~" for "about", which Python reads as bitwise NOT, -3) is told to leave
  out the "~";
* after a kernel restart, ``answer == 26.19`` (a NameError for answer) says that ``==`` compares, not that the cells
  above should be run;
* each message fits the notebook's visible height with its cell.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page, restart_kernel
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP, _run_code_cells_through
from tests.browser.test_learner_review27 import _cell_fits

# Exercise 1.1 worked by hand: 2 x 7.5e9 + 14 x 7.5e9 / 8 bytes = 28.125e9 bytes = 26.19 GiB.
ZERO2_GIB = "26.19"


def test_lesson_1_slips_python_runs_without_an_error(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/01_capacity.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        zero2 = _cell_index(page, 'check("q1.zero2_gib", answer)')
        _run_code_cells_through(lesson, zero2 - 1)
        assert _type_first_line(lesson, zero2, f"answer = {ZERO2_GIB}").startswith("正确。")
        for typed, said in (
            (f"answer == {ZERO2_GIB}", "用了两个等号 ==，那是比较，不是赋值"),
            (f"answer: {ZERO2_GIB}", "用了冒号，Python 把它读成类型注解，不是赋值"),
        ):
            shown = _type_first_line(lesson, zero2, typed)
            assert shown.startswith("无法检查。这个单元格没有给 answer 赋值：") and said in shown, shown
            assert shown.rstrip().endswith(f"answer = {ZERO2_GIB}") and "正确" not in shown
            _cell_fits(page, zero2)
        space = _type_first_line(lesson, zero2, f"answer = {ZERO2_GIB}\u3000")
        assert "SyntaxError" in space and "第 1 行有一个看不见的字符 U+3000" in space, space
        assert space.rstrip().endswith(f"重新输入这一行：answer = {ZERO2_GIB}")
        _cell_fits(page, zero2)
        assert _type_first_line(lesson, zero2, f"answer = {ZERO2_GIB}").startswith("正确。")  # before running on
        stage = _cell_index(page, 'check("q1.min_zero_stage", answer)')
        _run_code_cells_through(lesson, stage - 1)
        tilde = _type_first_line(lesson, stage, "answer = ~2")
        assert tilde.startswith("还不对。提示：第 1 行的数前面有“~”：在 Python 里 ~ 不是“约”"), tilde
        assert tilde.rstrip().endswith("不用写“~”：answer = 2")
        _cell_fits(page, stage)
        assert _type_first_line(lesson, stage, "answer = 2").startswith("正确。")
        # a kernel restart in the middle of the lesson: answer has no value any more
        restart_kernel(page)
        restarted = _type_first_line(lesson, zero2, f"answer == {ZERO2_GIB}")
        assert "NameError" in restarted and "第 1 行用了两个等号 ==" in restarted, restarted
        assert restarted.rstrip().endswith(f"赋值只用一个等号：answer = {ZERO2_GIB}") and "运行前面" not in restarted
        _cell_fits(page, zero2)
