"""Leftovers 29 in a real browser (the unit half and the numbered list are in tests/test_leftovers29.py):

1. Exercise 0.1's cell in the Chinese lesson 0, typed as a learner types it: ``answer = 5、7`` shows the list and the
   single numbers (not "answer = 5.7"), ``answer = 3:19`` the division, ``answer = 989T/4.8T`` the line with powers
   of 10, each in the orange box of help under Python's error, in Chinese.
2. ``answer = 2^10`` runs (valid Python): no box of help, but check()'s answer under the cell names both readings.
"""

from __future__ import annotations

from typing import Any

import jupyter_browser

from tests.browser.conftest import lesson_page
from tests.browser.test_learner_review23 import LAPTOP
from tests.browser.test_learner_review24 import _cell_index, _type_first_line

EXERCISE = 'check("intro.device_gb", answer)'
HELP = ".coursekit-input-help"


def _helps(lesson: jupyter_browser.LessonPage, index: int) -> int:
    return int(lesson.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(HELP).count())


def test_lesson_0s_exercise_typed_with_the_new_slips(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/00_index.ipynb", run_all_s=180, **LAPTOP) as lesson:
        index = _cell_index(lesson.page, EXERCISE)
        joined = _type_first_line(lesson, index, "answer = 5、7")
        assert "SyntaxError" in joined and _helps(lesson, index) == 1
        assert "用“、”把几个数连在一起" in joined and "answer = [5, 7]" in joined
        assert "只写那一个：answer = 5 或 answer = 7。" in joined and "answer = 5.7" not in joined
        ratio = _type_first_line(lesson, index, "answer = 3:19")
        assert "写的是比 3:19" in ratio and ratio.rstrip().endswith("写成：answer = 3 / 19")
        scaled = _type_first_line(lesson, index, "answer = 989T/4.8T")
        assert "数量级 T = 10^12" in scaled and scaled.rstrip().endswith("意思不变的一行：answer = 989e12/4.8e12")
        xor = _type_first_line(lesson, index, "answer = 2^10")
        assert "Error" not in xor and _helps(lesson, index) == 0
        assert xor.startswith("还不对。") and "这一行 Python 算出的是 8（就是你的答案），按乘方算是 1024。" in xor
        assert xor.rstrip().endswith("answer = 2**10")
        # what it asks for: 24 GiB in GB, 24 x 2^30 / 10^9 = 25.77 (by hand)
        assert _type_first_line(lesson, index, "answer = 24 * 2**30 / 10**9").startswith("正确")
