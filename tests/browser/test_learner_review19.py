"""What the English self-learner of review 19 sees in real JupyterLab.

- Lesson 6's pipeline widget in its starting state (no slow stage): pressing a key on the slow-stage time factor
  slider changes the message box, which says the factor changes nothing until a device is picked. Before, neither the
  message nor the chart changed: the page gave no sign the slider had reached the kernel.
- Lesson 6's scaling widget with 100 ms of compute: a step of the overlap slider past what the compute can hide
  changes the message box, which names the cap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import press, scratch_notebook, widget_message

SOURCES = [
    "import coursekit\ncoursekit.set_language('en')\n"
    "from coursekit.widgets.pipeline import PipelineWidget\n"
    "from coursekit.widgets.scaling import ScalingWidget\n"
    "PipelineWidget(stages=4, microbatches=8)",
    "ScalingWidget(overlap=0.5, compute_ms=100.0)",
]


def test_sliders_that_change_no_number_say_why(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as page:
        pipeline, scaling = page.page.locator(".ck-widget").nth(0), page.page.locator(".ck-widget").nth(1)
        start = widget_message(pipeline)
        assert "(now 2×) changes nothing: pick a device under 'slow stage' first" in start
        moved = press(page.page, pipeline, "slow_factor", "ArrowRight")
        assert moved != start, "the slow-stage factor left the message as it was"
        assert "(now 2.25×) changes nothing" in moved and "Traceback" not in moved

        before = widget_message(scaling)
        assert "every overlap from 0.18 up gives this same step" in before
        after = press(page.page, scaling, "overlap", "ArrowRight")
        assert after != before, "the overlap slider left the message as it was"
        assert "An overlap of 0.55 would hide" in after and "At P = 512 a step takes 559 ms" in after
