"""Lesson 10's widget figure: its axis labels stay clear of the tick labels whatever the controls reach.

The memory panel's y axis runs from 80 GiB (the default) to thousands of GiB (a 32768 + 8192-token context at batch
512: at TP = 1 Mixtral's KV cache alone is 512 × 40960 tokens × 128 KiB = 2560 GiB per rank). The label used to be
placed once, next to two-digit ticks, and "2000" then ran through it.
"""

from __future__ import annotations

from typing import Any

import pytest

import coursekit
from coursekit.widgets.serving import ServingWidget


def _boxes(widget: ServingWidget, ax: Any) -> tuple[Any, list[Any], Any]:
    figure = widget.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    ticks = [t.get_window_extent(renderer) for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
    return ax.yaxis.label.get_window_extent(renderer), ticks, figure.bbox


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_memory_axis_label_clears_four_digit_ticks(lang: str) -> None:
    coursekit.set_language(lang)
    try:
        widget = ServingWidget(model="mixtral-8x7b", gpu="a100-8", tp=1)
        # as a learner would: the slider moves after the first drawing placed the labels
        for name, value in (("prompt_tokens", 32768), ("output_tokens", 8192), ("batch", 512)):
            widget.controls[name].value = value
        assert widget.status == "ok"
        # 512 requests × 40960 tokens × 128 KiB per token (32 layers · 8 KV heads · 128 · 2 · 2 bytes) = 2560 GiB
        assert widget.result is not None and round(widget.result.ledger.kv_cache_gib) == 2560
        label, ticks, figure = _boxes(widget, widget.ax_mem)
        assert max(len(t.get_text()) for t in widget.ax_mem.get_yticklabels()) >= 4
        for tick in ticks:
            assert not label.overlaps(tick), (label, tick)
        assert label.x0 >= figure.x0, "the label was pushed off the figure"
    finally:
        coursekit.set_language("en")


def test_memory_axis_label_stays_on_the_figure_at_the_default() -> None:
    widget = ServingWidget()
    label, ticks, figure = _boxes(widget, widget.ax_mem)
    assert label.x0 >= figure.x0 and all(not label.overlaps(tick) for tick in ticks)
