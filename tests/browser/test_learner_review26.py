"""What the Chinese self-learner of review 26 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review26.py for the Python side of the same fixes):

* lesson 4: exercise 4.1 answered ``'5,7'`` is shown ``answer = [5, 7]``; 4.2 typed as the lesson prints it,
  ``answer = 2×2×2×2×4``, gets a line of help under the SyntaxError with ``*``, and ``'2*2*2*2*4'`` is told to drop
  the quotes; 4.3's ``answer = 十六`` is told it is a Chinese numeral and shown ``answer = 16``; 4.4's
  ``answer = [True]`` is told to drop the brackets;
* lesson 6: exercise 6.1's ``answer = '3/19'`` is told Python does not work out text, and ``answer = 3/19`` is right;
* lesson 8: the text says what gloo is where it first names it; exercise 8.6's reveal says its command is the
  recording's, with R = 1; the structural check's busbw lines name each collective in Chinese; exercise 8.2 typed
  ``answer = 1.07 × 10⁵`` (a superscript) or ``answer = 1.07x10^5`` is shown ``answer = 1.07 * 10**5`` (not 105),
  and ``answer = 107,374.18`` is shown 107374.18; 8.8's ``answer = 'Y`` is shown with its quote closed and
  ``'运行 Y'`` is right; 8.6's ``answer = [1]`` is told to drop the brackets;
* lesson 10: after a kernel restart in the middle of the lesson, the widget's cell run again gets the line of help
  in Chinese under its NameError (the course's kernel loads it at start).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page, restart_kernel
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP, _run_code_cells_through


def test_lesson_4_exercises_typed_as_a_newcomer(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/04_composition.ipynb", run_all_s=300, **LAPTOP) as lesson:
        page = lesson.page
        # 4.1: the list typed as text
        dp_group = _cell_index(page, 'check("q4.dp_group", answer)')
        listed = _type_first_line(lesson, dp_group, "answer = '5,7'")
        assert listed.startswith("无法检查。") and "写成 answer = [5, 7]" in listed
        assert _type_first_line(lesson, dp_group, "answer = [5, 7]").startswith("正确。")
        # 4.2: the lesson's multiplication sign, then the product in quotes
        naive = _cell_index(page, 'check("q4.naive_ranks", answer)')
        sign = _type_first_line(lesson, naive, "answer = 2×2×2×2×4")
        assert "SyntaxError" in sign and "'×'：这是课文里印出的数学符号" in sign
        assert "改好的一行：answer = 2*2*2*2*4" in sign
        quoted = _type_first_line(lesson, naive, "answer = '2*2*2*2*4'")
        assert "Python 不会去算它" in quoted and "写成 answer = 2*2*2*2*4" in quoted
        assert _type_first_line(lesson, naive, "answer = 2*2*2*2*4").startswith("正确。")
        # 4.3: sixteen in Chinese numerals
        engine = _cell_index(page, 'check("q4.engine_ranks", answer)')
        numeral = _type_first_line(lesson, engine, "answer = 十六")
        assert "NameError" in numeral and "'十六' 是中文数字" in numeral and "写成 answer = 16。" in numeral
        assert "加引号" not in numeral
        # 4.4: True in a list
        crosses = _cell_index(page, 'check("q4.tp_crosses", answer)')
        one = _type_first_line(lesson, crosses, "answer = [True]")
        assert one.startswith("无法检查。") and "去掉方括号，写成 answer = True。" in one


def test_lesson_6_a_fraction_in_quotes(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/06_pipeline_scaling.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        bubble = _cell_index(page, 'check("pipeline.bubble_p4_m16", answer)')
        _run_code_cells_through(lesson, bubble - 1)
        quoted = _type_first_line(lesson, bubble, "answer = '3/19'")
        assert quoted.startswith("无法检查。") and "写成 answer = 3/19，Python 会算出它的值" in quoted
        assert "而不是 str" not in quoted
        assert _type_first_line(lesson, bubble, "answer = 3/19").startswith("正确。")


def test_lesson_8_busbw_lines_and_a_one_item_list(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/08_lab.ipynb", run_all_s=600, **LAPTOP) as lesson:
        page = lesson.page
        structural = _cell_index(page, "NVLINK_H100_BYTES_PER_S = ")
        shown = page.evaluate(
            """(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].node
                 .querySelector('.jp-OutputArea').innerText""",
            structural,
        )
        lines = [line.strip() for line in shown.splitlines() if "busbw" in line]
        assert len(lines) == 6, shown  # the six collectives of experiment A
        assert lines[0].startswith("全归约（dist.all_reduce）的总线带宽 busbw：") and lines[0].endswith("GiB/s")
        assert all("的总线带宽 busbw：" in line for line in lines)
        assert not any(line.startswith("busbw") for line in lines)
        # exercise 8.2's crossover (107,374 bytes): a power copied as a superscript, x for times, thousands commas
        crossover = _cell_index(page, 'check("lab.crossover_bytes", answer)')
        power = _type_first_line(lesson, crossover, "answer = 1.07 × 10⁵")
        assert "SyntaxError" in power and "改好的一行：answer = 1.07 * 10**5" in power and "105" not in power
        times = _type_first_line(lesson, crossover, "answer = 1.07x10^5")
        assert "把字母 x 当成了乘号" in times and "改好的一行：answer = 1.07 * 10**5" in times
        commas = _type_first_line(lesson, crossover, "answer = 107,374.18")
        assert commas.startswith("无法检查。") and "写成 107374.18。" in commas
        assert _type_first_line(lesson, crossover, "answer = 1.07 * 10**5").startswith("正确")
        # exercise 8.8's run, its quote left open, then named as the tables name it
        run = _cell_index(page, 'check("lab.input_delay_run", answer)')
        quote = _type_first_line(lesson, run, "answer = 'Y")
        assert "引号没有成对" in quote and "改好的一行：answer = 'Y'" in quote
        assert _type_first_line(lesson, run, "answer = '运行 Y'").startswith("正确。")  # the run as the tables name it
        # the lesson says what gloo is where it first names it
        text = "\n".join(page.locator(".jp-MarkdownOutput").all_inner_texts())
        assert "gloo 后端（PyTorch 在 CPU 上做集合通信的库；GPU 上对应的是 NVIDIA 的 NCCL" in text
        # exercise 8.6's reveal: the command with a Chinese line saying what it is
        solution = _cell_index(page, 'tp_slow = timeline.result("tp", "slow_rank")')
        button = page.locator(".jp-Notebook .jp-Cell").nth(solution).locator("button", has_text="显示参考解答与结果")
        button.scroll_into_view_if_needed()
        button.click()
        page.locator(".jp-OutputArea", has_text="录制用的完整命令（R 就是慢 rank 1）：").first.wait_for(timeout=30_000)
        slow = _cell_index(page, 'check("lab.slow_rank", answer)')
        one = _type_first_line(lesson, slow, "answer = [1]")
        assert one.startswith("无法检查。") and "只有一项的列表 (list)" in one and "写成 answer = 1。" in one


def test_lesson_10_help_after_a_kernel_restart(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/10_serving.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        _run_code_cells_through(lesson, 7)  # the first sections, as a learner reads them
        restart_kernel(page)
        widget = _cell_index(page, "widget = ServingWidget()")
        shown = lesson.run_cell(widget, timeout_ms=120_000)
        assert "NameError" in shown and "Python 找不到名字 'ServingWidget'（NameError）" in shown
        assert "先从本课开头依次运行前面的单元格" in shown and "重启内核 (kernel) 之后也要这样做" in shown
