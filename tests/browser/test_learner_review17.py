"""What the English self-learner of review 17 sees in real JupyterLab.

- Lesson 9's workbench with nothing passing the gates (GPT-3 175B on one 8-GPU node): choosing another global batch
  or another achievable fraction of peak changes the message box on the page. Before, the message and the figure
  stayed exactly as they were: the page gave no sign that the choice had reached the kernel.
- A ``NameError`` on a variable passed to a function shows, under the traceback, the line that says to run the cells
  above, not a suggestion to put the variable in quotes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import choose, scratch_notebook, widget_message

SOURCES = [
    "import coursekit\ncoursekit.set_language('en')\nfrom coursekit.exercises import check\n"
    "from coursekit.widgets.workbench import WorkbenchWidget\n"
    "w = WorkbenchWidget()\n"
    "with w.hold_updates():\n    w.controls['model'].value = 'gpt3-175b'\n    w.controls['nodes'].value = 1\nw",
    "# a learner's cell, typed below",
]


def test_a_change_that_passes_nothing_still_shows(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as page:
        widget = page.page.locator(".ck-widget").first
        start = widget_message(widget)
        # 175e9 parameters x 16 bytes = 2.8 TB of training state against 8 x 80 GiB: nothing fits
        assert start.startswith("Fail: gpt3-175b on 8 ranks")
        batch = choose(page.page, widget, "global_batch", "128")
        assert batch != start, "choosing a global batch of 128 left the message as it was"
        assert "a global batch of 1024 sequences of 8192 tokens" in start
        assert "a global batch of 128 sequences of 8192 tokens" in batch
        peak = choose(page.page, widget, "mfu", "0.3")
        assert peak != batch and "compute efficiency 30%" in peak
        assert "Traceback" not in peak
        page.page.evaluate(
            "(s) => window.jupyterapp.shell.currentWidget.content.widgets[1].model.sharedModel.setSource(s)",
            "answer = max(1, activation_gib)",
        )
        hint = page.run_cell(1)
        assert "NameError" in hint  # Python's own message stays
        assert "a cell above defines or imports it. Run the cells above first" in hint
        assert "write it in quotes" not in hint
