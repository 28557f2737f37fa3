"""What the Chinese self-learner of review 28 sees in Chromium, in JupyterLab as ``make lab`` starts it (Chinese UI),
at 1280 x 720 with 110 % zoom (see tests/test_learner_review28.py for the Python side of the same fixes):

* lesson 10: the table of NCCL's picks and the serving report name the algorithm and protocol in words
  ("环形算法 (ring)、LL 协议"), not "ring/LL"; exercise 10.1 typed ``answer = 327,680/1024`` gets that line back
  without the commas, and that line is right; exercise 10.2 answered ``184.7`` is told to round down with ``//``;
  each message fits the notebook's visible height with its cell; the table of TPOT by batch heads its columns as
  bounds ("TPOT 下界 (ms)", "解码 token/秒（上界）");
* lesson 7: exercise 7.3 typed ``answer = 0.356 (MFU)`` is told to write the number alone, not to run the cells
  above to define 'MFU'; exercise 7.2 typed ``answer = 989 / 4.8 TB/s`` gets the calculation back without the unit;
* lesson 4: exercise 4.4 answered ``answer = 1`` is told that "是" is True, not 1;
* lesson 8: exercise 8.5 typed ``answer = 'fsdp2 zero2'`` gets the option written out (``answer = 'fsdp2-zero2'``),
  which the checker then reads; exercise 8.10 asks for a fraction between 0 and 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import lesson_page
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP, _run_code_cells_through
from tests.browser.test_learner_review27 import _cell_fits


def _output(page: Any, index: int) -> str:
    return str(
        page.evaluate(
            """(i) => { const area = window.jupyterapp.shell.currentWidget.content.widgets[i].node
                 .querySelector('.jp-OutputArea'); return area ? area.innerText : ''; }""",
            index,
        )
    ).replace("\xa0", " ")


def test_lesson_10_nccl_picks_in_words_and_typed_slips(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/10_serving.ipynb", run_all_s=600, **LAPTOP) as lesson:
        page = lesson.page
        table = _output(page, _cell_index(page, "picks = {"))
        rows = [line for line in table.splitlines() if "KiB" in line or "MiB" in line]
        assert len(rows) == 4, table
        assert "环形算法 (ring)、LL 协议" in rows[0] and "Simple 协议" in rows[-1]
        assert "ring/" not in table
        by_batch = _output(page, _cell_index(page, "tpot_at_batch_ms = {}")).splitlines()[0]
        assert "TPOT 下界 (ms)" in by_batch and "解码 token/秒（上界）" in by_batch, by_batch
        report = _output(page, _cell_index(page, "print(result.report(top=3))"))
        assert "NCCL 选环形算法 (ring)、LL 协议" in report and "ring/LL" not in report
        # 10.1: the bytes per token with the lesson's thousands comma, inside a calculation
        kv = _cell_index(page, 'check("serve.kv_kib_per_token", answer)')
        comma = _type_first_line(lesson, kv, "answer = 327,680/1024")
        assert comma.startswith("无法检查。") and "把这一行写成 answer = 327680/1024" in comma
        assert "327000" not in comma
        _cell_fits(page, kv)
        assert _type_first_line(lesson, kv, "answer = 327680/1024").startswith("正确。")
        # 10.2: the division's result
        most = _cell_index(page, 'check("serve.max_requests", answer)')
        fraction = _type_first_line(lesson, most, "answer = 184.7")
        assert "必须是整数 (int)" in fraction and "向下取整" in fraction and "float" not in fraction
        _cell_fits(page, most)


def test_lesson_4_one_for_true(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/04_composition.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        crosses = _cell_index(page, 'check("q4.tp_crosses", answer)')
        _run_code_cells_through(lesson, crosses - 1)
        one = _type_first_line(lesson, crosses, "answer = 1")
        assert "必须是真假值 True 或 False" in one and "不用 1 和 0" in one and "而不是 int" not in one
        _cell_fits(page, crosses)


def test_lesson_8_an_option_spelled_apart(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/08_lab.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        most = _cell_index(page, 'check("lab.most_param_bytes", answer)')
        _run_code_cells_through(lesson, most - 1)
        apart = _type_first_line(lesson, most, "answer = 'fsdp2 zero2'")
        assert apart.startswith("无法检查。") and apart.rstrip().endswith("answer = 'fsdp2-zero2'")
        _cell_fits(page, most)
        written = _type_first_line(lesson, most, "answer = 'fsdp2-zero2'")
        assert written.startswith(("正确。", "还不对。"))  # read as an option, no longer refused
        question = _cell_index(page, 'check("lab.efficiency_4", answer)') - 1
        page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.scrollToItem(i, 'center')", question)
        page.wait_for_timeout(1000)
        shown = page.evaluate(
            "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].node.innerText", question
        )
        assert "答 0 到 1 之间的小数（1 是理想扩展），不是百分数。" in shown


def test_lesson_7_a_gloss_and_a_unit_after_a_calculation(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/07_compute_efficiency.ipynb", **LAPTOP) as lesson:
        page = lesson.page
        ridge = _cell_index(page, 'check("eff.h200_ridge", answer)')
        _run_code_cells_through(lesson, ridge - 1)
        unit = _type_first_line(lesson, ridge, "answer = 989 / 4.8 TB/s")
        assert "SyntaxError" in unit and "只写数，用题目要求的单位：answer = 989 / 4.8" in unit
        _cell_fits(page, ridge)
        assert _type_first_line(lesson, ridge, "answer = 989 / 4.8").startswith("正确。")
        mfu = _cell_index(page, 'check("eff.megatron_mfu", answer)')
        gloss = _type_first_line(lesson, mfu, "answer = 0.356 (MFU)")
        assert "NameError" in gloss and "答案只写一个数：answer = 0.356" in gloss and "定义或导入" not in gloss
        _cell_fits(page, mfu)
