"""Instructor review 29 in Chromium: English lesson 9 as ``make lab COURSE_LANG=en`` opens it (English UI, 1280 x
720), every cell run (see tests/test_instructor_review29.py for the Python side):

* the layout-pairs table at the end of section 8 sets Grok-1's two DGX Cloud releases apart by their expert TP
  ("EP 8 ETP 4" against "EP 8 ETP 1"), where both cells used to read "TP 4 CP 2 PP 8 EP 8";
* guide 9's block that plans NVIDIA's GB200 run, copied from the guide into a new cell after "run all", runs in the
  lesson's kernel with no traceback and prints the figures the guide quotes (271.0 GiB, 7.65 s, 51 layers, 5.78 s).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page, running_lab
from tests.browser.test_learner_review24 import _cell_index

ROOT = Path(__file__).resolve().parents[2]
LAPTOP_720 = {"viewport": (1280, 720)}

_OUTPUT = """(i) => { const area = window.jupyterapp.shell.currentWidget.content.widgets[i].node
  .querySelector('.jp-OutputArea'); return area ? area.innerText : ''; }"""
_APPEND_AND_RUN = """(source) => { const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = panel.content.widgets.length - 1;
  return window.jupyterapp.commands.execute('notebook:insert-cell-below').then(() => {
    const index = panel.content.widgets.length - 1;
    panel.content.widgets[index].model.sharedModel.setSource(source);
    panel.content.activeCellIndex = index;
    return window.jupyterapp.commands.execute('notebook:run-cell').then(() => index); }); }"""
_CELL_DONE = """(i) => { const panel = window.jupyterapp.shell.currentWidget;
  return panel.content.widgets[i].model.executionCount !== null
    && panel.sessionContext.session.kernel.status === 'idle'; }"""


def _guide_snippet() -> str:
    """The guide's one Python block (the activation-offloading talking point), without the list item's indent."""
    guide = (ROOT / "docs" / "instructor" / "en" / "09_workbench.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, re.S)
    assert len(blocks) == 1
    return "\n".join(line[2:] for line in blocks[0].splitlines())


def test_lesson9_pairs_table_and_guide_snippet(browser: Any) -> None:
    settings = jupyter_browser.make_lab_settings("en")
    with (
        running_lab(settings=settings) as lab,
        lesson_page(browser, lab, "en/09_workbench.ipynb", run_all_s=900, **LAPTOP_720) as lesson,
    ):
        page = lesson.page
        pairs = str(page.evaluate(_OUTPUT, _cell_index(page, "def layout_of(name):"))).replace("\xa0", " ")
        grok = [line for line in pairs.splitlines() if line.startswith("grok1-314b")]
        assert len(grok) == 2, pairs[:600]
        for line in grok:
            cells = line.split("\t")
            assert "TP 4 CP 2 PP 8 EP 8 ETP 4 (" in cells[1] and "TP 4 CP 2 PP 8 EP 8 ETP 1 (" in cells[2], line
        index = int(page.evaluate(_APPEND_AND_RUN, _guide_snippet()))
        page.wait_for_function(_CELL_DONE, arg=index, timeout=300_000)
        shown = str(page.evaluate(_OUTPUT, index)).replace("\xa0", " ")
        assert "Traceback" not in shown and "Error" not in shown, shown[:800]
        assert "per-rank memory 271.0 GiB exceeds device memory 186.0 GiB" in shown
        assert "Estimated step 7.65 s" in shown and "Estimated step 5.78 s" in shown
        assert "the activations of 51 layers go to host memory" in shown
        assert shown.count("tp=2,pp=1,dp=64") == 3
