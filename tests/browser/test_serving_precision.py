"""Lesson 10's serving widget in real JupyterLab: the precision control switches the replica to FP8 (W8A8).

A learner opens the lesson, runs it, and picks FP8 in the widget's precision menu: the description and the figure
must change to the FP8 estimate of the same layout (coursekit's ``serving_estimate(precision="fp8")``, computed here
in the test), name the FP8 and bf16 peaks, and show no traceback. An A100 has no FP8 peak: choosing it with FP8
gives no numbers, only a message in the learner's language, and bf16 brings the numbers back.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from coursekit.presets import CLUSTERS
from coursekit.serving import ServingEstimate
from coursekit.widgets import node_label
from tests.serving_default import library_estimate

from .conftest import change_and_wait, choose, widget_message

CJK = re.compile(r"[\u4e00-\u9fff]")


def _times(est: ServingEstimate) -> list[str]:
    """TTFT and TPOT as the widget rounds them (whole ms, then one decimal)."""
    return [f"{est.time_to_first_token_s * 1e3:.0f} ms", f"{est.time_per_output_token_s * 1e3:.1f} ms"]


def _figure(widget: Any) -> str:
    return str(widget.locator(".ck-figure").first.get_attribute("src") or "")


@pytest.mark.parametrize(
    ("notebook", "labels", "words"),
    [
        (
            "zh/10_serving.ipynb",
            ("bf16（权重 2 字节）", "FP8 W8A8（权重 1 字节）"),
            ("精度 bf16", "精度 FP8 (W8A8)", "只有评测才知道", "没有 FP8 张量核心", "输入无法计算"),
        ),
        (
            "en/10_serving.ipynb",
            ("bf16 (2-byte weights)", "FP8 W8A8 (1-byte weights)"),
            (
                "Precision bf16",
                "Precision FP8 (W8A8)",
                "only an evaluation tells",
                "has no FP8 tensor cores",
                "cannot be computed",
            ),
        ),
    ],
)
def test_the_precision_menu_switches_the_widget_to_fp8_and_a100_says_why_not(
    open_lesson: Any, notebook: str, labels: tuple[str, str], words: tuple[str, ...]
) -> None:
    bf16_label, fp8_label = (label.replace(" ", "\xa0") for label in labels)  # a menu shows spaces as no-break
    said_bf16, said_fp8, said_quality, said_no_fp8, said_invalid = words
    page = open_lesson(notebook).page
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    menu = widget.locator(".ck-control-precision select")
    assert menu.count() == 1, "the serving widget has no precision menu"
    assert str(menu.first.evaluate("(s) => s.options[s.selectedIndex].text")) == bf16_label

    h100 = CLUSTERS["h100-8"]
    bf16_peak, fp8_peak = f"{h100.peak_flops / 1e12:.0f} TFLOP/s", f"{h100.peak_flops_fp8 / 1e12:.0f} TFLOP/s"
    message = widget_message(widget)
    for shown in [*_times(library_estimate("bf16", gpu="h100-8")), said_bf16, bf16_peak]:
        assert shown in message, (shown, message)
    assert fp8_peak not in message

    figure = _figure(widget)
    message = choose(page, widget, "precision", fp8_label)
    for shown in [*_times(library_estimate("fp8", gpu="h100-8")), said_fp8, fp8_peak, bf16_peak, said_quality]:
        assert shown in message, (shown, message)
    for stale in _times(library_estimate("bf16", gpu="h100-8")):
        assert stale not in message, (stale, message)
    assert "Traceback" not in message and widget.locator(".coursekit-invalid").count() == 0
    page.wait_for_function("(old) => document.querySelector('.ck-figure').src !== old", arg=figure, timeout=15_000)
    if notebook.startswith("zh/"):  # the learner's language: no English sentence in the message
        assert not re.search(r"[A-Za-z]{4,} [A-Za-z]{3,}", message), message

    # A100: no FP8 tensor cores. Choosing it with FP8 gives a message in the learner's language, not numbers.
    message = choose(page, widget, "gpu", getattr(node_label("a100-8"), notebook[:2]))  # "a100-8：8 × 80 GiB"
    assert said_invalid in message and said_no_fp8 in message and "a100-8" in message, message
    assert "Traceback" not in message and "ms" not in message, message
    assert widget.locator(".ck-message .coursekit-invalid").count() == 1  # the message; the summary repeats it
    assert bool(CJK.search(message)) == notebook.startswith("zh/"), message
    message = choose(page, widget, "precision", bf16_label)  # back to bf16: the A100's numbers
    for shown in [*_times(library_estimate("bf16", gpu="a100-8")), said_bf16]:
        assert shown in message, (shown, message)
    assert widget.locator(".coursekit-invalid").count() == 0
    # and FP8 again, where it is refused again (the message says so, nothing stays stale)
    message = change_and_wait(page, widget, lambda: menu.first.select_option(label=fp8_label))
    assert said_no_fp8 in message and "Traceback" not in message, message
    assert "Traceback" not in page.locator(".jp-Notebook").first.inner_text()
