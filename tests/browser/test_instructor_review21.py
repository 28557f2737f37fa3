"""Every lesson's outputs fit a projected screen (review 21).

Projected at 1024 × 768 with Chromium at 125 % (819 × 614 CSS px, file browser folded), a notebook's output area is
639 px wide. Review 20 fitted the widgets; the printed tables still overran it, and JupyterLab gave each a sideways
scroll. Measured before this review's fix (en / zh):

* lesson 9: the scenario table 295 / 171 px of sideways scroll, the TP table 261 / 180 px, the sequence-length
  table 281 / 121 px: a composition label in backticks (``tp=4,pp=1,...,recompute=none``) is one unbreakable word;
* lesson 3: the candidates table 39 px (en): header "memory/rank (GiB)" and unbroken values set its columns' minimum;
* lesson 1: the precision-recipe table 2 px (en): header "Total (bytes/param)".

The test runs every lesson (0-10, zh and en) and measures each output, whatever it holds (table, figure, widget,
printed text), against its output area.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.test_instructor_review20 import PROJECTED

LESSONS = jupyter_browser.lesson_notebooks()
#: Output area width at 819 CSS px with the file browser folded (the premise of the measurement).
PROJECTED_AREA_PX = 639

#: For each output area wider in content than its box: the cell, the area's width, how far any part of it reaches
#: right of the area (px), the widest sideways scroll inside it (px; scrollWidth and clientWidth are whole pixels)
#: and the start of its text. Tolerance: a part may reach 0.5 px past the area's right edge, because at a device
#: scale of 1.25 layout boxes sit on a 0.8 px device grid and a box that fits can end a fraction of a pixel past the
#: edge without any visible overflow; a scroll of 1 px or more is a real scrollbar and fails.
OVERFLOW = """() => {
  const found = [];
  let areas = 0;
  document.querySelectorAll('.jp-Notebook .jp-Cell').forEach((cell, index) => {
    cell.querySelectorAll('.jp-OutputArea-output').forEach((area) => {
      const box = area.getBoundingClientRect();
      if (!box.width) return;
      areas += 1;
      let right = 0, scroll = 0;
      for (const part of [area, ...area.querySelectorAll('*')]) {
        const r = part.getBoundingClientRect();
        if (r.width && r.right - box.right > right) right = r.right - box.right;
        const ox = getComputedStyle(part).overflowX;
        if (part.clientWidth && ox !== 'visible' && ox !== 'hidden')
          scroll = Math.max(scroll, part.scrollWidth - part.clientWidth);
      }
      if (right > 0.5 || scroll > 0)
        found.push({cell: index, area: Math.round(box.width), right: Math.round(right), scroll,
                    text: area.innerText.slice(0, 60)});
    });
  });
  const widths = [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
    .map((a) => Math.round(a.getBoundingClientRect().width)).filter((w) => w);
  return {areas, widths: [...new Set(widths)], found};
}"""


@pytest.mark.parametrize("notebook", LESSONS)
def test_no_lesson_output_is_wider_than_its_cell_when_projected(browser: Any, lab_server: Any, notebook: str) -> None:
    page = jupyter_browser.LessonPage(browser, lab_server, notebook, **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all(timeout_s=900)
        assert state["errors"] == [], state["errors"]
        page.page.wait_for_timeout(1500)  # widgets draw their figures after the kernel is idle
        measured = page.page.evaluate(OVERFLOW)
    finally:
        page.close()
    assert measured["areas"] > 0, "no output measured"
    # the premise: every output area is the projected one (a widget's inner output areas are narrower)
    assert max(measured["widths"]) == PROJECTED_AREA_PX, measured["widths"]
    assert measured["found"] == []
