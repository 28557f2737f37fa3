"""What an English instructor projecting the lessons found in a real browser (review 18).

Outside `make lab` and Binder (which turn JupyterLab's line wrapping on), a learner's own JupyterLab, VS Code and the
JupyterLite site show a code line on one line: 101 of the English lessons' 262 code cells scrolled sideways at
1280 × 900, 157 at 1024 px zoomed to 125 % (143 with the file browser folded away). The lesson sources now keep code
lines to 80 columns. The session's server (tools/jupyter_browser.py LAB_SETTINGS) leaves line wrapping off, so it
measures the unwrapped case.

Lesson 2's listing of each strategy's traffic put the entry and its description on one line of up to 124 characters:
in the 840 px output area 6 of its 14 lines wrapped onto a second row. Each entry now has two lines.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

#: Code editors wider inside than the room their cell gives them: what needs a sideways scroll.
SCROLLS_SIDEWAYS = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-editor .cm-scroller')]
  .filter((s) => s.clientWidth && s.scrollWidth > s.clientWidth + 1)
  .map((s) => [s.scrollWidth, s.clientWidth, s.innerText.split('\\n').find((l) => l.length > 80) || ''])"""

LESSONS = [name for name in jupyter_browser.lesson_notebooks() if name.startswith("en/")]


@pytest.mark.parametrize(
    ("viewport", "zoom", "fold_file_browser"),
    [((1280, 900), 1.0, False), ((819, 614), 1.25, True)],
    ids=["1280px", "1024px-zoom125"],
)
def test_no_code_cell_scrolls_sideways_in_plain_jupyterlab(
    browser: Any, lab_server: Any, viewport: tuple[int, int], zoom: float, fold_file_browser: bool
) -> None:
    # 1024 px at 125 % zoom is 819 CSS px of 1.25 device pixels each; on a projector the file browser is folded
    # (with it open the editor is 385 px, 49 columns, which no lesson line length can fit)
    wide = {}
    for notebook in LESSONS:
        page = jupyter_browser.LessonPage(browser, lab_server, notebook, viewport=viewport, device_scale_factor=zoom)
        try:
            if fold_file_browser:
                page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
            page.page.wait_for_function("() => document.querySelectorAll('.jp-CodeCell .cm-scroller').length > 0")
            page.page.wait_for_timeout(500)
            over = page.page.evaluate(SCROLLS_SIDEWAYS)
        finally:
            page.close()
        if over:
            wide[notebook] = over
    assert not wide, wide


#: Lesson 2's traffic listing: its text lines, the rows they take on screen, and the lines wider than the area.
TRAFFIC_LISTING = """() => {
  const pre = [...document.querySelectorAll('.jp-OutputArea-output pre')]
    .find((p) => p.innerText.includes('send_recv') && p.innerText.includes('Backward'));
  const lines = pre.innerText.replace(/\\n$/, '').split('\\n');
  const rows = Math.round(pre.getBoundingClientRect().height / parseFloat(getComputedStyle(pre).lineHeight));
  return {lines: lines.length, rows: rows, width: pre.clientWidth};
}"""


def test_lesson_2_traffic_listing_keeps_one_row_per_line_at_1280_px(open_lesson: Any) -> None:
    page = open_lesson("en/02_communication.ipynb")
    listing = page.page.evaluate(TRAFFIC_LISTING)
    # two lines for each of the 14 entries (DP 1, ZeRO-2 2, ZeRO-3 3, TP 2, PP 2, CP 2, EP 2), none wrapped
    assert listing["lines"] == 28, listing
    assert listing["rows"] == listing["lines"], listing
