"""What the Chinese self-learner of review 18 sees in real JupyterLab.

- Lesson 5's matrix widget at its start (Megatron 7.5B, 24 GiB devices): choosing the interconnect "fast inside a
  node (NVLink), slow between nodes" changes the message box, which says the four verdicts are those of the other
  interconnect. Before, the message and the figure stayed exactly as they were: the page gave no sign that the choice
  had reached the kernel.
- Lesson 1's capacity widget at ZeRO-0: choosing DP = 16 changes the message box, which names DP = 16 (before, only
  the faded bars of the figure moved).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from coursekit.widgets import node_label

from .conftest import choose, scratch_notebook, widget_message

SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')\n"
    "from coursekit.widgets.matrix import MatrixWidget\nfrom coursekit.widgets.capacity import CapacityWidget\n"
    "MatrixWidget()",
    "CapacityWidget()",
]


def test_a_choice_that_changes_no_verdict_still_shows(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as page:
        matrix, capacity = page.page.locator(".ck-widget").nth(0), page.page.locator(".ck-widget").nth(1)
        start = widget_message(matrix)
        assert "互连选“未知（案例没说）”" in start
        shown = choose(page.page, matrix, "topology", "节点内快（NVLink）、跨节点慢")
        assert shown != start, "choosing the interconnect left the message as it was"
        assert "互连选“节点内快（NVLink）、跨节点慢”：这个案例的四个结论和选“未知（案例没说）”时完全一样" in shown
        assert "Traceback" not in shown
        before = widget_message(capacity)
        assert "DP = 8" in before
        after = choose(page.page, capacity, "dp", "16")
        assert after != before and "DP = 16" in after and "ZeRO-0 不切分模型状态" in after


WORKBENCH = [
    "import coursekit\ncoursekit.set_language('zh')\nfrom coursekit.widgets.workbench import WorkbenchWidget\n"
    "WorkbenchWidget()",
]


def test_the_cpu_contrast_reads_cpu_servers_and_days(browser: Any, tmp_path: Path) -> None:
    """Lesson 9's workbench, node type cpu-box (16 nodes of one CPU server each): the training message gives the
    multi-day step in hours and days, and serving counts CPU servers (it said "在 16 个 GPU 上服务")."""
    with scratch_notebook(browser, tmp_path, WORKBENCH) as page:
        widget = page.page.locator(".ck-widget").first
        training = choose(page.page, widget, "cluster", node_label("cpu-box").zh)
        assert re.search(r"估算最快的一步要 [\d,]+ s，约 [\d,.]+ 小时（[\d.]+ 天）。", training), training[:400]
        serving = choose(page.page, widget, "mode", "服务")
        assert "在 16 台 CPU 服务器上服务（只作对照，不是 GPU）" in serving
        assert "个 GPU" not in serving and "每 GPU" not in serving and "Traceback" not in serving


def test_a_full_width_comma_in_the_answer_is_read_as_a_decimal_point(browser: Any, tmp_path: Path) -> None:
    """``answer = 25，77`` (a Chinese input method's comma): the line under Python's SyntaxError shows the answer
    retyped with a decimal point; it showed ``answer = 25,77``, which Python reads as the tuple (25, 77)."""
    sources = [
        "import coursekit\ncoursekit.set_language('zh')\nfrom coursekit.exercises import check",
        "# the learner's cell, typed below",
    ]
    with scratch_notebook(browser, tmp_path, sources) as page:
        page.page.evaluate(
            "(s) => window.jupyterapp.shell.currentWidget.content.widgets[1].model.sharedModel.setSource(s)",
            "answer = 25，77\ncheck('intro.device_gb', answer)",
        )
        shown = page.run_cell(1)
        assert "SyntaxError" in shown  # Python's own message stays
        assert "第 1 行的数中间有 '，'" in shown and "重新输入这一行：answer = 25.77" in shown
        assert "answer = 25,77" not in shown
