"""A worked-solution button puts the solution away again on a second press, in real JupyterLab.

A learner who opened a solution to check one step had no way to hide it and retry the exercise without it in sight:
the button kept its label and a second press showed the same solution again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import scratch_notebook

SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')",
    'from coursekit.exercises import offer_solution\noffer_solution("eff.decode_share")',
]


def test_a_second_press_hides_the_solution_and_a_third_shows_it(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as page:
        button = page.page.locator(".ck-reveal-button").first
        button.wait_for(state="visible", timeout=60_000)
        shown = page.page.locator(".ck-revealed").first
        assert button.inner_text().strip() == "显示参考解答与结果" and "题目：" not in shown.inner_text()
        for expected_label, solution_visible in (("收起", True), ("显示参考解答与结果", False), ("收起", True)):
            button.click()
            page.page.wait_for_function(
                "([b, label]) => b.innerText.trim() === label",
                arg=[button.element_handle(), expected_label],
                timeout=30_000,
            )
            page.page.wait_for_timeout(300)
            assert ("题目：" in shown.inner_text()) == solution_visible, shown.inner_text()[:200]
