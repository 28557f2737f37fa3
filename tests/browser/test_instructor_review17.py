"""What a Chinese instructor projecting the lessons at 1280 px found in a real browser (review 17).

Lesson 2's display formula put the general cost, the all-reduce and the all-gather / reduce-scatter / all-to-all
cases on one line, 944 px wide in an 846 px cell: JupyterLab cut it after "(n-1)" (the bandwidth term of the second
case was out of sight and the cell scrolled sideways). Each case now has a line of its own.
"""

from __future__ import annotations

from typing import Any

#: Rendered Markdown (prose, tables, formulas) wider than the room its cell gives it: what needs a sideways scroll.
TOO_WIDE = """() => [...document.querySelectorAll('.jp-Cell .jp-RenderedMarkdown')]
  .filter((md) => md.clientWidth && md.scrollWidth > md.clientWidth + 1)
  .map((md) => [md.scrollWidth, md.clientWidth, md.innerText.slice(0, 60)])"""


def test_lesson_2_formulas_fit_a_1280_px_screen(open_lesson: Any) -> None:
    for notebook in ("zh/02_communication.ipynb", "en/02_communication.ipynb"):
        page = open_lesson(notebook)
        page.page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0")
        assert page.page.evaluate(TOO_WIDE) == [], notebook
