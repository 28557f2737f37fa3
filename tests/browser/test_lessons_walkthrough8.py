"""Walk-through 8 in real JupyterLab: lessons 2 (communication), 5 (selection matrix), 6 (scaling widget) and 9
(workbench), read as a Chinese engineer new to communication would read them, and driven from the keyboard.

What a file-level test cannot see: the text of every output once every solution and result button has been pressed,
whether the collectives a zh lesson names read in Chinese on screen (the glossary's 全归约 (all-reduce), 全收集
(all-gather), 归约散射 (reduce-scatter), 全对全 (all-to-all)), and how many arrow presses a slider needs to reach the
value a "Try this" step or an instructor guide names. These tests open the lessons in the session's JupyterLab, run
them all, press every button and read the page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import change_and_wait, press, widget_message
from .test_lessons_walkthrough3 import _cell_with

#: The zh terms of docs/GLOSSARY.md for the collectives' English (NCCL) names.
_GLOSSARY_ZH = {"all-reduce": "全归约", "all-gather": "全收集", "reduce-scatter": "归约散射", "all-to-all": "全对全"}
_ENGLISH_NAME = re.compile("|".join(_GLOSSARY_ZH))

#: What the learner reads: markdown cells whole, code cells' outputs only (code and its comments are code).
_READ_TEXTS = """() => window.jupyterapp.shell.currentWidget.content.widgets.map(cell => cell.model.type === 'code'
  ? [...cell.node.querySelectorAll('.jp-OutputArea')].map(area => area.innerText).join('\\n') : cell.node.innerText)"""
_MARKDOWN_TEXTS = """() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter(cell => cell.model.type === 'markdown').map(cell => cell.node.innerText)"""
_KERNEL_IDLE = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'"


def _press_every_button(page: Any) -> None:
    """Press every solution / result button of the lesson, as a learner who wants to see everything would."""
    buttons = page.locator(".ck-reveal-button")
    for index in range(buttons.count()):
        button = buttons.nth(index)
        button.scroll_into_view_if_needed()
        button.click()
        page.wait_for_timeout(100)
        page.wait_for_function(_KERNEL_IDLE, timeout=120_000)
    page.wait_for_timeout(500)


def _bare_english_collectives(texts: list[str]) -> list[str]:
    """Each English collective name not written as the glossary's zh term followed by it in parentheses."""
    bare = []
    for text in texts:
        for match in _ENGLISH_NAME.finditer(text):
            before = text[: match.start()]
            # 全归约 (all-reduce), 环形全归约 (ring all-reduce), 全对全分发器 (all-to-all dispatcher)
            if not re.search(rf"{_GLOSSARY_ZH[match.group()]}[\u4e00-\u9fff]* \((ring )?$", before):
                bare.append(text[max(0, match.start() - 30) : match.end() + 10].replace("\n", " "))
    return bare


def _readout(widget: Any, key: str) -> str:
    return str(widget.locator(f".ck-control-{key} .widget-readout").first.inner_text()).strip()


def _presses_to(page: Any, widget: Any, key: str, key_name: str, value: str, limit: int = 40) -> int:
    """Press ``key_name`` on the slider of control ``key`` until its readout shows ``value``; the presses it took."""
    for count in range(1, limit + 1):
        press(page, widget, key, key_name)
        if _readout(widget, key) == value:
            return count
    raise AssertionError(f"{key}: {limit} presses of {key_name} never showed {value!r} (shows {_readout(widget, key)})")


def test_lesson2_zh_names_the_collectives_in_chinese_and_its_sliders_take_few_presses(open_lesson: Any) -> None:
    page = open_lesson("zh/02_communication.ipynb").page
    _press_every_button(page)
    # The collectives were all_reduce, all_gather ... in the ring-cost table, "all-reduce" / "reduce-scatter" in the
    # per-entry notes (反向结束后对梯度做 all-reduce), the decode table's header and exercise 2.3's hints.
    assert _bare_english_collectives(page.evaluate(_READ_TEXTS)) == []
    table = _cell_with(page, "factor (n=2)")
    for kind, name in (("all_reduce", "全归约"), ("all_to_all", "全对全"), ("send_recv", "点对点收发")):
        assert re.search(rf"^{name} {kind}\t", table, re.M), table[-500:]
    # the traffic listing prints each entry on two lines: the collective's Chinese name with its code and the calls
    # per step ("全归约（all_reduce），每步 1 次", learner review 27), then its description indented
    listing = _cell_with(page, "反向结束后对梯度做全归约")
    assert re.search(r"全归约（all_reduce），每步 1 次\s*\n\s+反向结束后对梯度做全归约", listing), listing[-500:]

    # The guide's live demo, step 3 (at 16 KiB double the bandwidth, then halve the latency) and step 5 (no calls):
    # the bandwidth slider stepped by 0.01 GiB/s, 10,000 presses from 100 to 200 GiB/s.
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    assert _readout(widget, "bandwidth_gib_s") == "100" and _readout(widget, "latency_us") == "5"
    assert _presses_to(page, widget, "bandwidth_gib_s", "ArrowRight", "200") <= 3
    assert _presses_to(page, widget, "latency_us", "ArrowLeft", "2.5") <= 3
    message = widget_message(widget)
    assert "每次调用：时延 2.5 µs" in message and "Traceback" not in message, message
    assert "本训练步没有通信" in press(page, widget, "calls_per_step", "Home")
    # a preset still loads both sliders: NVLink 450 GB/s = 419.1 GiB/s, NCCL's 3.4 µs a ring step
    preset = widget.locator(".ck-control-link select").first
    change_and_wait(page, widget, lambda: preset.select_option(index=1))
    assert (_readout(widget, "bandwidth_gib_s"), _readout(widget, "latency_us")) == ("419.1", "3.4")


@pytest.mark.parametrize("notebook", ["zh/05_selection_matrix.ipynb", "zh/09_workbench.ipynb"])
def test_zh_lessons_5_and_9_write_the_collectives_as_the_glossary_does(open_lesson: Any, notebook: str) -> None:
    # Lesson 5's verdicts, selection matrix and widget kept NCCL's names in English only ("每层计算前 all-gather 参数",
    # "gather 峰值"); lesson 9 named its what-if section and wrote its collectives in English only ("ZeRO-3 暴露第一层的
    # gather 和最后一层的 reduce-scatter").
    page = open_lesson(notebook).page
    _press_every_button(page)
    texts = page.evaluate(_READ_TEXTS)
    if notebook.startswith("zh/05"):
        assert _bare_english_collectives(texts) == []
        shown = "\n".join(texts)
        assert "gather 峰值" not in shown and "全收集峰值" in widget_message(page.locator(".ck-widget").first)
        assert "每步一次梯度全归约 (all-reduce)" in shown
    else:  # the prose (the outputs name published runs as their sources do: "(all-to-all, EP 8, PP 32)")
        assert _bare_english_collectives(page.evaluate(_MARKDOWN_TEXTS)) == []
        heading = _cell_with(page, "链路、上下文、MoE")
        assert "5. 假设分析 (what-if)：链路、上下文、MoE" in heading, heading[:200]
        for text in texts:
            for match in re.finditer(r"what-if", text, re.I):
                assert text[: match.start()].endswith("假设分析 ("), text[max(0, match.start() - 40) : match.end()]


@pytest.mark.parametrize(
    ("notebook", "misconception"),
    [("zh/06_pipeline_scaling.ipynb", "误区 5"), ("en/06_pipeline_scaling.ipynb", "Misconception 5")],
)
def test_lesson6_bandwidth_slider_reaches_nvlink_in_a_few_presses(
    open_lesson: Any, notebook: str, misconception: str
) -> None:
    page = open_lesson(notebook).page
    prose = _cell_with(page, misconception)
    if notebook.startswith("zh"):  # it read "原因都是不需要（代码 unneeded）"
        assert "代码 unneeded" not in prose and "不需要：单卡已经放得下" in prose, prose
    else:
        assert "(code unneeded)" not in prose and "not needed: the model already fits one device" in prose, prose
    widget = page.locator(".ck-widget", has=page.locator(".ck-control-bandwidth_gb_s")).first
    widget.scroll_into_view_if_needed()
    assert _readout(widget, "bandwidth_gb_s") == "50"  # one 400 Gb/s NDR port: 400 / 8 GB/s
    # Try this, step 2: from 50 GB/s to 450 GB/s (H100 NVLink, 900 GB/s both ways / 2) took 80 presses of 5 GB/s.
    assert _presses_to(page, widget, "bandwidth_gb_s", "ArrowRight", "450") <= 5
    # Weak-scaling DP, 14 GB of gradients ring-all-reduced over 512 devices, 500 ms compute, no overlap:
    # 2 · 511/512 · 14 GB / 450 GB/s = 62.1 ms, E = 500 / 562.1 = 0.89 (the guide's step 2).
    assert "E(512) = 0.89" in widget_message(widget), widget_message(widget)
    assert _readout(widget, "gradient_gb") == "14"
    press(page, widget, "gradient_gb", "End")
    assert _readout(widget, "gradient_gb") == "40" and "Traceback" not in widget_message(widget)


def test_lesson8_zh_names_the_collectives_in_chinese(open_lesson: Any) -> None:
    # Walk-through 9: lesson 8 wrote its collectives in English only, in prose ("梯度按桶在反向中就开始 all-reduce",
    # "在环形算法里 all_reduce = reduce_scatter + all_gather"), in outputs ("每步 7 次 all-reduce", "拟合出的 B
    # （all_reduce）") and in its coefficient table (all_reduce ... as the only name). The lab's own tables still list
    # each collective by its kind (all_reduce), the argument the learner passes: code, and no hyphenated English name.
    page = open_lesson("zh/08_lab.ipynb").page
    _press_every_button(page)
    texts = page.evaluate(_READ_TEXTS)
    assert _bare_english_collectives(texts) == []
    table = _cell_with(page, "factor(n) = busbw / algbw")
    for kind, name in (("all_reduce", "全归约"), ("all_to_all", "全对全"), ("send_recv", "点对点收发")):
        assert re.search(rf"^{name} {kind}\t", table, re.M), table[-500:]
    assert "全归约 (all-reduce) 的张量" in _cell_with(page, "完整缓冲区")
    (structure,) = [text for text in texts if "环形模型：2" in text]  # the output, not the cell's code
    first_line = structure.strip().splitlines()[0]
    assert "归约散射 + 全收集" in first_line and "all_reduce" not in first_line, structure
    # the busbw lines under it name each collective in Chinese first, the call it measures as code (review 26)
    assert "全归约（dist.all_reduce）的总线带宽 busbw" in structure, structure
