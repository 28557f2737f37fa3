"""What the Chinese self-learner of review 20 sees in real JupyterLab.

- Lesson 7's roofline widget: choosing GPT-2 small at TP 8 fills the message box with a Chinese sentence that names
  the model's 12 attention heads and the TP values that work (before: "必须整除 heads = 12"); one step left on the TP
  slider (to 4) computes again.
- Lesson 6's pipeline widget: with device 3 chosen as the slow stage, a key press that lowers p to 3 says that the
  slow stage went back to "无" because p = 3 has no device 3 (before: only "没有选慢阶段", though the learner had
  chosen one).
- Exercise 4.4 answered '是' shows how Python writes yes and no; exercise 6.2's entry written '240 ms' is told to write
  the dict entry ("compute_ms": 240), not a variable answer the cell does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import choose, press, scratch_notebook, widget_message

SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')\n"
    "from coursekit.exercises import check\n"
    "from coursekit.widgets.roofline import RooflineWidget\n"
    "RooflineWidget()",
    "check('q4.tp_crosses', '是')",
    "check('pipeline.timeline_compute_ms', '240 ms', label='compute_ms')",
    "from coursekit.widgets.pipeline import PipelineWidget\nPipelineWidget(stages=4, microbatches=8)",
]


def _output_text(page: Any, index: int) -> str:
    text = page.evaluate(
        """(i) => { const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
             const area = cell.node.querySelector('.jp-OutputArea'); return area ? area.innerText : ''; }""",
        index,
    )
    return str(text).replace("\xa0", " ")


def test_the_learner_reads_chinese_where_the_widget_and_the_checker_refuse(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        page = lesson.page
        roofline = page.locator(".ck-widget").first
        start = widget_message(roofline)
        assert "计算受限 (compute-bound)" in start
        refused = choose(page, roofline, "model", "GPT-2 small")
        assert refused != start, "choosing GPT-2 small left the message as it was"
        assert "张量并行度 TP = 8 不整除 GPT-2 small 的 12 个注意力头" in refused
        assert "请把 TP 调到 1、2、4 之一" in refused and "heads" not in refused and "Traceback" not in refused
        again = press(page, roofline, "tp", "ArrowLeft")  # 8 -> 4
        assert "每张 GPU：微批次 1 × 8192 token ÷ CP 1" in again and "隐藏维 768 ÷ TP 4" in again

        yes = _output_text(page, 1)
        assert "Python 里“是”写作 True，“否”写作 False（不加引号，首字母大写）" in yes and "str" not in yes
        entry = _output_text(page, 2)
        assert "compute_ms：无法检查。\"compute_ms\": '240 ms' 带着引号和单位 ms" in entry
        assert '"compute_ms": 240。' in entry and "answer" not in entry


def test_lowering_p_says_where_the_slow_device_went(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        page = lesson.page
        pipeline = page.locator(".ck-widget").nth(1)
        slow = choose(page, pipeline, "slow_stage", "3")
        assert "设备 3 慢 2 倍" in slow
        lowered = press(page, pipeline, "stages", "ArrowLeft")  # p 4 -> 3
        assert "慢阶段原来选的是设备 3，p = 3 时设备只有 0 到 2，所以“慢阶段 (slow stage)”已改回“无”。" in lowered
        menu = pipeline.locator(".ck-control-slow_stage select").first
        assert menu.evaluate("(s) => s.options[s.selectedIndex].text") == "无"
