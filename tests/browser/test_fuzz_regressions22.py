"""Fuzz pass 22 in a real browser. Lesson 1's capacity widget, driven by its menus as a learner would, prints its five
parts (parameters, gradients, optimizer state, activations, reserve) so that they add up to the total its verdict
prints just above them, in both languages. Each state below was one where the parts, rounded on their own, were
0.01 GiB off that total (the 1.7B and 3.6B models at the default settings, TP 2 on the 7.5B model). Lesson 5's
matrix widget at sequences of 8192 and 32768 tokens and with GPT-3 175B, on a 24 GiB device: "largest layer +
activations + reserve = total" adds up as printed (at 8192 tokens the parts summed to 40.58 beside a printed total of
40.6: the layer at 2 places, the activations at 1, the reserve as given).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from coursekit import i18n
from coursekit.widgets.capacity import CapacityWidget

from .conftest import choose, press, scratch_notebook, widget_message

_TOTAL = {"en": re.compile(r"Needs ([\d.]+) GiB of"), "zh": re.compile(r"需要 ([\d.]+) GiB，设备显存")}
_PARTS = {
    "en": re.compile(
        r"parameters ([\d.]+) \+ gradients ([\d.]+) \+ optimizer state ([\d.]+) \+ activations ([\d.]+) "
        r"\(micro-batches in flight: \d+\) \+ reserve ([\d.]+) GiB"
    ),
    "zh": re.compile(
        r"参数 ([\d.]+) \+ 梯度 ([\d.]+) \+ 优化器状态 ([\d.]+) \+ 激活 ([\d.]+)（\d+ 个微批次在途）"
        r"\+ 预留 ([\d.]+) GiB"
    ),
}


def _labels(lang: str) -> dict[str, dict[Any, str]]:
    """Each menu's label of each value, in ``lang``, as the widget shows them."""
    i18n.set_language(lang)
    try:
        widget = CapacityWidget()
        return {
            key: dict(zip(widget.controls[key]._options_values, widget.controls[key]._options_labels, strict=True))
            for key in ("model", "tp")
        }
    finally:
        i18n.set_language("en")


def _check(message: str, lang: str) -> None:
    total, parts = _TOTAL[lang].search(message), _PARTS[lang].search(message)
    assert total is not None and parts is not None, message
    assert sum(Decimal(x) for x in parts.groups()) == Decimal(total.group(1)), message
    assert "Traceback" not in message


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_capacity_widgets_parts_add_up_in_the_browser(browser: Any, tmp_path: Path, lang: str) -> None:
    labels = _labels(lang)
    sources = [f"import coursekit\ncoursekit.set_language('{lang}')\nfrom coursekit.widgets.capacity import "
               "CapacityWidget\nCapacityWidget()"]  # fmt: skip
    with scratch_notebook(browser, tmp_path, sources) as page:
        widget = page.page.locator(".ck-widget").first
        _check(widget_message(widget), lang)
        seen = set()
        for model in ("megatron-1.7b", "megatron-3.6b", "megatron-7.5b"):
            message = choose(page.page, widget, "model", labels["model"][model])
            _check(message, lang)
            seen.add(message)
        message = choose(page.page, widget, "tp", labels["tp"][2])
        _check(message, lang)
        seen.add(message)
        assert len(seen) == 4  # each choice changed what the learner reads


_MATRIX = {
    "en": re.compile(r"\(largest layer ([\d.]+) \+ activations ([\d.]+) \+ reserve ([\d.]+) = ([\d.]+) GiB"),
    "zh": re.compile(r"（最大一层 ([\d.]+) \+ 激活 ([\d.]+) \+ 预留 ([\d.]+) = ([\d.]+) GiB"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_matrix_widgets_sum_adds_up_in_the_browser(browser: Any, tmp_path: Path, lang: str) -> None:
    from coursekit.widgets.matrix import MatrixWidget

    i18n.set_language(lang)
    try:
        control = MatrixWidget().controls["seq_len"]
        labels = dict(zip(control._options_values, control._options_labels, strict=True))
    finally:
        i18n.set_language("en")
    sources = [f"import coursekit\ncoursekit.set_language('{lang}')\nfrom coursekit.widgets.matrix import "
               "MatrixWidget\nMatrixWidget()"]  # fmt: skip
    with scratch_notebook(browser, tmp_path, sources) as page:
        widget = page.page.locator(".ck-widget").first
        messages = [choose(page.page, widget, "seq_len", labels[length]) for length in (8192, 32768)]
        messages.append(press(page.page, widget, "model", "End"))  # GPT-3 175B, the model slider's last stop
        for message in messages:
            shown = _MATRIX[lang].search(message)
            assert shown is not None, message
            part, act, reserve, total = shown.groups()
            assert Decimal(part) + Decimal(act) + Decimal(reserve) == Decimal(total), shown.group(0)
        assert len(set(messages)) == 3
