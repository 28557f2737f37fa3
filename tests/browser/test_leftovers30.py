"""Leftovers 30 in a real browser (the numbered list and the unit half are in tests/test_leftovers30.py):

1. Exercise 0.1's cell in the Chinese lesson 0, typed as a learner types it: ``answer = 缺1.47`` shows both readings
   of "short by", ``answer = 7.5B*3.75/2**30`` both readings of B, ``answer = ×1.0`` the number alone (not the
   line ``answer = *1.0`` that does not compile), ``answer：26.19`` the line with an equals sign, each in the orange
   box of help under Python's error, in Chinese; ``answer: 24 * 2**30 / 10**9`` runs (valid Python) and check()'s
   answer under the cell says the colon assigned nothing; after a kernel restart, where the cell raises a NameError
   on its check line, the box still points at the answer line.
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


def test_lesson_0s_exercise_typed_with_the_slips_of_leftovers_30(
    zh_lab: jupyter_browser.LabServer, browser: Any
) -> None:
    with lesson_page(browser, zh_lab, "zh/00_index.ipynb", run_all_s=180, **LAPTOP) as lesson:
        index = _cell_index(lesson.page, EXERCISE)
        short = _type_first_line(lesson, index, "answer = 缺1.47")
        assert "SyntaxError" in short and _helps(lesson, index) == 1
        assert "缺 1.47 就是负数：answer = -1.47" in short and "写 answer = 1.47。" in short
        billion = _type_first_line(lesson, index, "answer = 7.5B*3.75/2**30")
        assert "B 是十亿时写：answer = 7.5e9*3.75/2**30" in billion
        assert billion.rstrip().endswith("B 是字节时只写数：answer = 7.5*3.75/2**30")
        times = _type_first_line(lesson, index, "answer = ×1.0")
        assert _helps(lesson, index) == 1 and "answer = *1.0" not in times
        assert times.rstrip().endswith("倍数只写数：answer = 1.0")
        colon = _type_first_line(lesson, index, "answer：26.19")
        assert "用了冒号" in colon and colon.rstrip().endswith("改好的一行：answer = 26.19")
        # valid Python: an annotation assigns nothing, and check() says so under the cell (no box of help)
        annotated = _type_first_line(lesson, index, "answer: 24 * 2**30 / 10**9")
        assert "Error" not in annotated and _helps(lesson, index) == 0
        assert "用了冒号" in annotated and annotated.rstrip().endswith("answer = 24 * 2**30 / 10**9")
        # what it asks for: 24 GiB in GB, 24 x 2^30 / 10^9 = 25.77 (by hand)
        assert _type_first_line(lesson, index, "answer = 24 * 2**30 / 10**9").startswith("正确")
        # after a kernel restart the cell raises a NameError on its check line (check, then answer, undefined): the
        # box still points at the answer line, in Chinese (the kernel takes the language from the lesson's folder)
        lesson.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
        lesson.page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
            timeout=60_000,
        )
        restarted = _type_first_line(lesson, index, "answer: 24 * 2**30 / 10**9")
        assert "NameError" in restarted and _helps(lesson, index) == 1
        assert "第 1 行 answer: 24 * 2**30 / 10**9 用了冒号" in restarted
        assert restarted.rstrip().endswith("改好的一行：answer = 24 * 2**30 / 10**9")
