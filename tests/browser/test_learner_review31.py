"""What the Chinese self-learner of review 31 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review31.py for the Python side of the same fixes):

* lesson 7's roofline widget moved to A100, Llama 3 8B, s = 1024, CP = 4 and TP to its end (32): 256 tokens per GPU
  put the layer's matmuls just below the A100's ridge point, and the verdict now reads 152.6 against 153.0 FLOP per
  byte at 99.7 % of the ridge, not "153 ... 153 ... 100%"; the message fits the notebook's visible height.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import choose, lesson_page, press, widget_message
from tests.browser.test_learner_review25 import LAPTOP

# The A100 80GB SXM datasheet: 312 TFLOP/s dense BF16 over 2039 GB/s of HBM, one decimal.
A100_RIDGE = f"{312e12 / 2039e9:.1f}"


def test_lesson_7_roofline_just_below_the_ridge(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/07_compute_efficiency.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        state = lesson.run_all(timeout_s=600)
        assert state["errors"] == [], state["errors"]
        widget = page.locator(".ck-widget").first
        widget.scroll_into_view_if_needed()
        choose(page, widget, "gpu", "A100 80GB SXM")
        choose(page, widget, "model", "Llama 3 8B")
        choose(page, widget, "seq_len", "1024")
        choose(page, widget, "cp", "4")
        press(page, widget, "tp", "End")
        shown = widget_message(widget)
        found = re.search(r"计算强度 (\S+) FLOP/字节，只有 A100 80GB SXM 脊点 \((\S+) FLOP/字节\) 的 (\S+)%。", shown)
        assert found, shown
        intensity, ridge, percent = found.groups()
        assert ridge == A100_RIDGE and intensity != ridge and float(intensity) < float(ridge), shown
        assert 99 < float(percent) < 100, shown
        assert "TP 32" in shown and "256 个 token" in shown, shown
        box = widget.locator(".ck-message").first.bounding_box()
        view = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.node.getBoundingClientRect().height")
        assert box is not None and box["height"] <= view, (box, view)
