"""What the Chinese self-learner of review 30 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review30.py for the Python side of the same fix), in lesson 6's
scaling-efficiency widget, its controls moved to their ends from the keyboard (Home / End on each slider handle):

* slowest link, most gradient, least compute: the message reads "E(512) = 0.003", not "0.00" beside a speed-up of
  two; one step of the overlap slider names the overlap from which the step stops shrinking as 0.003, not 0.00;
* fastest link, least gradient, most compute: the diagnosis gives the exposed communication's share as 0.1 %, as the
  line above it gives 0.11 %, not "0%（2.22 ms）";
* exercise 6.1 answered ``answer = 3/19≈0.158`` (the "≈" of the prose) gets a line of help that shows each side as
  the line to write, and fits the notebook's visible height with its cell.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page, press
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP, _run_code_cells_through
from tests.browser.test_learner_review27 import _cell_fits


def test_lesson_6_scaling_widget_at_its_ends(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/06_pipeline_scaling.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        bubble = _cell_index(page, 'check("pipeline.bubble_p4_m16", answer)')
        _run_code_cells_through(lesson, bubble - 1)
        approx = _type_first_line(lesson, bubble, "answer = 3/19≈0.158")
        assert "SyntaxError" in approx and "第 1 行有“≈”：Python 里没有“约等于”号" in approx, approx
        assert approx.rstrip().endswith("answer = 3/19 或 answer = 0.158"), approx
        _cell_fits(page, bubble)
        # (p-1)/(m+p-1) with p = 4, m = 16: 3/19, as the help shows it
        assert _type_first_line(lesson, bubble, "answer = 3/19").startswith("正确。")
        cell = _cell_index(page, "scaling_widget = ScalingWidget()")
        _run_code_cells_through(lesson, cell)
        widget = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".ck-widget").first
        widget.locator(".ck-message").first.wait_for(timeout=60_000)
        press(page, widget, "bandwidth_gb_s", "Home")  # 5 GB/s
        press(page, widget, "gradient_gb", "End")  # 40 GB
        slow = press(page, widget, "compute_ms", "Home")  # 50 ms
        # worked by hand: 2 · 511/512 · 40e9 / 5e9 s = 15968.75 ms exposed; E = 50 / (50 + 15968.75) = 0.0031
        assert "E(512) = 0.003：512 个设备的吞吐是单设备的 2 倍" in slow, slow
        assert "Traceback" not in slow
        capped = press(page, widget, "overlap", "ArrowRight")  # 0.05: capped by 50 ms of compute
        assert "重叠比例从 0.003 往上，一步的时间都一样" in capped, capped
        press(page, widget, "overlap", "Home")
        press(page, widget, "bandwidth_gb_s", "End")  # 450 GB/s
        press(page, widget, "gradient_gb", "Home")  # 0.5 GB
        fast = press(page, widget, "compute_ms", "End")  # 2000 ms
        # 2 · 511/512 · 0.5e9 / 450e9 s = 2.22 ms exposed out of a 2002 ms step: 0.11 %
        assert "暴露的通信只占一步的 0.11%" in fast and "占一步时间的 0.1%（2.22 ms）" in fast, fast
