"""What a Chinese learner sees in Chromium (JupyterLab as ``make lab`` starts it, 1280 x 720 at 110 %) for the input
help fixed in fuzz pass 25 (``tests/test_fuzz_regressions25.py`` for the Python side):

* lesson 1: the headroom exercise's answer typed in Chinese numerals, ``answer = 负一点四七``, is told to write
  ``answer = -1.47`` (not to quote it as an option), and that line is right;
* lesson 3: the TP rule exercise's option typed with a full-width percent sign, ``answer = interconnect％``, is told
  about the full-width character without a line that Python refuses too (``answer = interconnect%``).
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


def test_lesson_1_a_headroom_in_chinese_numerals(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/01_capacity.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        headroom = _cell_index(page, 'check("q1.headroom_gib", answer)')
        _run_code_cells_through(lesson, headroom - 1)
        shown = _type_first_line(lesson, headroom, "answer = 负一点四七")
        assert "NameError" in shown and "'负一点四七' 是中文数字" in shown and "写成 answer = -1.47。" in shown
        assert "answer = '负一点四七'" not in shown
        assert _type_first_line(lesson, headroom, "answer = -1.47").startswith("正确。")


def test_lesson_3_an_option_with_a_full_width_percent(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/03_gates.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        rule = _cell_index(page, 'check("q3.tp_rule", answer)')
        _run_code_cells_through(lesson, rule - 1)
        shown = _type_first_line(lesson, rule, "answer = interconnect％")
        assert "SyntaxError" in shown and "第 1 行有 '％'" in shown and "仍不是 Python 能读的代码" in shown
        assert "interconnect%" not in shown.split("SyntaxError", 1)[1]  # no line Python refuses is offered
